"""The plain bodies of `score`, `agree`, `verdicts` and `report` (their typer signatures:
cli/scoring.py).

Each body imports the modules it needs where it starts, so one command does not pay for the
others' (the report's renderers, the verdicts' admission) on its trivial call.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ... import exitcodes, jsonl
from ...catalog import CaseRow, load_valid_once
from ...errors import UsageError
from ...files import set_max_bytes
from ...output import refuse_clobbering, write_all_atomically
from ...text import plural

if TYPE_CHECKING:
    from ...runs.deciding.decision import Decide
    from ...runs.reporting import report as reporting
    from ...runs.reporting.report import ReportFormat
    from ...runs.rows import Certificate, GateName, NotRunRow


def score(
    *,
    scores: Path | None,
    checks: Path | None,
    quarantine: Path | None,
    key: Path | None,
    weights: str | None,
    as_json: bool,
    allow_unwritten: bool,
    min_trials: int | None,
    criteria: Path | None,
    certificate: Path | None,
    max_bytes: int,
    plugin_eval_results: Path | None,
    gate: GateName,
    min_effect: float,
    max_drop: float,
    seed: int,
    labels: Path | None,
    allow_leaky_judge: bool,
) -> int:
    """Per-condition means, the weighted score, the paired analysis and the release decision."""
    from ...runs.deciding.scoring_request import ScoreRequest
    from ...runs.deciding.scoring_request import score as scored

    set_max_bytes(max_bytes)
    request = ScoreRequest(
        scores=scores,
        checks=checks,
        quarantine=quarantine,
        key=key,
        weights=weights,
        as_json=as_json,
        allow_unwritten=allow_unwritten,
        min_trials=min_trials,
        criteria=criteria,
        certificate=certificate,
        plugin_eval_results=plugin_eval_results,
        gate=gate,
        min_effect=min_effect,
        max_drop=max_drop,
        seed=seed,
        labels=labels,
        allow_leaky_judge=allow_leaky_judge,
    )
    text, code = scored(request)
    print(text)
    return code


def agree(
    *,
    judged: Path | None,
    human: Path | None,
    min_kappa: float | None,
    as_json: bool,
    certify: bool,
    min_lower: float,
    out: Path | None,
    max_bytes: int,
    judges: tuple[Path, Path] | None,
    key: Path | None,
    allow_leaky_judge: bool,
) -> int:
    """How far a judge agrees with a person: kappa per metric, TPR and TNR with intervals; certify it."""
    from ...runs.judging import admission
    from ...runs.judging import agree as agreeing

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
    human_rows = agreeing.read_scored(human)
    admission.person_labels(human, human_rows)
    judged_rows, controls = admission.judged_for_agree(judged, agreeing.read_scored(judged), certify=certify)
    found = agreeing.agreement(judged_rows, human_rows)
    print(json.dumps(found, indent=2) if as_json else "\n".join(agreeing.table(found)))
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
        import datetime  # the certificate's date: agree --certify's alone (1.5 ms of every other start-up)

        now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        _certify(
            out, agreeing.certificate(found, judged_rows, min_lower, now, controls), found["sample"]["rows"]
        )
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
    from ...runs.deciding import score as scoring
    from ...runs.deciding import swap
    from ...runs.deciding.decision import checked
    from ...runs.judging import admission

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


def _certify(out: Path, written: Certificate, rows: int) -> None:
    """Write the certificate `agree --certify` made, and say whose it is."""
    write_all_atomically({out: json.dumps(written, indent=2, ensure_ascii=False) + "\n"})
    print(
        f"Certified: wrote {out} (judge {written['fingerprint']['runner']}, template "
        f"{written['fingerprint']['template']}, on {rows} labelled rows).",
        file=sys.stderr,
    )


def verdicts(
    *,
    out: Path,
    checks: Path | None,
    labels: list[Path] | None,
    judged: Path | None,
    key: Path | None,
    certificate: Path | None,
    cases: Path,
    max_bytes: int,
    allow_leaky_judge: bool,
) -> int:
    """One verdict per criterion, and who decided it: a written check, else a person, else a certified judge."""
    from ...runs.judging import admission
    from ...runs.judging import verdicts as merging

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
    sources = merging.Sources({case["id"]: case["criteria"] for case in _catalog(cases)}, key=key_rows)
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


def report(
    *,
    cases: Path,
    responses: Path,
    checks: Path | None,
    scores: Path | None,
    key: Path | None,
    out: Path,
    fmt: ReportFormat,
    criteria: Path | None,
    certificate: Path | None,
    max_bytes: int,
    gate: GateName,
    min_effect: float,
    max_drop: float,
    labels: Path | None,
    allow_leaky_judge: bool,
    full: bool,
) -> int:
    """One self-contained HTML report (or Markdown for CI): the gate, charts, every case."""
    from ...runs.deciding import score as scoring
    from ...runs.deciding.decision import checked
    from ...runs.deciding.scoring_request import criteria_summary, settled
    from ...runs.reporting import report as reporting
    from ...runs.rows import not_run_note, read_responses

    set_max_bytes(max_bytes)

    if key is not None and scores is None:
        raise UsageError("--key maps a labelled score sheet back: pass the sheet with --scores")
    decide = checked(gate, min_effect, max_drop)
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
    inputs = reporting.Inputs(_catalog(cases), read_responses(responses, not_run), full=full)
    if not_run:  # a curtailed run's rows: skipped, and said
        print(not_run_note(len(not_run), "not in the report"), file=sys.stderr)
    inputs.checks = (
        settled(scoring.read_results(checks), criteria, certificate) if checks is not None else None
    )
    inputs.criteria = criteria_summary(criteria, certificate)
    if scores is not None:
        _add_scores(inputs, scores, key=key, labels=labels, decide=decide, allow_leaky=allow_leaky_judge)
    text = reporting.render(fmt, inputs)
    write_all_atomically({out: text})
    size = f", {reporting.size_text(text)}" if full else ""  # --full: how big every case makes it
    print(
        f"Wrote {out} ({plural(len(inputs.cases), 'case')}, {plural(len(inputs.responses), 'response')}{size})"
    )
    return exitcodes.OK


def _add_scores(
    inputs: reporting.Inputs,
    scores: Path,
    *,
    key: Path | None,
    labels: Path | None,
    decide: Decide,
    allow_leaky: bool,
) -> None:
    """report --scores: the rows, and the verdict score gives them (the same rows refused the same way)."""
    from ...runs.deciding import score as scoring
    from ...runs.deciding.scoring_request import admitted

    rows, leaky = admitted(scores, scoring.read_rows(scores), allow_leaky)
    if leaky:
        print("\n".join(leaky), file=sys.stderr)
    inputs.scores = scoring.apply_key(rows, scoring.read_key(key)) if key is not None else rows
    inputs.summary = scoring.summarize(
        inputs.scores,
        None,
        inputs.checks,
        decide=decide,
        criteria=inputs.criteria,
        labels=scoring.read_labels(labels, key) if labels is not None else None,
    )


def _catalog(cases: Path) -> list[CaseRow]:
    """The catalog's cases, refused with every problem when it breaks the rules, which run once
    per content (the records `run` and `judge` keep: catalog.load_valid_once); the same cases and
    refusals as load_valid, without the rules' modules on every call (about 7 ms). Where no home
    holds the records (no HOME, a user with no passwd entry), the rules run each time, as before."""
    from ...runs.calling.home import validated_dir

    return load_valid_once(cases, validated_dir())
