"""`report` and `verdicts` read their catalog as `run` and `judge` do (catalog.load_valid_once):
the rules run once per catalog content, a record in $XDG_CACHE_HOME/adhd-evals/validated says so,
and a later call only parses the bytes, without importing the rules' modules (about 7 ms of each
start-up). The cases and the refusals are the rules' either way: an edited catalog has no record
and meets the rules again; where no home holds the records, the rules run every time."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main

CASE: dict[str, object] = {
    "id": "c1",
    "category": "x",
    "prompt": "p",
    "risk": "low",
    "criteria": ["Answers it."],
}
KEYS = [{"case_id": "c1", "trial": 1, "condition": c} for c in ("baseline", "candidate")]


def _jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A one-case catalog, a response per condition and their check results; a cache of its own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    _jsonl(tmp_path / "cases.jsonl", [CASE])
    _jsonl(tmp_path / "responses.jsonl", [{**k, "runner": "r", "response": "An answer."} for k in KEYS])
    result = {"runner": "r", "criterion": "Answers it.", "check": "answers_it", "status": "pass"}
    _jsonl(tmp_path / "checks.jsonl", [{**k, **result} for k in KEYS])
    return tmp_path


def _report(folder: Path) -> list[str]:
    cases, responses = str(folder / "cases.jsonl"), str(folder / "responses.jsonl")
    out = str(folder / "report.md")
    return ["report", "--cases", cases, "--responses", responses, "--out", out, "--format", "markdown"]


def _verdicts(folder: Path) -> list[str]:
    cases, checks = str(folder / "cases.jsonl"), str(folder / "checks.jsonl")
    return ["verdicts", "--cases", cases, "--checks", checks, "--out", str(folder / "verdicts.jsonl")]


COMMANDS = {"report": (_report, "report.md"), "verdicts": (_verdicts, "verdicts.jsonl")}


def _records(folder: Path) -> list[str]:
    found = folder / "cache" / "adhd-evals" / "validated"
    return sorted(p.suffix for p in found.iterdir()) if found.exists() else []


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_catalog_is_checked_once_and_read_the_same_after(folder: Path, command: str) -> None:
    """The first call runs the rules and leaves the record (and the index a shard reads); the
    second reads the same cases through it and writes the same bytes."""
    argv, written = COMMANDS[command]
    assert main(argv(folder)) == exitcodes.OK
    first = (folder / written).read_bytes()
    assert _records(folder) == [".index", ".valid"]
    (folder / written).unlink()
    assert main(argv(folder)) == exitcodes.OK
    assert (folder / written).read_bytes() == first


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_edited_catalog_meets_the_rules_again(
    folder: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """After a record, a risk the rules refuse (E107) is refused by line and column, and nothing
    is written. The column is the value's first character: `{"id": "c1", ` is 13 characters,
    `"category": "x", ` 17 more, `"prompt": "p", ` 15, `"risk": ` 8, so the value starts at 54."""
    argv, written = COMMANDS[command]
    assert main(argv(folder)) == exitcodes.OK
    (folder / written).unlink()
    _jsonl(folder / "cases.jsonl", [{**CASE, "risk": "extreme"}])
    capsys.readouterr()
    assert main(argv(folder)) == exitcodes.INPUT
    said = f'{folder / "cases.jsonl"}:1:54: E107 risk must be low, medium or high, not "extreme"'
    assert said in capsys.readouterr().err
    assert not (folder / written).exists()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_with_no_home_for_the_records_the_rules_run_each_time(
    folder: Path, command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No XDG_CACHE_HOME and a home Python cannot determine (no HOME, a user with no passwd
    entry: Path.home raises RuntimeError): the call still works, by the rules, and keeps no
    record; a catalog they refuse is still refused."""
    argv, written = COMMANDS[command]

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setattr(Path, "home", no_home)
    assert main(argv(folder)) == exitcodes.OK
    assert (folder / written).exists() and _records(folder) == []
    os.unlink(folder / written)
    _jsonl(folder / "cases.jsonl", [{**CASE, "risk": "extreme"}])
    capsys.readouterr()
    assert main(argv(folder)) == exitcodes.INPUT
    assert "E107 risk must be low, medium or high" in capsys.readouterr().err
