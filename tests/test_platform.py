"""run and judge need POSIX (process groups, flock): elsewhere they refuse before any work."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from adhd_evals import entry
from adhd_evals.entry import main

# what entry reads of os under Windows (os itself stays real: pathlib and pytest need it)
WINDOWS = SimpleNamespace(name="nt")


@pytest.mark.parametrize("command", ["run", "judge"])
def test_run_and_judge_refuse_without_posix(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """os.name 'nt' (Windows): a usage error (exit 2) naming what is missing; no output file made."""
    monkeypatch.setattr(entry, "os", WINDOWS)
    output = tmp_path / "out.jsonl"
    args = ["--runner", "stub", "--output", str(output)]
    argv = [command, *(["sheet.jsonl"] if command == "judge" else ["--condition", "baseline"]), *args]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"'{command}' needs a POSIX system" in err
    assert "process group" in err and "flock" in err
    assert not output.exists()


def test_other_commands_are_not_refused_without_posix(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the commands that start model calls need POSIX: --version still answers."""
    monkeypatch.setattr(entry, "os", WINDOWS)
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("adhd-evals ")
