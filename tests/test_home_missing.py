"""With no home folder to find (XDG_CACHE_HOME unset, no HOME and a user with no passwd entry, as a
container's arbitrary user: Path.home raises RuntimeError), every command that keeps something in
the user's cache still works without it, or refuses by name what cannot be had. Before, `run`,
`judge` and `check` ended in an internal error (exit 70): found by running `run` as uid 12345."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main

CASE = {"id": "c1", "category": "x", "prompt": "p", "risk": "low", "criteria": ["Answers it."]}


@pytest.fixture
def homeless(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A one-case catalog in the working folder; no home for Python to find."""

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("ADHD_EVALS_CACHE", raising=False)
    monkeypatch.setattr(Path, "home", no_home)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cases.jsonl").write_text(json.dumps(CASE) + "\n", encoding="utf-8")
    return tmp_path


RUN = ["run", "--runner", "stub", "--condition", "baseline", "--cases", "cases.jsonl", "--output", "o.jsonl"]


def test_a_run_works_without_records_twice(homeless: Path) -> None:
    """The rules run each time (no record to keep): a fresh run writes its row, a resumed one
    (a shard reads no index either) adds nothing."""
    assert main([*RUN, "--trials", "1"]) == exitcodes.OK
    written = (homeless / "o.jsonl").read_bytes()
    assert [json.loads(line)["case_id"] for line in written.splitlines()] == ["c1"]
    assert main([*RUN, "--trials", "1"]) == exitcodes.OK
    assert (homeless / "o.jsonl").read_bytes() == written
    assert main([*RUN, "--trials", "1", "--output", "s.jsonl", "--shard", "1/1"]) == exitcodes.OK


def test_the_response_cache_is_refused_by_name_not_a_crash(
    homeless: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--cache` with no folder asks for the default one, which has no home: a usage error (exit 2)
    saying what to set, no output written; `--cache DIR` works."""
    assert main([*RUN, "--cache"]) == exitcodes.USAGE
    err = capsys.readouterr().err
    assert "the response cache has no folder: HOME is not set" in err
    assert "set XDG_CACHE_HOME or give --cache a folder" in err
    assert not (homeless / "o.jsonl").exists()
    assert main([*RUN, "--cache", str(homeless / "answers")]) == exitcodes.OK


def test_a_judge_works_without_records(homeless: Path) -> None:
    """judge's catalog read by the rules each time: the stub judges the one sheet row."""
    sheet = {"case_id": "c1", "trial": 1, "condition": "baseline", "runner": "r", "response": "An answer."}
    (homeless / "sheet.jsonl").write_text(json.dumps(sheet) + "\n", encoding="utf-8")
    argv = ["judge", "sheet.jsonl", "--runner", "stub", "--cases", "cases.jsonl", "--output", "j.jsonl"]
    assert main(argv) == exitcodes.OK
    assert len((homeless / "j.jsonl").read_text(encoding="utf-8").splitlines()) == 1


def test_check_compiles_its_suite_without_a_cache(homeless: Path) -> None:
    """The compiled-module cache has no folder: the suite is compiled and run anyway; the one
    check passes on an answer that says it."""
    (homeless / "checks.py").write_text(
        "CHECKS = {}\n\n\n"
        "def answers(response):\n"
        '    return "answer" in response\n\n\n'
        'CHECKS["c1"] = [("Answers it.", answers)]\n',
        encoding="utf-8",
    )
    row = {"case_id": "c1", "trial": 1, "condition": "baseline", "runner": "r", "response": "An answer."}
    (homeless / "answers.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert main(["check", "answers.jsonl", "--cases", "cases.jsonl", "--suite", "checks.py"]) == exitcodes.OK
