"""Trigger cases from each shape, refused where the shape is broken: one test per refusal,
and the skill's name from --skill, the file, or the SKILL.md beside it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.importing.formats import PROBLEMS, ReadOptions
from adhd_evals.importing.formats._triggers import skill_md_name
from adhd_evals.lint import format_of

CODE = exitcodes.REFUSAL["CaseFileNotTriggerList"]


def _import(tmp_path: Path, data: Any, *extra: str, name: str = "triggers.json") -> list[dict[str, Any]]:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return [{"code": main(["import", "--format", "trigger-list", str(path), *extra])}]


def _refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: Any, *extra: str) -> str:
    assert _import(tmp_path, data, *extra)[0]["code"] == CODE
    return capsys.readouterr().err


@pytest.mark.parametrize(
    ("data", "said"),
    [
        pytest.param({"skill": "s", "should_trigger": "q"}, 'should_trigger: Expected a list of queries, actual "q"', id="list-not-a-list"),
        pytest.param({"skill": 3, "should_trigger": ["q"]}, "skill: Expected a string, actual 3", id="skill-not-text"),
        pytest.param({"skill": "s", "should_trigger": [5]}, "query should_trigger[0]: Expected an object with a query, actual 5", id="item"),
        pytest.param([{"id": " ", "query": "q", "should_trigger": True}], "query #1, id: Expected a non-empty string", id="blank-id"),
        pytest.param([{"query": "", "should_trigger": True}], "query #1, query: Expected a non-empty string", id="blank-query"),
        pytest.param(
            {"skill": "s", "should_trigger": [{"id": "a", "query": "x"}], "should_not_trigger": [{"id": "a", "query": "y"}]},
            "query 'a' (should_not_trigger[0]), id: Expected an id no other query has, actual \"a\", which query 'a' (should_trigger[0]) has too",
            id="duplicate-id",
        ),
    ],
)  # fmt: skip
def test_each_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: Any, said: str) -> None:
    err = (
        _refused(tmp_path, capsys, data, "--skill", "s")
        if isinstance(data, list)
        else _refused(tmp_path, capsys, data)
    )
    assert "(CaseFileNotTriggerList)" in err and said in err and "Nothing was written." in err


def test_two_empty_lists_are_an_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        _import(tmp_path, {"skill": "s", "should_trigger": [], "should_not_trigger": []})[0]["code"]
        == (exitcodes.REFUSAL["CaseFileEmpty"])
    )
    assert "Expected at least one query, actual none" in capsys.readouterr().err


def test_skill_flag_wins_over_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _import(tmp_path, {"skill": "from-file", "should_trigger": ["q"]}, "--skill", "from-flag")
    row = json.loads(capsys.readouterr().out)
    assert row["criteria"] == ["the skill from-flag is invoked"] and row["category"] == "from-flag"


def test_blank_skill_flag_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(tmp_path, ["q"], "--skill", " ")[0]["code"] == exitcodes.USAGE
    assert "--skill must be non-empty text" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "name"),
    [
        pytest.param("---\nname: pdf-tools\ndescription: x\n---\n# PDF\n", "pdf-tools", id="plain"),
        pytest.param("---\ndescription: x\nname: 'quoted'\n---\n", "quoted", id="quoted"),
        pytest.param("# no front matter\nname: body\n", None, id="no-front-matter"),
        pytest.param("---\ndescription: x\n---\nname: body\n", None, id="no-name-in-it"),
    ],
)
def test_skill_md_name(tmp_path: Path, text: str, name: str | None) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "SKILL.md").write_text(text, encoding="utf-8")
    assert skill_md_name(tmp_path / "evals" / "evals.json") == name


def test_evals_json_should_trigger_must_be_true_or_false(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "evals.json"
    path.write_text(
        json.dumps({"skill_name": "s", "evals": [{"id": 1, "prompt": "p", "should_trigger": "yes"}]})
    )
    assert main(["import", str(path)]) == exitcodes.REFUSAL["CaseFileNotEvalsJson"]
    assert 'case 1, should_trigger: Expected true or false, actual "yes"' in capsys.readouterr().err


def test_evals_json_trigger_cases_need_a_skill(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No skill_name and no SKILL.md: refused, with --skill as the way out; with it, imported."""
    path = tmp_path / "evals.json"
    path.write_text(json.dumps({"evals": [{"id": 1, "prompt": "p", "should_trigger": False}]}))
    assert main(["import", str(path)]) == exitcodes.REFUSAL["CaseFileNotEvalsJson"]
    assert "hint: pass --skill NAME" in capsys.readouterr().err
    assert main(["import", str(path), "--skill", "named"]) == exitcodes.OK
    assert json.loads(capsys.readouterr().out)["criteria"] == ["the skill named is not invoked"]


def test_evals_json_trigger_skill_from_skill_md(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "SKILL.md").write_text("---\nname: beside\n---\n")
    (tmp_path / "evals").mkdir()
    path = tmp_path / "evals" / "evals.json"
    path.write_text(
        json.dumps({"evals": [{"id": 1, "prompt": "p", "should_trigger": True, "expectations": ["e"]}]})
    )
    assert main(["import", str(path)]) == exitcodes.OK
    assert json.loads(capsys.readouterr().out)["criteria"] == ["the skill beside is invoked", "e"]


@pytest.mark.parametrize(
    ("data", "found"),
    [
        pytest.param([{"query": "q", "should_trigger": True}], "trigger-list", id="skill-creator"),
        pytest.param({"should_trigger": [], "should_not_trigger": []}, "trigger-list", id="two-lists"),
        pytest.param([{"query": "q"}], "evals-json", id="no-polarity"),
        pytest.param([], "evals-json", id="empty-list"),
        pytest.param({"should_trigger": []}, "trigger-list", id="one-list"),
        pytest.param({"should_trigger": [], "evals": []}, "evals-json", id="evals-beside"),
    ],
)
def test_recognised_by_shape(tmp_path: Path, data: Any, found: str) -> None:
    path = tmp_path / "queries.json"
    path.write_text(json.dumps(data))
    assert format_of(path, explicit=True) == found


def test_lint_finds_every_refusal(tmp_path: Path) -> None:
    """Lint's reader keeps going: the two bad items are both reported."""
    path = tmp_path / "t.json"
    path.write_text(json.dumps([{"query": "q", "should_trigger": 1}, {"query": 2, "should_trigger": True}]))
    found = PROBLEMS["trigger-list"](path, display="t.json", options=ReadOptions(risk="low", skill="s"))
    assert found.cases == 2 and [r.case for r in found.refusals] == ["query #1", "query #2"]


def test_the_evals_json_schema_says_should_trigger_is_true_or_false() -> None:
    """Published contract and reader agree: a string should_trigger is refused by both."""
    import jsonschema

    from helpers import ROOT

    schema = json.loads((ROOT / "schemas" / "evals-json.schema.json").read_text(encoding="utf-8"))
    case = {"evals": [{"id": 1, "prompt": "p", "should_trigger": True}]}
    assert jsonschema.Draft202012Validator(schema).is_valid(case)
    case["evals"][0]["should_trigger"] = "yes"
    assert not jsonschema.Draft202012Validator(schema).is_valid(case)


def test_lint_reads_trigger_lists_and_modules_with_trace_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A trigger list lints clean; so does the module its import writes (trace checks and all)."""
    path = tmp_path / "queries.json"
    path.write_text(json.dumps({"skill": "s", "should_trigger": ["q"], "should_not_trigger": ["r"]}))
    assert main(["lint", str(path)]) == exitcodes.OK
    assert main(["import", str(path), "--out", str(tmp_path / "evals")]) == exitcodes.OK
    assert main(["lint", str(tmp_path / "evals")]) == exitcodes.OK
    path.write_text(json.dumps({"skill": "s", "should_trigger": [3]}))
    assert main(["lint", str(path)]) == exitcodes.FAILED
    assert "CaseFileNotTriggerList" in capsys.readouterr().out
