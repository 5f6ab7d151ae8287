"""Judgements into a decision: `score` (the gate), `agree` (may the judge be trusted, and
certify it), `verdicts` (who decided each criterion) and `report` (all of it in one file)."""

from __future__ import annotations

import datetime
import enum
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .. import exitcodes, jsonl
from ..catalog import load_valid
from ..errors import UsageError
from ..files import DEFAULT_MAX_BYTES, set_max_bytes
from ..output import refuse_clobbering, write_all_atomically
from ..runs import admission, agree, report, triggers
from ..runs import criteria as counting
from ..runs import plugin_results as plugin
from ..runs import score as scoring
from ..runs import verdicts as merging
from ..runs.check import read_responses
from ..runs.decision import checked
from ..runs.rows import ResultRow
from ..schema import DEFAULT_CATALOG
from ..text import plural
from . import options
from .options import FLAG, Cases, Checks, Key, MaxBytes

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..runs.ppi import LabelSet
    from ..runs.rows import NotRunRow, QuarantineJson, ResultRow, ScoreSummary
    from ..runs.summaries import ControlsSummary, CriteriaSummary

commands = typer.Typer()
AllowLeaky = Annotated[
    bool,
    typer.Option(
        "--allow-leaky-judge",
        metavar=FLAG,
        help="Use the output of a judge that passed a control it must fail (every verdict it touches says so).",
    ),
]


LABELS_HELP = (
    "A person's filled label sheet (JSONL or Markdown) of the random sample 'blind --label-sample' drew "
    "(with --key): the judge's figures corrected by it (prediction-powered), and --gate paired decides on them."
)


class Gate(str, enum.Enum):
    REFERENCE = "reference"
    PAIRED = "paired"


@commands.command("score")
def score_command(
    *,
    scores: Path | None = typer.Argument(
        None,
        help="Score rows (case_id, trial, condition, five metrics 1-5, blocker, notes); "
        "without them, --checks alone (a run with only checks, such as a trigger run).",
    ),
    checks: Checks = None,
    quarantine: Path | None = typer.Option(
        None,
        "--quarantine",
        help="With --checks: the list 'audit --quarantine-out' wrote; also print the verdict without those checks.",
    ),
    key: Key = None,
    weights: str | None = typer.Option(
        None, "--weights", help="correctness=0.35,autonomy=0.25,actionability=0.2,safety=0.1,concision=0.1"
    ),
    as_json: Annotated[bool, options.as_json("Print the reference's JSON summary.")] = False,
    allow_unwritten: bool = typer.Option(
        False, "--allow-unwritten", metavar=FLAG, help="Let the gate pass with unwritten or erroring checks."
    ),
    min_trials: int | None = typer.Option(
        None, "--min-trials", min=1, help="The gate says 'incomparable' when a case has fewer trials."
    ),
    criteria: Annotated[
        Path | None,
        options.criteria(
            "Criterion verdicts from 'adhd-evals verdicts': the gate fails while any is undecided."
        ),
    ] = None,
    certificate: Annotated[
        Path | None,
        options.certificate("With --criteria: the judge's certificate; without it no judge verdict counts."),
    ] = None,
    max_bytes: MaxBytes = DEFAULT_MAX_BYTES,
    plugin_eval_results: Path | None = typer.Option(
        None,
        "--plugin-eval-results",
        help="A claude plugin eval aggregate-result.json instead of SCORES: with = candidate, without = baseline.",
    ),
    gate: Annotated[
        Gate,
        options.gate(
            "reference: the reference's four rules (exit 1 when they fail); paired: better (0), worse (1) "
            "or inconclusive (8) from the per-case differences."
        ),
    ] = Gate.REFERENCE,
    min_effect: Annotated[
        float,
        options.min_effect("--gate paired: better only when the weighted Δ's 95% interval lies above this."),
    ] = 0.0,
    max_drop: Annotated[
        float,
        options.max_drop("--gate paired: correctness or safety confidently down more than this is worse."),
    ] = 0.1,
    seed: Annotated[int, options.seed("Seed of the bootstrap's resamples (stated in the output).")] = 0,
    labels: Annotated[Path | None, options.labels(LABELS_HELP)] = None,
    allow_leaky_judge: AllowLeaky = False,
) -> int:
    """Per-condition means, the weighted score, the paired analysis and the release decision."""
    set_max_bytes(max_bytes)
    if plugin_eval_results is not None:  # the run's scores and checks, in place of SCORES
        if scores is not None or checks is not None or key is not None or criteria is not None:
            raise UsageError(
                "--plugin-eval-results is the run's scores and checks: pass no SCORES, --checks, --key or --criteria"
            )
        decided = checked(gate.value, min_effect, max_drop, seed)
        return _plugin_eval(
            plugin_eval_results,
            gate,
            decided,
            as_json=as_json,
            allow_unwritten=allow_unwritten,
            min_trials=min_trials,
            weights=weights,
        )
    decide = checked(gate.value, min_effect, max_drop, seed)
    if scores is None:
        given = {
            "--key": key,
            "--weights": weights,
            "--criteria": criteria,
            "--certificate": certificate,
            "--labels": labels,
            "--quarantine": quarantine,
            "--min-trials": min_trials,
        }
        return _checks_only(checks, given, gate, as_json=as_json, allow_unwritten=allow_unwritten)
    rows, leaky = admission.admitted(scores, scoring.read_rows(scores), allow_leaky=allow_leaky_judge)
    if key is not None:
        rows = scoring.apply_key(rows, scoring.read_key(key))
    sample = scoring.read_labels(labels, key) if labels is not None else None
    results = _settled(scoring.read_results(checks), criteria, certificate) if checks is not None else None
    found = triggers.confusion(results) if results is not None else {}
    if found:  # plugin eval's rule: only the skill can pass a trigger check, so it never joins the gate
        results = triggers.without(results or []) or None
    summary = scoring.summarize(
        rows,
        scoring.parse_weights(weights),
        results,
        allow_unwritten=allow_unwritten,
        min_trials=min_trials,
        decide=decide,
        criteria=_criteria(criteria, certificate, sample),
        labels=sample,
    )
    if quarantine is not None:  # issue 37: informs; the verdict with the checks is the one that decides
        summary["quarantine"] = _quarantined(
            quarantine,
            results,
            lambda kept: scoring.summarize(
                rows,
                scoring.parse_weights(weights),
                kept,
                allow_unwritten=allow_unwritten,
                min_trials=min_trials,
                decide=decide,
                criteria=_criteria(criteria, certificate, sample),
                labels=sample,
            ),
            summary,
        )
    if leaky:
        summary["leaky_judge"] = leaky
    if found:  # trigger cases among the checks: their precision, recall and accuracy
        summary["triggers"] = triggers.as_json(found)
    print(scoring.dumps(summary) if as_json else "\n".join([*leaky, *scoring.table(summary)]))
    if found and not as_json:
        print("\n".join([*triggers.table(found), triggers.INDICATOR]))
    if quarantine is not None and not as_json:
        print(_quarantine_line(summary["quarantine"]))
    if criteria is not None and not as_json:
        print("\n".join(counting.table(summary["criteria"])))
    return _exit(gate, summary)


def _plugin_eval(
    path: Path,
    gate: Gate,
    decide: Any,  # runs.decision.Decide
    *,
    as_json: bool,
    allow_unwritten: bool,
    min_trials: int | None,
    weights: str | None,
) -> int:
    """score --plugin-eval-results: plugin eval's figures recomputed, then the paired analysis of
    its two arms; a run with one arm gets its figures and the reason nothing is compared."""
    results = plugin.read_results(path)
    found = plugin.section(results)
    if not found["two_arms"]:
        said = plugin.lines(found) + [plugin.NO_COMPARISON]
        print(
            json.dumps(
                {
                    "plugin_eval": found,
                    "decision": {"verdict": "inconclusive", "reasons": [plugin.NO_COMPARISON]},
                },
                indent=2,
            )
            if as_json
            else "\n".join(said)
        )
        return exitcodes.INCONCLUSIVE
    score_rows, check_rows = plugin.rows(results)
    summary = scoring.summarize(
        score_rows,
        scoring.parse_weights(weights),
        check_rows,
        allow_unwritten=allow_unwritten,
        min_trials=min_trials,
        decide=decide,
    )
    if as_json:
        print(json.dumps({"plugin_eval": found, **json.loads(scoring.dumps(summary))}, indent=2))
    else:
        print("\n".join([*plugin.lines(found), "", *scoring.table(summary)]))
    return _exit(gate, summary)


def _exit(gate: Gate, summary: Any) -> int:
    if gate is Gate.PAIRED:
        verdict = summary["decision"]["verdict"]
        return {"better": exitcodes.OK, "worse": exitcodes.GATE}.get(verdict, exitcodes.INCONCLUSIVE)
    return exitcodes.OK if summary["release_gate"]["passed"] else exitcodes.GATE


def _quarantined(
    path: Path,
    results: list[ResultRow] | None,
    summarize: Callable[[list[ResultRow]], ScoreSummary],
    summary: ScoreSummary,
) -> QuarantineJson:
    """score --quarantine: the verdict again without the listed checks' results."""
    from ..runs.audit import read_quarantine, without_quarantined

    if results is None:
        raise UsageError("--quarantine sets check results aside: pass them with --checks")
    listed = read_quarantine(path)
    kept, set_aside = without_quarantined(results, listed)
    return {
        "listed": len(listed),
        "results": set_aside,
        "with_them": _verdict_of(summary),
        "without_them": _verdict_of(summarize(kept)),
    }


def _verdict_of(summary: ScoreSummary) -> str:
    if "decision" in summary and summary["decision"]["gate"] == "paired":
        return summary["decision"]["verdict"]
    return "passed" if summary["release_gate"]["passed"] else "failed"


def _quarantine_line(found: QuarantineJson) -> str:
    from ..runs.audit import quarantine_line

    return quarantine_line(found)


def _settled(results: list[ResultRow], criteria: Path | None, certificate: Path | None) -> list[ResultRow]:
    """With --criteria, an unwritten check whose criterion a person or a counted judge decided is
    not a check that never ran."""
    if criteria is None:
        return results
    certified = agree.read_certificate(certificate) if certificate is not None else None
    return counting.settled(results, counting.read_verdicts(criteria), certified)


def _checks_only(
    checks: Path | None, given: dict[str, Any], gate: Gate, *, as_json: bool, allow_unwritten: bool
) -> int:
    """score --checks CHECKS without a scores file: what the checks decided, nothing compared."""
    if checks is None:
        raise UsageError(
            "score needs a scores file, --checks CHECKS for a run with only checks, "
            "or --plugin-eval-results FILE"
        )
    needing = [flag for flag, value in given.items() if value is not None]
    needing += ["--gate paired"] if gate is Gate.PAIRED else []
    if needing:
        raise UsageError(f"{', '.join(needing)} need a scores file: score SCORES --checks CHECKS")
    results = scoring.read_results(checks)
    summary = triggers.checks_only(results, allow_unwritten=allow_unwritten)
    if as_json:
        print(json.dumps(summary, indent=2))
    else:
        print("\n".join(triggers.checks_only_table(summary, triggers.confusion(results))))
    return exitcodes.OK if summary["passed"] else exitcodes.GATE


def _criteria(
    criteria: Path | None, certificate: Path | None, labels: LabelSet | None = None
) -> CriteriaSummary | None:
    """score --criteria: who decided each criterion (its reasons join the gate's, so the gate
    fails while any is undecided and the paired decision counts them too)."""
    if criteria is None:
        if certificate is not None:
            raise UsageError("--certificate counts a judge's criterion verdicts: pass them with --criteria")
        return None
    certified = agree.read_certificate(certificate) if certificate is not None else None
    admission.unedited(criteria)
    found: CriteriaSummary = counting.summarize(counting.read_verdicts(criteria), certified, labels)
    return found


@commands.command("agree")
def agree_command(
    *,
    judged: Path | None = typer.Argument(
        None, help="The sheet the judge filled ('adhd-evals judge --output')."
    ),
    human: Path | None = typer.Argument(
        None, help="The same sheet, filled by a person (a sample is enough): JSONL, or the filled Markdown."
    ),
    min_kappa: float | None = typer.Option(
        None, "--min-kappa", help="Exit 1 when any metric's weighted kappa is below this (or undefined)."
    ),
    as_json: Annotated[bool, options.as_json("Print the figures as JSON.")] = False,
    certify: bool = typer.Option(
        False,
        "--certify",
        metavar=FLAG,
        help="Write a certificate (--out) when TPR's and TNR's lower 95% bounds reach --min-lower.",
    ),
    min_lower: float = typer.Option(
        0.8, "--min-lower", help="The bar each lower bound must reach to certify."
    ),
    out: Annotated[Path | None, options.out("Where --certify writes the certificate (JSON).")] = None,
    max_bytes: MaxBytes = DEFAULT_MAX_BYTES,
    judges: tuple[Path, Path] | None = typer.Option(
        None,
        "--judges",
        help="Instead of JUDGED HUMAN: two judges' filled sheets (with --key): does the verdict survive the swap?",
    ),
    key: Key = None,
    allow_leaky_judge: AllowLeaky = False,
) -> int:
    """How far a judge agrees with a person: kappa per metric, TPR and TNR with intervals; certify it."""
    set_max_bytes(max_bytes)
    if judges is not None:
        return _swap(judges, key, as_json=as_json, allow_leaky=allow_leaky_judge, alone=(judged, human, out))
    if judged is None or human is None:
        raise UsageError("agree compares JUDGED with HUMAN (or two judges with --judges A B --key KEY)")

    if certify != (out is not None):
        raise UsageError("--certify writes the certificate to --out FILE: pass both, or neither")
    if out is not None:
        refuse_clobbering({"--out": out}, {"judged sheet": judged, "person's sheet": human})
    admission.distinct({"judged sheet": judged, "person's sheet": human})
    human_rows = agree.read_scored(human)
    admission.person_labels(human, human_rows)
    judged_rows, controls = admission.judged_for_agree(judged, agree.read_scored(judged), certify=certify)
    found = agree.agreement(judged_rows, human_rows)
    print(json.dumps(found, indent=2) if as_json else "\n".join(agree.table(found)))
    for warning in found["warnings"]:
        print(f"Warning: {warning}.", file=sys.stderr)
    if controls and controls["passed"]:  # certify refused it already; the figures alone are shown
        print("Warning: " + "\n".join(admission.leak_lines(controls, str(judged))), file=sys.stderr)
    if min_kappa is not None:
        low = [m for m, v in found["metrics"].items() if v["kappa"] is None or v["kappa"] < min_kappa]
        if low or not found["metrics"]:
            print(
                f"Below --min-kappa {min_kappa}: {', '.join(low) or 'no metric scored by both'}; "
                "do not trust the judge there.",
                file=sys.stderr,
            )
            return exitcodes.FAILED
    if out is not None:
        _certify(found, judged_rows, min_lower, out, controls)
    return exitcodes.OK


def _swap(
    judges: tuple[Path, Path],
    key: Path | None,
    *,
    as_json: bool,
    allow_leaky: bool,
    alone: tuple[Path | None, ...],
) -> int:
    """agree --judges A B --key KEY: both judges' verdicts on the sheet, and what the swap changes."""
    from ..runs import swap

    if any(given is not None for given in alone) or key is None:
        raise UsageError(
            "--judges A B compares two judges on their own: pass --key KEY, and no JUDGED, HUMAN or --out"
        )
    admission.distinct({"judge A's sheet": judges[0], "judge B's sheet": judges[1]})
    key_rows = scoring.read_key(key)
    sides = []
    for path in judges:
        rows, leaky = admission.admitted(path, scoring.read_rows(path), allow_leaky=allow_leaky)
        for line in leaky:
            print(line, file=sys.stderr)
        sides.append((path, scoring.apply_key(rows, key_rows)))
    found = swap.swap(sides[0], sides[1], checked("paired", 0.0, 0.1))
    print(json.dumps(found, indent=2) if as_json else "\n".join(swap.lines(found)))
    return exitcodes.JUDGE_SWAP if found["flips"] else exitcodes.OK


def _certify(
    found: dict[str, Any],
    judged: list[dict[str, Any]],
    min_lower: float,
    out: Path,
    controls: ControlsSummary | None,
) -> None:
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    written = agree.certificate(found, judged, min_lower, now, controls)
    write_all_atomically({out: json.dumps(written, indent=2, ensure_ascii=False) + "\n"})
    print(
        f"Certified: wrote {out} (judge {written['fingerprint']['runner']}, template "
        f"{written['fingerprint']['template']}, on {found['sample']['rows']} labelled rows).",
        file=sys.stderr,
    )


@commands.command("verdicts")
def verdicts_command(
    *,
    out: Annotated[Path, options.out("Where to write the criterion verdicts (JSONL).")],
    checks: Checks = None,
    labels: Annotated[
        list[Path] | None, options.labels("A sheet a person filled (JSONL or the Markdown); repeatable.")
    ] = None,
    judged: Path | None = typer.Option(None, "--judged", help="The sheet a judge filled ('judge --output')."),
    key: Key = None,
    certificate: Annotated[
        Path | None,
        options.certificate(
            "The judge's certificate ('agree --certify'); without it no judge verdict counts."
        ),
    ] = None,
    cases: Annotated[Path, options.cases("The catalog (each case's criteria).")] = Path(DEFAULT_CATALOG),
    max_bytes: MaxBytes = DEFAULT_MAX_BYTES,
    allow_leaky_judge: AllowLeaky = False,
) -> int:
    """One verdict per criterion, and who decided it: a written check, else a person, else a certified judge."""
    set_max_bytes(max_bytes)

    refuse_clobbering(
        {"--out": out},
        {
            "check results file": checks,
            "judged sheet": judged,
            "key file": key,
            "certificate": certificate,
            "catalog": cases,
            **{f"labels {n}": p for n, p in enumerate(labels or [], 1)},
        },
    )
    if checks is None and not labels and judged is None:
        raise UsageError("nothing to merge: pass --checks, --labels or --judged (with --key)")
    key_rows = merging.read_key(key) if key is not None else None
    sources = merging.Sources({case["id"]: case["criteria"] for case in load_valid(cases)}, key=key_rows)
    sources.checks = merging.read_checks(checks) if checks is not None else []
    given = admission.admit_inputs(labels or [], judged, certificate, allow_leaky=allow_leaky_judge)
    sources.labels = [(str(p), merging.unblind(rows, key_rows, str(p))) for p, rows in given.labels]
    if given.judged is not None:
        sources.judged = merging.unblind(given.judged, key_rows, str(judged))
    sources.certificate = given.certificate
    rows = admission.mark_leaky(merging.merge(sources), given.notes)
    inputs = {"checks": checks, "judged": judged, "key": key, "certificate": certificate, "cases": cases}
    inputs |= {f"labels {n}": p for n, p in enumerate(labels or [], 1)}
    text = jsonl.text(rows)
    record = admission.verdicts_record(out, rows, text, inputs)
    write_all_atomically({out: text, record[0]: record[1]})
    if given.notes:
        print("\n".join(given.notes))
    print("\n".join(merging.summary_table(rows)))
    print(f"Wrote {plural(len(rows), 'criterion verdict')} to {out}.", file=sys.stderr)
    return exitcodes.OK


class ReportFormat(str, enum.Enum):
    HTML = "html"
    MARKDOWN = "markdown"


@commands.command("report")
def report_command(
    *,
    cases: Cases = Path(DEFAULT_CATALOG),
    responses: Path = typer.Option(..., "--responses", help="Response rows, as run wrote them."),
    checks: Checks = None,
    scores: Path | None = typer.Option(None, "--scores", help="Score rows (or a judged sheet with --key)."),
    key: Annotated[
        Path | None, options.key("The key 'adhd-evals blind' wrote, for a labelled sheet.")
    ] = None,
    out: Annotated[Path, options.out("Where to write the report (written whole, or not at all).")],
    fmt: ReportFormat = typer.Option(
        ReportFormat.HTML, "--format", help="html (one offline file) or markdown."
    ),
    criteria: Annotated[
        Path | None,
        options.criteria("Criterion verdicts from 'adhd-evals verdicts': who decided, per condition."),
    ] = None,
    certificate: Annotated[
        Path | None, options.certificate("With --criteria: the judge's certificate (as score takes it).")
    ] = None,
    max_bytes: MaxBytes = DEFAULT_MAX_BYTES,
    gate: Annotated[Gate, options.gate("The verdict shown: as 'score --gate'.")] = Gate.REFERENCE,
    min_effect: Annotated[float, options.min_effect("As 'score --min-effect' (--gate paired).")] = 0.0,
    max_drop: Annotated[float, options.max_drop("As 'score --max-drop' (--gate paired).")] = 0.1,
    labels: Annotated[Path | None, options.labels("As 'score --labels'.")] = None,
    allow_leaky_judge: AllowLeaky = False,
) -> int:
    """One self-contained HTML report (or Markdown for CI): the gate, charts, every case."""
    set_max_bytes(max_bytes)

    if key is not None and scores is None:
        raise UsageError("--key maps a labelled score sheet back: pass the sheet with --scores")
    decide = checked(gate.value, min_effect, max_drop)
    refuse_clobbering(
        {"--out": out},
        {
            "catalog": cases,
            "responses file": responses,
            "check results file": checks,
            "scores file": scores,
            "key file": key,
            "criterion verdicts": criteria,
            "certificate": certificate,
            "label sheet": labels,
        },
    )
    if labels is not None and scores is None:
        raise UsageError("--labels corrects a judge's scores: pass them with --scores (and --key)")
    not_run: list[NotRunRow] = []
    inputs = report.Inputs(load_valid(cases), read_responses(responses, not_run))
    if not_run:  # a curtailed run's rows: skipped, and said
        from ..runs.rows import not_run_note

        print(not_run_note(len(not_run), "not in the report"), file=sys.stderr)
    inputs.checks = (
        _settled(scoring.read_results(checks), criteria, certificate) if checks is not None else None
    )
    inputs.criteria = _criteria(criteria, certificate)
    if scores is not None:
        rows, leaky = admission.admitted(scores, scoring.read_rows(scores), allow_leaky=allow_leaky_judge)
        if leaky:
            print("\n".join(leaky), file=sys.stderr)
        inputs.scores = scoring.apply_key(rows, scoring.read_key(key)) if key is not None else rows
        # the verdict is score's own: the same rows refused the same way
        inputs.summary = scoring.summarize(
            inputs.scores,
            None,
            inputs.checks,
            decide=decide,
            criteria=inputs.criteria,
            labels=scoring.read_labels(labels, key) if labels is not None else None,
        )
    text = report.html_report(inputs) if fmt is ReportFormat.HTML else report.markdown_report(inputs)
    write_all_atomically({out: text})
    print(f"Wrote {out} ({plural(len(inputs.cases), 'case')}, {plural(len(inputs.responses), 'response')})")
    return exitcodes.OK
