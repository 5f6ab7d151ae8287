"""Judgements into a decision: `score` (the gate), `agree` (may the judge be trusted, and
certify it), `verdicts` (who decided each criterion) and `report` (all of it in one file)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..files import DEFAULT_MAX_BYTES
from ..runs.reporting.report import ReportFormat
from ..runs.rows import GateName
from ..schema import DEFAULT_CATALOG
from . import options
from .options import FLAG, Cases, Checks, Key, MaxBytes
from .plain import scoring as plain

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
    return plain.agree(
        judged=judged,
        human=human,
        min_kappa=min_kappa,
        as_json=as_json,
        certify=certify,
        min_lower=min_lower,
        out=out,
        max_bytes=max_bytes,
        judges=judges,
        key=key,
        allow_leaky_judge=allow_leaky_judge,
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
