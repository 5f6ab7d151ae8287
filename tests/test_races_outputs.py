"""Two commands on one output at once: the writer's lock (files.only_writer) must be every writer's.

`run` and `judge` take an exclusive lock on their output's file and append to it for as long as
they run; a second run or judge on the same file is refused (tests/test_promises_runs.py). `merge`
writes its output whole and renames it into place; it used to do so without asking for that lock,
and so replaced a file a run was still writing, whose later rows went to the replaced file, which
no name reaches any more: rows paid for and lost without a word. It now asks first
(files.not_being_written).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.files import only_writer


def _shard(tmp_path: Path) -> Path:
    """One shard of one (stub runner, 2 cases, 1 trial): 2 rows."""
    cases = [
        {"id": f"c{n}", "category": "c", "prompt": f"Q {n}", "risk": "low", "criteria": ["x"]} for n in (1, 2)
    ]
    catalog = tmp_path / "cases.jsonl"
    catalog.write_text("".join(json.dumps(case) + "\n" for case in cases))
    shard = tmp_path / "shard-1.jsonl"
    argv = ["run", "--runner", "stub", "--condition", "baseline", "--cases", str(catalog)]
    assert main([*argv, "--trials", "1", "--shard", "1/1", "--output", str(shard)]) == exitcodes.OK
    return shard


def test_merge_into_a_file_a_run_is_writing_is_refused_and_the_file_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run holds out.jsonl's lock (taken here as `run` takes it, files.only_writer) and has
    written one row; `merge shard-1.jsonl --output out.jsonl` meanwhile. Expected, from the
    promise of one writer per output: merge refused as a second run is (exit 2, USAGE, "being
    written by another run"), out.jsonl as the run left it, its inode the one the run appends
    to. Merge used to exit 0 and rename a new file over it."""
    shard = _shard(tmp_path)
    output = tmp_path / "out.jsonl"
    written = '{"case_id": "c9", "trial": 1, "condition": "baseline", "runner": "stub"}\n'
    output.write_text(written)
    inode = output.stat().st_ino
    capsys.readouterr()
    with only_writer(output):
        code = main(["merge", str(shard), "--output", str(output)])
    assert code == exitcodes.USAGE
    assert "is being written by another run" in capsys.readouterr().err
    assert (output.read_text(), output.stat().st_ino) == (written, inode)
