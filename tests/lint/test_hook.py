"""The pre-commit hook, in-process (as check-jsonschema tests its hooks): the manifest's
`files` pattern against a table of paths, and its `entry` run on files as pre-commit would."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
import yaml

from adhd_evals.entry import main
from helpers import ROOT

[HOOK] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
GOOD = '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["Answers 102."]}\n'


@pytest.mark.parametrize(
    ("path", "matched"),
    [
        ("evals/cases.jsonl", True),
        ("pkg/evals/cases.jsonl", True),
        ("evals/more/cases.jsonl", False),  # only the catalog folder itself
        ("skills/notes/evals/evals.json", True),
        ("evals/evals.json", True),
        ("evals/dataset.json", True),
        ("evals/checks.py", True),
        ("src/checks.py", False),
        ("tests/agent_tasks/captcha.yaml", True),
        ("tasks/t.yml", True),
        ("cases/x.yaml", True),
        ("config/app.yaml", False),
        ("evals/notes.json", False),
        ("README.md", False),
        ("myevals/cases.jsonl", False),
    ],
)
def test_files_pattern(path: str, matched: bool) -> None:
    assert bool(re.search(HOOK["files"], path)) is matched


def _entry(files: list[str], cwd: Path) -> int:
    argv = shlex.split(HOOK["entry"])
    assert argv[:2] == ["adhd-evals", "lint"]
    before = os.getcwd()
    os.chdir(cwd)
    try:
        return main([*argv[1:], *HOOK.get("args", []), *files])
    finally:
        os.chdir(before)


def test_entry_passes_on_good_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "cases.jsonl").write_text(GOOD)
    assert _entry(["evals/cases.jsonl"], tmp_path) == 0
    assert capsys.readouterr().out.endswith("Checked 1 file and 1 case: 0 errors, 0 warnings.\n")


def test_entry_fails_and_says_where(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "cases.jsonl").write_text(GOOD + GOOD)
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "t.yaml").write_text("name: n\ntask: t\nmax_steps: ten\n")
    assert _entry(["evals/cases.jsonl", "tasks/t.yaml"], tmp_path) == 1
    out = capsys.readouterr().out
    # line 2 repeats line 1's id; its value starts at column 8 ({"id": "a" ...)
    assert 'evals/cases.jsonl:2:8: E106 duplicate id "a"' in out
    assert "t.yaml:3:12: CaseFileNotYamlCase" in out


def test_hook_args_reach_lint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What a user puts in `args:` (here --strict) comes before the file names."""
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "cases.jsonl").write_text(GOOD)
    (tmp_path / "evals" / "checks.py").write_text("")  # registers nothing: W202
    argv = shlex.split(HOOK["entry"])[1:]
    before = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main([*argv, "evals/cases.jsonl"]) == 0
        assert main([*argv, "--strict", "evals/cases.jsonl"]) == 1
    finally:
        os.chdir(before)
    assert "W202" in capsys.readouterr().out
