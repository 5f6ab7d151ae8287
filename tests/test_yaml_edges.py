"""YAML case files at the edges the fixtures do not reach: a name that slugs to nothing, a
missing path, and criteria a dialect points at that are objects or not text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adhd_evals.entry import main
from adhd_evals.importing.model import RefusalCode

DIALECT = """adhd-evals-dialect: 1
format: yaml
cases:
  prompt: goal
  id: title
  criteria: [checks]
assertions:
  - when: {type: contains}
    check: contains
    needle: value
    case: sensitive
"""


def _import(tmp_path: Path, task: str, capsys: pytest.CaptureFixture[str], *dialect: str) -> tuple[int, str]:
    source = tmp_path / "task.yaml"
    source.write_text(task)
    out = tmp_path / "out"
    code = main(["import", "--format", "yaml", str(source), "--out", str(out), *dialect])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if code:
        assert not out.exists()
    return code, err


def _with_dialect(tmp_path: Path) -> list[str]:
    rules = tmp_path / "dialect.yaml"
    rules.write_text(DIALECT)
    return ["--dialect", str(rules)]


def test_a_name_with_no_letter_or_digit_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The id is the name slugged; "!!!" slugs to nothing, so there would be no id: refused
    at the name's value (line 1, column 7: after `name: `)."""
    code, err = _import(tmp_path, 'name: "!!!"\ntask: t\n', capsys)
    assert code == RefusalCode.NOT_YAML_CASE.exit_code
    assert (
        'case "!!!", name: Expected a name with at least one letter or digit, actual "!!!" (line 1, column 7)'
        in err
    )


def test_a_missing_path_is_refused_as_unreadable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "tasks"
    code = main(["import", "--format", "yaml", str(missing)])
    assert code == RefusalCode.FILE_UNREADABLE.exit_code
    assert f"{missing} cannot be read: no such file or directory" in capsys.readouterr().err


def test_criteria_objects_no_rule_matches_are_kept_whole_as_placeholders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`{text: ..., weight: 2}` is prose with a detail: its criterion is the text, and the whole
    object (weight included) is the placeholder's argument, so nothing is dropped. An object
    with no text (`{kind: visual, ...}`) is its own criterion, counted by its shape; a string is
    prose, its own criterion."""
    task = (
        "title: Find pricing\ngoal: Open the page\nchecks:\n"
        '  - {text: "Shows the price", weight: 2}\n  - {kind: visual, selector: "#p"}\n'
        "  - Names the plan\n"
    )
    code, err = _import(tmp_path, task, capsys, *_with_dialect(tmp_path))
    assert code == 0
    row = json.loads((tmp_path / "out" / "cases.jsonl").read_text())
    assert row["criteria"] == ["Shows the price", '{"kind": "visual", "selector": "#p"}', "Names the plan"]
    module = (tmp_path / "out" / "checks.py").read_text()
    assert """unwritten('{"text": "Shows the price", "weight": 2}')""" in module
    assert 'by shape: {kind: "visual"} 1.' in err


def test_a_criterion_that_is_not_text_is_refused_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`- 42` under `checks:` is neither prose nor an object a rule could read: refused at the
    item, line 4 column 5 (after `  - `)."""
    task = "title: Find pricing\ngoal: Open the page\nchecks:\n  - 42\n"
    code, err = _import(tmp_path, task, capsys, *_with_dialect(tmp_path))
    assert code == RefusalCode.NOT_YAML_CASE.exit_code
    assert 'case "Find pricing", checks[0]: Expected a string, actual 42 (line 4, column 5)' in err


def test_a_judge_context_item_that_is_not_text_is_refused_at_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """judge_context is a list of criteria as prose; its second item, `{}`, is not text:
    refused at it (line 5, column 5: after `  - `)."""
    code, err = _import(
        tmp_path, "name: Pricing\ntask: t\njudge_context:\n  - Shows the price\n  - {}\n", capsys
    )
    assert code == RefusalCode.NOT_YAML_CASE.exit_code
    assert 'case "Pricing", judge_context[1]: Expected a string' in err and "(line 5, column 5)" in err
