"""A judge's shards merged (issue 31): the merged file keeps one record of its judge, with the
shards' controls added up, so it can still be certified; shards of two judges are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.files import only_writer
from adhd_evals.runs.judging.admission import sidecar_path
from test_merge_shards import _merge, shards

__all__ = ["shards"]  # the fixture, used by name


def _judged_parts(shards: list[Path], tmp_path: Path, *extra: str) -> tuple[list[Path], str]:
    assert _merge(*shards) == exitcodes.OK
    merged, cases = tmp_path / "merged.jsonl", str(tmp_path / "cases.jsonl")
    sheet, key = str(tmp_path / "sheet.jsonl"), str(tmp_path / "key.jsonl")
    assert main(["blind", str(merged), "--sheet", sheet, "--key", key, "--cases", cases]) == exitcodes.OK
    parts = [tmp_path / f"judged-{k}.jsonl" for k in (1, 2)]
    for k, part in enumerate(parts, start=1):
        argv = [
            "judge",
            sheet,
            "--runner",
            "stub",
            "--cases",
            cases,
            "--output",
            str(part),
            "--shard",
            f"{k}/2",
        ]
        assert main([*argv, *extra]) == exitcodes.OK
    return parts, key


@pytest.mark.long
def test_a_judges_shards_merge_with_its_record(shards: list[Path], tmp_path: Path) -> None:
    """Two stub shards, no controls (a shard's plan knows its sheet rows only): the merged file
    keeps the judge's fingerprint, and records no controls."""
    parts, _ = _judged_parts(shards, tmp_path)
    out = tmp_path / "judged.jsonl"
    assert main(["merge", *map(str, parts), "--output", str(out)]) == exitcodes.OK
    record = json.loads(sidecar_path(out).read_text())
    assert record["fingerprint"] == json.loads(sidecar_path(parts[0]).read_text())["fingerprint"]
    assert record["controls"] is None


def test_controls_are_not_split_into_shards(
    shards: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = str(tmp_path / "cases.jsonl")
    argv = [
        "judge",
        "sheet.jsonl",
        "--runner",
        "stub",
        "--cases",
        cases,
        "--output",
        str(tmp_path / "j.jsonl"),
    ]
    assert main([*argv, "--shard", "1/2", "--controls"]) == exitcodes.USAGE
    assert "--controls cannot be split into shards" in capsys.readouterr().err


def test_shard_controls_add_up(tmp_path: Path) -> None:
    """Records of two shards judged with controls (written as judge writes them): 15 rows and 1
    leak, 15 rows and none: 30 rows, 1 passed, leak rate 1/30."""
    from adhd_evals.runs.judging.admission import merged_record

    fingerprint = {"runner": "j", "command": ["j"], "model": None, "template": "t"}
    leak = {"case_id": "c", "trial": 1, "control": "empty"}
    parts = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    for part, passed in zip(parts, (1, 0), strict=True):
        controls = {"rows": 15, "void": 0, "passed": passed, "kinds": {"empty": 3}, "leaks": [leak] * passed}
        record = {
            "judged": "adhd-evals judged file",
            "version": 1,
            "fingerprint": fingerprint,
            "controls": controls,
        }
        sidecar_path(part).write_text(json.dumps(record))
    [(path, text)] = merged_record(parts, tmp_path / "m.jsonl").items()
    found = json.loads(text)["controls"]
    assert path == sidecar_path(tmp_path / "m.jsonl")
    assert (found["rows"], found["passed"], found["leak_rate"], found["kinds"]) == (
        30,
        1,
        1 / 30,
        {"empty": 6},
    )
    assert found["leaks"] == [leak]


@pytest.mark.long
def test_a_busy_output_is_refused_before_the_judges_records_are_read(
    shards: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two faults at once: a shard without its judge's record, and an output a run holds (its
    lock taken as `run` takes it). The busy output is told first, as it always was (exit 2,
    USAGE), never the records' laundering (42), and the file is left as the run wrote it."""
    parts, _ = _judged_parts(shards, tmp_path)
    sidecar_path(parts[1]).unlink()
    out = tmp_path / "judged.jsonl"
    out.write_text("a run's row\n")
    capsys.readouterr()
    with only_writer(out):
        code = main(["merge", *map(str, parts), "--output", str(out)])
    assert code == exitcodes.USAGE
    assert "is being written by another run" in capsys.readouterr().err
    assert out.read_text() == "a run's row\n"


@pytest.mark.long
def test_a_shard_without_its_judges_record_is_refused(
    shards: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parts, _ = _judged_parts(shards, tmp_path)
    sidecar_path(parts[1]).unlink()
    out = tmp_path / "judged.jsonl"
    assert main(["merge", *map(str, parts), "--output", str(out)]) == exitcodes.JUDGE_LAUNDERED
    assert "some have no judge's record beside them" in capsys.readouterr().err and not out.exists()


@pytest.mark.long
def test_shards_of_two_judges_are_refused(
    shards: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parts, _ = _judged_parts(shards, tmp_path)
    record = json.loads(sidecar_path(parts[1]).read_text())
    record["fingerprint"]["model"] = "another"
    sidecar_path(parts[1]).write_text(json.dumps(record))
    assert (
        main(["merge", *map(str, parts), "--output", str(tmp_path / "j.jsonl")]) == exitcodes.JUDGE_LAUNDERED
    )
    assert "their records name different judges" in capsys.readouterr().err


def test_responses_merge_with_no_judges_record(shards: list[Path]) -> None:
    assert _merge(*shards) == exitcodes.OK
    assert not sidecar_path(shards[0].parent / "merged.jsonl").exists()
