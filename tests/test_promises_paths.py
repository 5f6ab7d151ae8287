"""Issue 35: every reader survives every path. A symlink loop (two links naming each other) gave
exit 70 (`RuntimeError: Symlink loop` from Path.resolve) in six readers; a 5 GB sparse file named
as `run --output` was read line by line past 15 s; a ledger beside the output that is a loop or a
FIFO was opened blind. Each is now refused by name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main

CASE = {"id": "c1", "category": "c", "prompt": "Q", "risk": "low", "criteria": ["x"]}
RESPONSE = {"case_id": "c1", "trial": 1, "condition": "baseline", "runner": "stub", "response": "r"}

# (the reader, its argv with LOOP where the looping path goes)
SIX = [
    ("merge", ["merge", "LOOP", "--output", "m.jsonl"]),
    ("verdicts --certificate", ["verdicts", "--out", "v.jsonl", "--certificate", "LOOP", "--cases", "cases.jsonl", "--checks", "resp.jsonl"]),
    ("report --certificate", ["report", "--cases", "cases.jsonl", "--responses", "resp.jsonl", "--out", "r.html", "--criteria", "resp.jsonl", "--certificate", "LOOP"]),
    ("run --cases", ["run", "--runner", "stub", "--condition", "baseline", "--cases", "LOOP", "--output", "o.jsonl"]),
    ("run --runner-config", ["run", "--runner", "x", "--runner-config", "LOOP", "--condition", "baseline", "--cases", "cases.jsonl", "--output", "o.jsonl"]),
    ("run --output", ["run", "--runner", "stub", "--condition", "baseline", "--cases", "cases.jsonl", "--output", "LOOP"]),
]  # fmt: skip


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "cases.jsonl").write_text(json.dumps(CASE) + "\n")
    (tmp_path / "resp.jsonl").write_text(json.dumps(RESPONSE) + "\n")
    (tmp_path / "loop-a").symlink_to("loop-b")
    (tmp_path / "loop-b").symlink_to("loop-a")
    monkeypatch.chdir(tmp_path)
    return tmp_path


RUN_ARGV = [
    "run",
    "--runner",
    "stub",
    "--condition",
    "baseline",
    "--cases",
    "cases.jsonl",
    "--output",
    "o.jsonl",
]


@pytest.mark.parametrize(("what", "argv"), [pytest.param(w, a, id=w) for w, a in SIX])
def test_a_symlink_loop_is_refused_not_a_crash(
    work: Path, what: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([("loop-a" if arg == "LOOP" else arg) for arg in argv])
    err = capsys.readouterr().err
    assert code not in (exitcodes.OK, exitcodes.INTERNAL), (what, err)
    assert "internal error" not in err and "loop-a" in err + " " + str(sorted(os.listdir(work)))


def test_the_outputs_loop_is_said(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*RUN_ARGV[:-1], "loop-a"]) == exitcodes.OUTPUT
    assert "loop-a: cannot be written (Too many levels of symbolic links)" in capsys.readouterr().err


def test_a_ledger_that_is_a_loop_is_refused_by_name(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "o.jsonl.ledger").symlink_to("o.jsonl.ledger")
    assert main(RUN_ARGV) == exitcodes.OUTPUT
    assert "o.jsonl.ledger: the ledger beside the output cannot be read" in capsys.readouterr().err


@pytest.mark.long
def test_a_ledger_that_is_a_fifo_is_not_waited_on(work: Path) -> None:
    """In a subprocess: before, the run waited on the FIFO forever."""
    os.mkfifo(work / "o.jsonl.ledger")
    argv = ["run", "--runner", "stub", "--condition", "baseline", "--cases", "cases.jsonl"]
    done = subprocess.run(
        [sys.executable, "-m", "adhd_evals", *argv, "--output", "o.jsonl"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=15,
    )
    assert done.returncode == exitcodes.OUTPUT and "not a regular file" in done.stderr, done.stderr


@pytest.mark.long
def test_a_huge_sparse_output_is_refused_unread(work: Path) -> None:
    """5 GB of holes as `run --output` (before: read line by line, past 15 s): refused at once,
    past the 256 MiB limit, naming the file; in a subprocess, so a regression times out."""
    with (work / "big.jsonl").open("wb") as stream:
        stream.truncate(5 * 1024**3)
    argv = [
        "run",
        "--runner",
        "stub",
        "--condition",
        "baseline",
        "--cases",
        "cases.jsonl",
        "--output",
        "big.jsonl",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "adhd_evals", *argv], cwd=work, capture_output=True, text=True, timeout=15
    )
    assert done.returncode == exitcodes.OUTPUT, done.stderr
    assert (
        "big.jsonl: cannot be resumed (it is 5,368,709,120 bytes, past the limit of 268,435,456"
        in done.stderr
    )


@pytest.mark.parametrize("name", ["o.jsonl", "o.jsonl.ledger"])
def test_a_line_nested_past_the_readers_depth_is_refused_not_a_crash(
    work: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the fuzz: 5,000 nested lists in the output (or its ledger) raised RecursionError
    (exit 70) on resume. The output's line is refused by line; a ledger line is a torn one."""
    (work / "o.jsonl").write_text("")
    (work / name).write_text("[" * 5000 + "]" * 5000 + "\n")
    code = main(RUN_ARGV)
    if name == "o.jsonl":
        assert code == exitcodes.INPUT and "o.jsonl:1: not a JSON line" in capsys.readouterr().err
    else:
        assert code == exitcodes.OK


@pytest.mark.parametrize(
    ("line", "byte"),
    [
        # a row whose response holds a lone surrogate's UTF-8 bytes (ED A0 80): `{"response": "` is
        # 14 bytes, so the first bad byte is the 15th
        (b'{"response": "\xed\xa0\x80"}\n', 15),
        # the same after a BOM, which a resumed output may start with: its 3 bytes count (18th)
        (b'\xef\xbb\xbf{"response": "\xed\xa0\x80"}\n', 18),
        (b"\xff\n", 1),  # not UTF-8 at all: the first byte
    ],
    ids=["lone-surrogate", "after-a-bom", "invalid-byte"],
)
def test_a_resumed_output_that_is_not_utf8_is_refused_by_line(
    work: Path, line: bytes, byte: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found beside the merge's own fix: json.loads(bytes) reads a lone surrogate's bytes
    (surrogatepass), so such a row was counted as done and the run went on, leaving a file score
    then refuses. It is refused before any call (exit 4, the file unchanged)."""
    (work / "o.jsonl").write_bytes(line)
    code = main(RUN_ARGV)
    err = capsys.readouterr().err
    assert code == exitcodes.INPUT, err
    assert f"o.jsonl:1: invalid UTF-8 at byte {byte} of the line; fix or remove it before resuming" in err
    assert (work / "o.jsonl").read_bytes() == line


def test_a_resumed_output_that_starts_with_a_bom_is_still_read(work: Path) -> None:
    """A BOM before the first row is skipped, as json.loads(bytes) skipped it before: the run resumes
    (exit 0) and appends what is missing after the row it read."""
    main(RUN_ARGV)
    rows = (work / "o.jsonl").read_bytes()
    (work / "o.jsonl").write_bytes(b"\xef\xbb\xbf" + rows)
    assert main(RUN_ARGV) == exitcodes.OK
    assert (work / "o.jsonl").read_bytes() == b"\xef\xbb\xbf" + rows  # every row there: nothing added
