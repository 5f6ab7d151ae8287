"""Judgements into a decision: `score` (the gate), `agree` (may the judge be trusted, and
certify it), `verdicts` (who decided each criterion) and `report` (all of it in one file)."""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .. import exitcodes
from ..errors import UsageError
from ..files import DEFAULT_MAX_BYTES, set_max_bytes
from ..output import refuse_clobbering, write_all_atomically
from ..runs.deciding import score as scoring
from ..runs.deciding import swap
from ..runs.deciding.decision import checked
from ..runs.judging import admission, agree
from ..runs.reporting.report import ReportFormat
from ..runs.rows import GateName
from ..schema import DEFAULT_CATALOG
from . import options
from .options import FLAG, Cases, Checks, Key, MaxBytes
from .plain import scoring as plain

if TYPE_CHECKING:
    from ..runs.rows import Certificate

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
        GateName,
        options.gate(
            "reference: the reference's four rules (exit 1 when they fail); paired: better (0), worse (1) "
            "or inconclusive (8) from the per-case differences."
        ),
    ] = "reference",
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
    return plain.score(
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
        max_bytes=max_bytes,
        plugin_eval_results=plugin_eval_results,
        gate=gate,
        min_effect=min_effect,
        max_drop=max_drop,
        seed=seed,
        labels=labels,
        allow_leaky_judge=allow_leaky_judge,
    )


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
        now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        _certify(
            out, agree.certificate(found, judged_rows, min_lower, now, controls), found["sample"]["rows"]
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
    return plain.verdicts(
        out=out,
        checks=checks,
        labels=labels,
        judged=judged,
        key=key,
        certificate=certificate,
        cases=cases,
        max_bytes=max_bytes,
        allow_leaky_judge=allow_leaky_judge,
    )


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
    fmt: Annotated[
        ReportFormat, typer.Option("--format", help="html (one offline file) or markdown.")
    ] = "html",
    criteria: Annotated[
        Path | None,
        options.criteria("Criterion verdicts from 'adhd-evals verdicts': who decided, per condition."),
    ] = None,
    certificate: Annotated[
        Path | None, options.certificate("With --criteria: the judge's certificate (as score takes it).")
    ] = None,
    max_bytes: MaxBytes = DEFAULT_MAX_BYTES,
    gate: Annotated[GateName, options.gate("The verdict shown: as 'score --gate'.")] = "reference",
    min_effect: Annotated[float, options.min_effect("As 'score --min-effect' (--gate paired).")] = 0.0,
    max_drop: Annotated[float, options.max_drop("As 'score --max-drop' (--gate paired).")] = 0.1,
    labels: Annotated[Path | None, options.labels("As 'score --labels'.")] = None,
    allow_leaky_judge: AllowLeaky = False,
    full: bool = typer.Option(
        False,
        "--full",
        help="Every case in full in the HTML, however large the run (past 200 cases the page holds "
        "the regressed and failing ones and a seeded sample of the rest).",
    ),
) -> int:
    """One self-contained HTML report (or Markdown for CI): the gate, charts, every case."""
    return plain.report(
        cases=cases,
        responses=responses,
        checks=checks,
        scores=scores,
        key=key,
        out=out,
        fmt=fmt,
        criteria=criteria,
        certificate=certificate,
        max_bytes=max_bytes,
        gate=gate,
        min_effect=min_effect,
        max_drop=max_drop,
        labels=labels,
        allow_leaky_judge=allow_leaky_judge,
        full=full,
    )
