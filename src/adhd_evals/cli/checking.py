"""Responses read: `check` (every response through its case's written checks) and `blind` (a
sheet a judge or a person fills without knowing the conditions)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from .. import exitcodes, jsonl
from ..catalog import load_valid
from ..errors import UsageError
from ..files import DEFAULT_MAX_BYTES, set_max_bytes
from ..output import refuse_clobbering, write_all_atomically
from ..runs.judging import check as checking
from ..runs.judging.blind import blind
from ..runs.judging.blind import label_sample as draw_label_sample
from ..runs.judging.blind import markdown as sheet_markdown
from ..runs.rows import NotRunRow, not_run_note
from ..schema import DEFAULT_CATALOG
from . import options
from .options import Cases, MaxBytes, Shard, ShardCount

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
    set_max_bytes(max_bytes)

    suite = suite if suite is not None else checking.default_suite()
    refuse_clobbering(
        {"--output": output, "--junit": junit},
        {"responses file": responses, "catalog": cases, "check module": suite},
    )
    checking.refuse_torn_pair(cases, suite)
    criteria = checking.catalog_criteria(cases)
    loaded = checking.load_suite(suite)
    not_run: list[NotRunRow] = []
    rows = checking.read_responses(responses, not_run)
    ids = list(criteria)
    part = options.shard_part(shard, shard_count)
    if part is not None:  # this shard's cases and rows only: the catalog's other cases are other shards'
        ids, rows = [i for i in ids if part.holds(i)], [r for r in rows if part.holds(r["case_id"])]
    run = checking.run_checks(rows, loaded, ids, criteria, timeout=check_timeout)
    if output is not None:
        write_all_atomically({output: checking.results_text(run)})
    if junit is not None:
        # Imported here: XML (and the host name JUnit records) only when --junit asks for it
        # (tests/test_cli_startup.py).
        from ..runs.reporting.junit import junit as junit_xml

        write_all_atomically({junit: junit_xml(run.results)})
    if as_json:
        print(json.dumps(checking.summary_json(run), indent=2, ensure_ascii=False))
    else:
        print("\n".join(checking.summary_table(run)))
    if not_run:  # a curtailed run's (run --stop-when-decided): counted, never checked
        print(not_run_note(len(not_run), "not checked"), file=sys.stderr)
    return exitcodes.OK if run.clean else exitcodes.FAILED


def _no_catalog(catalog: Path) -> None:
    """No --cases and no default catalog: the sheet goes without prompts and criteria, and says so."""
    print(
        f"No catalog at {catalog}: the sheet carries no prompts or criteria (pass --cases).", file=sys.stderr
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
    set_max_bytes(max_bytes)

    if (label_sample is None) != (label_sheet is None) or (label_markdown and label_sheet is None):
        raise UsageError(
            "--label-sample K writes its cases to --label-sheet PATH: pass both (--label-markdown with them)"
        )
    catalog = cases if cases is not None else Path(DEFAULT_CATALOG)
    refuse_clobbering(
        {
            "--sheet": sheet,
            "--key": key,
            "--markdown": markdown,
            "--label-sheet": label_sheet,
            "--label-markdown": label_markdown,
        },
        {"responses file": responses, "catalog": catalog},
    )
    not_run: list[NotRunRow] = []
    known = None
    if cases is not None or catalog.exists():
        known = {case["id"]: case for case in load_valid(catalog)}
    else:
        _no_catalog(catalog)
    rows, keyed = blind(checking.read_responses(responses, not_run), seed, known)
    if not_run:
        print(not_run_note(len(not_run), "not on the sheet"), file=sys.stderr)
    files = {sheet: jsonl.text(rows), key: jsonl.text(keyed)}
    if markdown is not None:
        files[markdown] = sheet_markdown(rows)
    if label_sample is not None and label_sheet is not None:  # one without the other is refused above
        labelled, record = draw_label_sample(rows, label_sample, seed)
        files |= {key: jsonl.text([*keyed, record]), label_sheet: jsonl.text(labelled)}
        if label_markdown is not None:
            files[label_markdown] = sheet_markdown(labelled)
        print(
            f"Drew {label_sample} of {len({r['case_id'] for r in rows})} cases at random (seed {seed}) for a person "
            f"to label: {label_sheet} ({len(labelled)} rows). Filled, it corrects the judge: adhd-evals score "
            f"JUDGED --key {key} --labels {label_sheet}",
            file=sys.stderr,
        )
    write_all_atomically(files)
    print(
        f"Wrote {len(rows)} rows to {sheet} and their key to {key}. The filled sheet is the scores file: "
        f"adhd-evals score {sheet} --key {key}",
        file=sys.stderr,
    )
    return exitcodes.OK
