"""The one error boundary: a user's mistake is a message and its code; a bug is exit 70
with a one-line request for a report and the traceback saved to a file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.errors import UsageError
from adhd_evals.importing import importer


def test_a_bug_is_an_internal_error_with_a_saved_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(importer, "read_source", broken)
    source = tmp_path / "evals.json"
    source.write_text('{"evals": []}')
    code = main(["import", "--format", "evals-json", str(source)])
    err = capsys.readouterr().err
    assert code == exitcodes.INTERNAL == 70
    assert "internal error (ZeroDivisionError)" in err and "please report it" in err
    assert "Traceback" not in err
    saved = Path(re.search(r"The traceback is in (\S+)", err).group(1))  # type: ignore[union-attr]
    assert "ZeroDivisionError: boom" in saved.read_text()
    saved.unlink()


def test_a_user_error_is_its_message_and_code(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise UsageError("--risk must be one of low, medium, high, not 'x'")

    monkeypatch.setattr(importer, "read_source", refuse)
    assert main(["import", "--format", "evals-json", "x.json"]) == exitcodes.USAGE
    assert capsys.readouterr().err == "adhd-evals: --risk must be one of low, medium, high, not 'x'\n"


def test_ctrl_c_is_130(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(importer, "read_source", interrupted)
    assert main(["import", "--format", "evals-json", "x.json"]) == 130
    assert "Traceback" not in capsys.readouterr().err


def test_a_usage_error_prints_its_hint_on_its_own_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--no-such-option"]) == exitcodes.USAGE
    assert capsys.readouterr().err.splitlines() == [
        "adhd-evals: No such option: --no-such-option",
        "Try 'adhd-evals --help'.",
    ]


@pytest.mark.long
def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`adhd-evals lint cases.jsonl | head -1`: the reader leaves after one line. The command
    ends with 141 (128 + SIGPIPE, what a tool killed by the signal reports) and says nothing:
    no "internal error", no traceback file (it exited 70 with one before)."""
    import subprocess
    import sys

    bad = '{"id": "a", "category": "c", "prompt": "p", "risk": "bad", "criteria": ["x"]}\n'
    catalog = tmp_path / "cases.jsonl"
    catalog.write_text(bad * 20_000)  # far more than a pipe's buffer
    command = [sys.executable, "-m", "adhd_evals", "lint", str(catalog)]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout is not None and child.stderr is not None
    first = child.stdout.readline()
    child.stdout.close()
    err = child.stderr.read()
    assert child.wait(timeout=60) == exitcodes.BROKEN_PIPE == 141
    assert b"E107" in first and err == b""


def test_a_usage_error_with_choices_is_one_readable_line(capsys: pytest.CaptureFixture[str]) -> None:
    """click lays a missing choice out over lines ("Choose from:\\n\\tevals-json,\\n\\tyaml"), which
    the one-line printer showed as literal `\\n\\t`: the words are joined by spaces instead."""
    assert main(["survey", "x.json"]) == exitcodes.USAGE
    first = capsys.readouterr().err.splitlines()[0]
    assert (
        first
        == "adhd-evals: Missing option '--format' / '-f'. Choose from: evals-json, yaml, evalflow, promptfoo, plugin-eval, trigger-list"
    )
