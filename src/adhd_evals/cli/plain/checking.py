"""The plain bodies of `check` and `blind` (their typer signatures: cli/checking.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ... import exitcodes, jsonl
from ...catalog import load_valid
from ...errors import UsageError
from ...files import set_max_bytes
from ...output import refuse_clobbering, write_all_atomically
from ...runs.rows import NotRunRow, not_run_note, read_responses
from ...schema import DEFAULT_CATALOG
from . import shard_part


def check(
    *,
    responses: Path,
    cases: Path,
    suite: Path | None,
    output: Path | None,
    junit: Path | None,
    as_json: bool,
    max_bytes: int,
    check_timeout: float,
    shard: str | None,
    shard_count: int | None,
) -> int:
    """Run every response through its case's checks; fails while anything fails or is unwritten."""
    from ...runs.judging import check as checking  # the checks' runner: check's alone, never blind's

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
    rows = read_responses(responses, not_run)
    ids = list(criteria)
    part = shard_part(shard, shard_count)
    if part is not None:  # this shard's cases and rows only: the catalog's other cases are other shards'
        ids, rows = [i for i in ids if part.holds(i)], [r for r in rows if part.holds(r["case_id"])]
    run = checking.run_checks(rows, loaded, ids, criteria, timeout=check_timeout)
    if output is not None:
        write_all_atomically({output: checking.results_text(run)})
    if junit is not None:
        # Imported here: XML (and the host name JUnit records) only when --junit asks for it
        # (tests/test_cli_startup.py).
        from ...runs.reporting.junit import junit as junit_xml

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


def blind(
    *,
    responses: Path,
    sheet: Path,
    key: Path,
    seed: int,
    cases: Path | None,
    markdown: Path | None,
    max_bytes: int,
    label_sample: int | None,
    label_sheet: Path | None,
    label_markdown: Path | None,
) -> int:
    """Write a judging sheet with conditions hidden behind labels A/B/C, plus a key file."""
    # Imported here: the sheet's shuffling and Markdown are blind's alone, never check's
    from ...runs.judging.blind import blind as blinded
    from ...runs.judging.blind import label_sample as draw_label_sample
    from ...runs.judging.blind import markdown as sheet_markdown

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
    rows, keyed = blinded(read_responses(responses, not_run), seed, known)
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
