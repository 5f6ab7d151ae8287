"""Responses read: `check` (every response through its case's written checks) and `blind` (a
sheet a judge or a person fills without knowing the conditions)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..files import DEFAULT_MAX_BYTES
from ..schema import DEFAULT_CATALOG
from . import options
from .options import Cases, MaxBytes, Shard, ShardCount
from .plain import checking as plain

commands = typer.Typer()


@commands.command("check")
def check_command(
    *,
    responses: Path = typer.Argument(
        ..., help="Response rows (case_id, trial, condition, runner, response) as JSONL."
    ),
    cases: Cases = Path(DEFAULT_CATALOG),
    suite: Annotated[
        Path | None,
        options.suite(
            "The check module (default evals/checks.py). check RUNS ITS PYTHON CODE: "
            "point it only at a module you trust."
        ),
    ] = None,
    output: Annotated[Path | None, options.output("Write one result row per check as JSONL.")] = None,
    junit: Path | None = typer.Option(None, "--junit", help="Write JUnit XML (a test case per check)."),
    as_json: Annotated[bool, options.as_json("Print the summary as JSON.")] = False,
    max_bytes: MaxBytes = DEFAULT_MAX_BYTES,
    check_timeout: float = typer.Option(
        5.0,
        "--check-timeout",
        min=0,
        help="Seconds one check may run before it is stopped and recorded as an error (0: no limit).",
    ),
    shard: Shard = None,
    shard_count: ShardCount = None,
) -> int:
    """Run every response through its case's checks; fails while anything fails or is unwritten.

    The check module is Python: check imports it and runs its code. Without
    --suite it reads evals/checks.py only when that file lies inside the
    current folder (not through a link to somewhere else).
    """
    return plain.check(
        responses=responses,
        cases=cases,
        suite=suite,
        output=output,
        junit=junit,
        as_json=as_json,
        max_bytes=max_bytes,
        check_timeout=check_timeout,
        shard=shard,
        shard_count=shard_count,
    )


@commands.command("blind")
def blind_command(
    *,
    responses: Path = typer.Argument(..., help="Responses from 'adhd-evals run'."),
    sheet: Path = typer.Option(..., "--sheet", help="The judging sheet to write (JSONL)."),
    key: Annotated[Path, options.key("The key file to write (keep it from the judges).")],
    seed: Annotated[int, options.seed("Seed of the shuffled label order.")] = 0,
    cases: Annotated[
        Path | None,
        options.cases(
            f"The catalog whose prompts and criteria the sheet carries (default {DEFAULT_CATALOG})."
        ),
    ] = None,
    markdown: Path | None = typer.Option(
        None, "--markdown", help="Also write the sheet as a readable document."
    ),
    max_bytes: MaxBytes = DEFAULT_MAX_BYTES,
    label_sample: int | None = typer.Option(
        None,
        "--label-sample",
        min=1,
        help="Also draw this many cases at random (--seed) for a person to label (--label-sheet): "
        "what 'score --labels' corrects a judge with.",
    ),
    label_sheet: Path | None = typer.Option(
        None, "--label-sheet", help="The person's sheet of the --label-sample cases (JSONL)."
    ),
    label_markdown: Path | None = typer.Option(
        None, "--label-markdown", help="Also write the person's sheet as a readable document."
    ),
) -> int:
    """Write a judging sheet with conditions hidden behind labels A/B/C, plus a key file."""
    return plain.blind(
        responses=responses,
        sheet=sheet,
        key=key,
        seed=seed,
        cases=cases,
        markdown=markdown,
        max_bytes=max_bytes,
        label_sample=label_sample,
        label_sheet=label_sheet,
        label_markdown=label_markdown,
    )
