"""Issue 38 (4 shards + merge): `merge` looks for a judge's record without importing the judge.

A judge's shard has its record (`<output>.judge.json`) beside it; only then does merge need the
judge's admission module (about 6-14 ms of imports) to check the records agree and write the
merged one. A run's shards have none, so merging them leaves every judging module out. The
refusals of a judge's shards (one without its record, two judges) are test_admission_merge.py's.
And merge checks a row's seal and takes it off in one step (`shard.opener`), the catalog's part
of the hash bound once per shard.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.runs.calling import shard as sharding
from adhd_evals.runs.calling.merge import judged
from helpers import unmeasured_environment
from shard_records import sealed, shard

PROBE = (
    "import json, sys\n"
    "from adhd_evals.entry import main\n"
    "code = main(sys.argv[2:])\n"
    "open(sys.argv[1], 'w', encoding='utf-8').write(json.dumps({'code': code, 'modules': sorted(sys.modules)}))\n"
)
ROW = {"case_id": "case-0", "trial": 1, "condition": "baseline", "runner": "r", "response": "a"}


def test_a_judges_record_is_seen_beside_any_shard(tmp_path: Path) -> None:
    """The record is the output's name plus `.judge.json` (docs/scale.md): beside the second of
    two shards it is seen; a shard's own record (`.shard.json`) is not a judge's."""
    one, two = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    (tmp_path / "a.jsonl.shard.json").write_text("{}")
    assert not judged([one, two])
    assert not judged([])
    (tmp_path / "b.jsonl.judge.json").write_text("{}")
    assert judged([one, two])
    assert not judged([one])


def test_merging_a_runs_shards_imports_no_judging_module(tmp_path: Path) -> None:
    """A fresh `merge` of a run's one shard (shard 1/1 of case-0, one row) ends OK, writes the
    row as the shard holds it without its seal, writes no judge's record, and has imported nothing
    of runs.judging (a process without coverage's hooks: coverage imports modules of its own)."""
    line = json.dumps(ROW)
    part = shard(tmp_path / "s.jsonl", [line], ["case-0"])
    found, merged = tmp_path / "modules.json", tmp_path / "merged.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(found), "merge", str(part), "--output", str(merged)],
        capture_output=True,
        text=True,
        timeout=120,
        env=unmeasured_environment(),
    )
    assert done.returncode == 0, done.stderr
    ended = json.loads(found.read_text(encoding="utf-8"))
    assert ended["code"] == exitcodes.OK, done.stderr
    assert merged.read_text() == line + "\n"
    assert not (tmp_path / "merged.jsonl.judge.json").exists()
    assert [m for m in ended["modules"] if m.startswith("adhd_evals.runs.judging")] == []


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        pytest.param('{"a": 1}', b'{"a": 1}\n', id="a row"),
        pytest.param('  {"a": 1}', b'  {"a": 1}\n', id="leading blanks kept"),
        pytest.param('{"a": 1}\r', b'{"a": 1}\n', id="a CR before the newline dropped"),
    ],
)
def test_an_opened_line_is_the_row_as_an_unsharded_run_writes_it(written: str, expected: bytes) -> None:
    """`opener` gives back the line without its seal (docs/scale.md: the merged file holds the
    shards' lines with their seals taken off, otherwise unchanged), ending in one newline: the
    seal is shard_records' documented rule for catalog "x", so the expected bytes are the line
    as written before it was sealed."""
    raw = sealed(written.rstrip("\r")) + written[len(written.rstrip("\r")) :] + "\n"
    assert sharding.opener("x")(raw.encode()) == expected


def test_a_line_sealed_for_another_catalog_does_not_open() -> None:
    """The seal of catalog "x" does not hold for catalog "y", nor once the row is edited."""
    raw = (sealed('{"a": 1}') + "\n").encode()
    assert sharding.opener("x")(raw) is not None
    assert sharding.opener("y")(raw) is None
    assert sharding.opener("x")(raw.replace(b"1", b"2", 1)) is None
