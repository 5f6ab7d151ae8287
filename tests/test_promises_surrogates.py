"""Issue 35: no paid row lost to text UTF-8 cannot carry. A model CLI printing a lone surrogate
(`{"result": "ok \\ud800 bad"}`: valid JSON, no UTF-8 bytes) gets its row kept, the code point
escaped as the six characters `\\ud800` and the row saying so (`"escaped": ["response"]`), and its
reservation settled; response files holding one are read by blind (both sheet formats), report
and check alike, never a traceback (exit 70)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes, jsonl
from adhd_evals.entry import main

CASE = {"id": "c1", "category": "c", "prompt": "Q", "risk": "low", "criteria": ["x"]}
SURROGATE_CLI = """
import sys
sys.stdout.write('{"result": "ok \\\\ud800 bad", "usage": {"note": "\\\\udfff"}, "total_cost_usd": 0.25}')
"""


def _ledger(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_cli_printing_a_lone_surrogate_keeps_its_row_and_settles(tmp_path: Path) -> None:
    """Before: exit 70 at the store, the paid row lost, its reservation left open in the ledger.
    By hand: the row holds `ok \\ud800 bad` (a backslash and five letters) and says which fields
    were escaped; the reservation of the call is settled (charged 0: its cost is on its row)."""
    (tmp_path / "cases.jsonl").write_text(json.dumps(CASE) + "\n")
    (tmp_path / "cli.py").write_text(SURROGATE_CLI)
    spec = {"command": [sys.executable, str(tmp_path / "cli.py")], "response_format": "claude-json"}
    (tmp_path / "runners.json").write_text(json.dumps({"odd": spec}))
    argv = ["run", "--runner", "odd", "--runner-config", str(tmp_path / "runners.json"), "--condition"]
    argv += ["baseline", "--cases", str(tmp_path / "cases.jsonl"), "--output", str(tmp_path / "out.jsonl")]
    assert main([*argv, "--trials", "1", "--assume-call-usd", "0.5"]) == exitcodes.OK
    (row,) = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert row["response"] == "ok \\ud800 bad" and row["usage"] == {"note": "\\udfff"}
    assert row["escaped"] == ["response", "usage"] and row["cost_usd"] == 0.25
    ledger = _ledger(tmp_path / "out.jsonl.ledger")
    assert [e["id"] for e in ledger if "reserve" in e] == [e["id"] for e in ledger if "charged" in e]
    assert main([*argv, "--trials", "1", "--assume-call-usd", "0.5"]) == exitcodes.OK  # resumes


def test_the_escape_is_the_code_points_hex() -> None:
    assert jsonl.escape_surrogates("a\ud800b\udfffc") == ("a\\ud800b\\udfffc", True)
    assert jsonl.escape_surrogates("plain é") == ("plain é", False)


@pytest.fixture
def responses(tmp_path: Path) -> Path:
    (tmp_path / "cases.jsonl").write_text(json.dumps(CASE) + "\n")
    path = tmp_path / "resp.jsonl"
    rows = [
        '{"case_id": "c1", "trial": 1, "condition": "baseline", "runner": "r", "response": "ok \\ud800 bad"}',
        '{"case_id": "c1", "trial": 1, "condition": "candidate", "runner": "r", "response": "fine"}',
    ]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_blind_reads_a_response_file_with_a_lone_surrogate(responses: Path) -> None:
    """Both sheet formats: JSONL (the escape's backslash is JSON-escaped again) and Markdown."""
    work = responses.parent
    argv = ["blind", str(responses), "--sheet", str(work / "sheet.jsonl"), "--key", str(work / "key.jsonl")]
    argv += ["--markdown", str(work / "sheet.md"), "--cases", str(work / "cases.jsonl")]
    assert main(argv) == exitcodes.OK
    rows = [json.loads(line) for line in (work / "sheet.jsonl").read_text(encoding="utf-8").splitlines()]
    assert "ok \\ud800 bad" in [row["response"] for row in rows]
    assert "ud800 bad" in (work / "sheet.md").read_text(encoding="utf-8")


def test_report_reads_a_response_file_with_a_lone_surrogate(responses: Path) -> None:
    work = responses.parent
    argv = ["report", "--cases", str(work / "cases.jsonl"), "--responses", str(responses)]
    assert main([*argv, "--out", str(work / "report.html")]) == exitcodes.OK
    assert "ok \\ud800 bad" in (work / "report.html").read_text(encoding="utf-8")


def test_a_row_that_cannot_be_written_settles_its_reservation_with_its_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The disk fills as the paid call's row is written: the run ends, and the ledger settles the
    call's reservation charging the $0.25 it reported (no row carries it), not leaving it open."""
    from adhd_evals.runs.calling.store import Store

    (tmp_path / "cases.jsonl").write_text(json.dumps(CASE) + "\n")
    (tmp_path / "cli.py").write_text(
        'import sys; sys.stdout.write(\'{"result": "ok", "total_cost_usd": 0.25}\')'
    )
    spec = {"command": [sys.executable, str(tmp_path / "cli.py")], "response_format": "claude-json"}
    (tmp_path / "runners.json").write_text(json.dumps({"odd": spec}))

    def full(self: Store, data: bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Store, "_write", full)
    argv = ["run", "--runner", "odd", "--runner-config", str(tmp_path / "runners.json"), "--condition"]
    argv += ["baseline", "--cases", str(tmp_path / "cases.jsonl"), "--output", str(tmp_path / "out.jsonl")]
    assert main([*argv, "--trials", "1", "--assume-call-usd", "0.5"]) == exitcodes.OUTPUT
    assert "the row of case c1 trial 1 is lost, its cost kept in the ledger" in capsys.readouterr().err
    ledger = _ledger(tmp_path / "out.jsonl.ledger")
    assert [e["charged"] for e in ledger if "charged" in e] == [0.25]


def test_a_resumed_output_may_start_with_a_byte_order_mark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reference's json.loads of the first line (U+FEFF first) raises; adhd-evals skips the
    mark, as every row reader here does: the row of c1 counts as done and is not run again."""
    (tmp_path / "cases.jsonl").write_text(json.dumps(CASE) + "\n")
    row = {"case_id": "c1", "trial": 1, "condition": "baseline", "runner": "stub", "response": "r"}
    (tmp_path / "out.jsonl").write_bytes(b"\xef\xbb\xbf" + json.dumps(row).encode() + b"\n")
    argv = ["run", "--runner", "stub", "--condition", "baseline", "--cases", str(tmp_path / "cases.jsonl")]
    assert main([*argv, "--trials", "1", "--output", str(tmp_path / "out.jsonl")]) == exitcodes.OK
    assert "Ran 0 cases (0 calls), skipped 1 already in" in capsys.readouterr().err


def test_every_string_in_a_value_is_escaped() -> None:
    """Lists and objects, keys included; numbers and null as they are."""
    value = {"a\ud800": ["x", "\udc00", 1, None], "b": {"c": "\udfff"}}
    assert jsonl.escape_value(value) == ({"a\\ud800": ["x", "\\udc00", 1, None], "b": {"c": "\\udfff"}}, True)
    assert jsonl.escape_value([1, "plain"]) == ([1, "plain"], False)
    assert jsonl.escaped_row({"k\ud800": 1, "n": 2}) == {"k\\ud800": 1, "n": 2, "escaped": ["k\\ud800"]}


def test_a_ledger_that_cannot_be_written_ends_the_run_before_its_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The disk is full when the first reservation is written: the run ends with an output error
    (exit 3) that names the ledger, not an internal error (exit 70), and the paid CLI never ran
    (it would leave a file behind)."""
    (tmp_path / "cases.jsonl").write_text(json.dumps(CASE) + "\n")
    ran = tmp_path / "ran"
    (tmp_path / "cli.py").write_text(
        f"import pathlib, sys; pathlib.Path({str(ran)!r}).touch()\n"
        'sys.stdout.write(\'{"result": "ok", "total_cost_usd": 0.25}\')'
    )
    spec = {"command": [sys.executable, str(tmp_path / "cli.py")], "response_format": "claude-json"}
    (tmp_path / "runners.json").write_text(json.dumps({"odd": spec}))
    write = os.write

    def full(fd: int, data: bytes) -> int:  # only the ledger's lines (each starts a new line, then its id)
        if bytes(data).startswith(b'\n{"id"'):
            raise OSError(28, "No space left on device")
        return write(fd, data)

    monkeypatch.setattr(os, "write", full)
    argv = ["run", "--runner", "odd", "--runner-config", str(tmp_path / "runners.json"), "--condition"]
    argv += ["baseline", "--cases", str(tmp_path / "cases.jsonl"), "--output", str(tmp_path / "out.jsonl")]
    assert main([*argv, "--trials", "1", "--assume-call-usd", "0.5"]) == exitcodes.OUTPUT
    err = capsys.readouterr().err
    assert "out.jsonl.ledger: the ledger beside the output cannot be written (No space left on device)" in err
    assert not ran.exists()
