"""`audit`: how good the suite's checks and criteria are, before their verdict is trusted."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..schema import DEFAULT_CATALOG
from . import options
from .options import FLAG, Cases
from .plain import auditing as plain

commands = typer.Typer()


@commands.command("audit")
def audit_command(
    *,
    checks: Path | None = typer.Argument(
        None, metavar="CHECKS", help="Check results ('adhd-evals check --output')."
    ),
    responses: Path | None = typer.Option(
        None, "--responses", help="The responses the results are of: what each case cost, and rows not run."
    ),
    criteria: Annotated[
        Path | None, options.criteria("Criterion verdicts, audited as the checks are.")
    ] = None,
    as_json: Annotated[bool, options.as_json("Print the audit as JSON.")] = False,
    markdown: bool = typer.Option(False, "--markdown", metavar=FLAG, help="Print the audit as Markdown."),
    flaky_above: float = typer.Option(
        0.2, "--flaky-above", min=0.0, max=1.0, help="The flip rate above which a check is flaky."
    ),
    effect: float = typer.Option(
        0.1,
        "--effect",
        min=0.0,
        help="The mean Δ of the cases' check pass fraction the suite should resolve.",
    ),
    quarantine_out: Path | None = typer.Option(
        None,
        "--quarantine-out",
        help="Write the flaky checks and criteria as JSONL (a list, nothing removed).",
    ),
    prompt_only: bool = typer.Option(
        False,
        "--prompt-only",
        metavar=FLAG,
        help="Run every check with its case's own prompt, and with an empty answer, as the answer; "
        "fails when one passes. RUNS THE CHECK MODULE'S PYTHON CODE.",
    ),
    suite: Annotated[
        Path | None, options.suite("With --prompt-only: the check module (default evals/checks.py).")
    ] = None,
    cases: Cases = Path(DEFAULT_CATALOG),
) -> int:
    """Label each check saturated, floor, flaky, discriminating or baseline-only; find cases with no lift."""
    return plain.audit(
        checks=checks,
        responses=responses,
        criteria=criteria,
        as_json=as_json,
        markdown=markdown,
        flaky_above=flaky_above,
        effect=effect,
        quarantine_out=quarantine_out,
        prompt_only=prompt_only,
        suite=suite,
        cases=cases,
    )
