"""A dialect names trace checks: plugin eval's `tool_used` and `file_exists` graders, their
`min`, `max` and `input_match` read from the keys the rule's `options` names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main

DIALECT = """adhd-evals-dialect: 1
format: evals-json
assertions:
  - {when: {type: tool_used}, check: tool_used, needle: tool, options: {min: min, max: max, input_match: input_match}}
  - {when: {type: file_exists}, check: file_created, needle: glob, options: {exists: exists}}
"""


def _import(tmp_path: Path, assertions: list[Any], dialect: str = DIALECT) -> int:
    (tmp_path / "dialect.yaml").write_text(dialect, encoding="utf-8")
    source = tmp_path / "evals.json"
    source.write_text(
        json.dumps({"skill_name": "s", "evals": [{"id": 1, "prompt": "p", "assertions": assertions}]})
    )
    argv = [
        "import",
        str(source),
        "--dialect",
        str(tmp_path / "dialect.yaml"),
        "--out",
        str(tmp_path / "evals"),
    ]
    return main(argv)


def test_graders_become_trace_checks(tmp_path: Path) -> None:
    """Options in the helper's order (input_match, min, max) whatever the object's; keys the
    object lacks leave the helper's defaults; the criterion says them in plain words."""
    assertions = [
        {"type": "tool_used", "tool": "Bash", "max": 0, "min": 0},
        {"type": "tool_used", "tool": "Skill", "input_match": "my-skill", "why": "it loads"},
        {"type": "file_exists", "glob": "*.md"},
        {"type": "file_exists", "glob": "*.tmp", "exists": False},
    ]
    assert _import(tmp_path, assertions) == exitcodes.OK
    module = (tmp_path / "evals" / "checks.py").read_text(encoding="utf-8")
    for call in (
        'return tool_used("Bash", min=0, max=0)',
        'return tool_used("Skill", input_match="my-skill")',
        'return file_created("*.md")',
        'return file_created("*.tmp", exists=False)',
    ):
        assert call in module
    assert "def tool_used(" in module and "why: " in module  # the helper written in, the unused key a note
    row = json.loads((tmp_path / "evals" / "cases.jsonl").read_text(encoding="utf-8"))
    assert row["criteria"] == [
        'Calls the tool "Bash" (min 0, max 0)',
        'Calls the tool "Skill" (input_match "my-skill")',
        'Creates a file matching "*.md"',
        'Creates a file matching "*.tmp" (exists false)',
    ]


@pytest.mark.parametrize(
    ("assertion", "said"),
    [
        pytest.param({"type": "tool_used", "tool": "Bash", "max": -1}, "Expected a whole number from 0 to", id="max"),
        pytest.param({"type": "tool_used", "tool": "Bash", "min": True}, "Expected a whole number from 0 to", id="min-bool"),
        pytest.param({"type": "tool_used", "tool": "Bash", "input_match": "[]"}, "a pattern JavaScript and Python read alike", id="pattern"),
        pytest.param({"type": "tool_used", "tool": "Bash", "input_match": 3}, "a JavaScript regular expression (text)", id="pattern-type"),
        pytest.param({"type": "tool_used", "tool": ""}, "assertions[0].tool: Expected a non-empty string", id="tool"),
        pytest.param({"type": "file_exists", "glob": "*", "exists": "no"}, "Expected true or false", id="exists"),
    ],
)  # fmt: skip
def test_bad_arguments_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], assertion: dict[str, Any], said: str
) -> None:
    assert _import(tmp_path, [assertion]) == exitcodes.REFUSAL["CaseFileNotEvalsJson"]
    assert said in capsys.readouterr().err


@pytest.mark.parametrize(
    ("rule", "said"),
    [
        pytest.param("{when: {type: x}, check: contains, needle: v, case: sensitive, options: {min: m}}", "no options: contains takes none", id="text-check"),
        pytest.param("{when: {type: x}, check: file_created, needle: g, options: {max: m}}", "keywords of file_created: exists", id="wrong-keyword"),
    ],
)  # fmt: skip
def test_options_a_check_does_not_take_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rule: str, said: str
) -> None:
    dialect = f"adhd-evals-dialect: 1\nformat: evals-json\nassertions:\n  - {rule}\n"
    assert _import(tmp_path, ["x"], dialect) == exitcodes.REFUSAL["DialectInvalid"]
    assert said in capsys.readouterr().err
