"""plugin eval's rules one at a time: each refusal of a case or grader field at its position,
and the pieces the export relies on (a carried grader read back, a regex criterion parsed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from adhd_evals.catalog import CaseRow
from adhd_evals.errors import OutputError
from adhd_evals.importing.formats.plugin_eval import export as exporting
from adhd_evals.importing.formats.plugin_eval.graders import (
    GraderProblem,
    carried_grader,
    check_of,
    regex_grader_of,
    validate,
)
from adhd_evals.importing.importer import read_source
from adhd_evals.importing.model import Case, Refusal


def _refusal(tmp_path: Path, files: dict[str, str]) -> Refusal:
    for name, text in files.items():
        path = tmp_path / "evals" / "c" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    with pytest.raises(Refusal) as caught:
        read_source("plugin-eval", tmp_path / "evals", display="evals")
    return caught.value


GRADER = "graders:\n  - {name: g, type: llm, criteria: Ok.}\n"


@pytest.mark.parametrize(
    ("files", "field", "expected"),
    [
        pytest.param({"case.yaml": "- a list\n"}, "(top level)", "a mapping", id="case-yaml-a-list"),
        pytest.param({"case.yaml": "~\n"}, "execution.prompt", "the prompt", id="case-yaml-null"),
        pytest.param(
            {"prompt.md": "---\n---\nHi\n"}, "graders", "at least one grader", id="empty-front-matter"
        ),
        pytest.param(
            {"case.yaml": "execution:\n  prompt: Hi\n  env: [EVAL_A]\n" + GRADER},
            "execution.env",
            "a mapping of EVAL_* names",
            id="env-a-list",
        ),
        pytest.param(
            {"case.yaml": "execution:\n  prompt: '  '\n" + GRADER},
            "execution.prompt",
            "a non-empty string",
            id="blank-prompt",
        ),
        pytest.param(
            {"case.yaml": "execution:\n  prompt: Hi\ngraders: {g: llm}\n"},
            "graders",
            "a list",
            id="graders-mapping",
        ),
        pytest.param(
            {"case.yaml": "execution:\n  prompt: Hi\ngraders: [llm]\n"},
            "graders[0]",
            "a mapping",
            id="grader-text",
        ),
    ],
)
def test_case_fields_refused(tmp_path: Path, files: dict[str, str], field: str, expected: str) -> None:
    refusal = _refusal(tmp_path, files)
    assert refusal.field_path == field and expected in (refusal.expected or "")


def test_a_file_that_is_not_a_case_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text("{}")
    with pytest.raises(Refusal) as caught:
        read_source("plugin-eval", tmp_path / "notes.json")
    assert caught.value.actual == "a file named notes.json"


@pytest.mark.parametrize(
    ("grader", "field", "expected"),
    [
        ({"type": "regex", "pattern": "x", "flags": 1}, "flags", "a string of flags"),
        ({"type": "regex", "pattern": "x", "target": "stdout"}, "target", "last_message, trace"),
        ({"type": "regex", "pattern": "x", "target": {"source": "file"}}, "target", "{source: file, path}"),
        ({"type": "tool_used", "tool": "Bash", "min": -1}, "min", "a whole number of calls"),
        ({"type": "tool_used", "tool": "Bash", "min": 2, "max": 1}, "max", "at least min (2)"),
        ({"type": "tool_used", "tool": "Bash", "input_match": ""}, "input_match", "a regex over"),
        ({"type": "tool_order", "before": "Read", "after": 3}, "after", "a tool name or {tool, input_match}"),
        ({"type": "file_exists", "path": "a.txt", "exists": "no"}, "exists", "true or false"),
        ({"type": "baseline"}, "baseline_file", "the reference transcript's path"),
    ],
)
def test_grader_fields_refused(grader: dict[str, Any], field: str, expected: str) -> None:
    with pytest.raises(GraderProblem) as caught:
        validate({"name": "g", **grader})
    assert caught.value.field == field and expected in caught.value.expected


def test_tool_order_takes_a_tool_with_input_match() -> None:
    validate({"name": "g", "type": "tool_order", "before": {"tool": "Read"}, "after": "Edit"})


def test_a_grader_file_body_a_type_reads_no_text_from_is_kept() -> None:
    check = check_of({"name": "g", "type": "tool_used", "tool": "Bash", "body": "why"})
    assert (
        check.criterion
        == 'g: tool_used {"tool": "Bash", "body": "why"} (no trace check says the same: tool_used has no body)'
    )


@pytest.mark.parametrize(
    "argument",
    ["no grader here", 'text\nplugin-eval grader: {"broken', "text\nplugin-eval grader: [1]"],
)
def test_a_placeholder_without_a_readable_grader_carries_none(argument: str) -> None:
    assert carried_grader(argument) is None


def test_a_regex_criterion_reads_back_its_grader() -> None:
    grader = {
        "name": "g",
        "type": "regex",
        "pattern": "a/b",
        "flags": "i",
        "match": "count:2",
        "weight": 2.5,
        "arm": "both",
    }
    criterion = check_of(validate(grader)).criterion
    assert criterion == "g: /a/b/i is found exactly 2 times in the final message (weight 2.5) (arm: both)"
    assert regex_grader_of(criterion) == grader
    assert regex_grader_of("g: /x/ is found in the final message (weight 1e)") is None
    assert regex_grader_of("Says hello.") is None


def _rows(*criteria: str) -> list[CaseRow]:
    return [{"id": "a", "category": "c", "prompt": "Hi", "risk": "low", "criteria": list(criteria)}]


def test_a_carried_grader_that_no_longer_validates_goes_as_its_text() -> None:
    calls: dict[tuple[str, str], Any] = {
        ("a", "x"): ("unwritten", ('x\nplugin-eval grader: {"type": "bogus"}',), {})
    }
    files, lost = exporting.suite_files(_rows("x"), calls)
    assert "criteria: x\n" in files["1-a/case.yaml"] and lost == []


def test_a_fallback_name_another_grader_has_is_numbered_on() -> None:
    carried = check_of(validate({"name": "criterion-2", "type": "file_exists", "path": "a.md"}))
    calls: dict[tuple[str, str], Any] = {("a", carried.criterion): ("unwritten", carried.args, {})}
    files, _ = exporting.suite_files(_rows("first", carried.criterion), calls)
    rows = _rows("Prose.", carried.criterion)
    files, _ = exporting.suite_files(rows, calls)
    text = files["1-a/case.yaml"]
    assert "name: criterion-1\n" in text and "name: criterion-2\n" in text
    clash = _rows(carried.criterion, "Prose.")
    files, _ = exporting.suite_files(clash, calls)
    assert "name: criterion-2-1\n" in files["1-a/case.yaml"]


def test_the_suite_cannot_be_built_where_no_folder_can_be(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputError):
        exporting.write_suite(tmp_path / "file" / "suite", {"1-a/prompt.md": "x"})


def test_a_failed_write_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(self: Path, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", fail)
    with pytest.raises(OutputError, match="No space left"):
        exporting.write_suite(tmp_path / "suite", {"1-a/prompt.md": "x"})
    assert list(tmp_path.iterdir()) == []


def test_a_case_id_of_no_safe_letters_makes_a_case_folder() -> None:
    case = Case("日本", "c", "Hi", "low", ())
    files, _ = exporting.suite_files([cast(CaseRow, {**case._asdict(), "criteria": ["x"]})], {})
    assert "1-case/prompt.md" in files


def test_a_fallback_name_skips_every_name_taken() -> None:
    """Carried graders named criterion-2 and criterion-2-1; the prose second criterion's
    fallback name criterion-2 moves on to criterion-2-2."""
    first = check_of(validate({"name": "criterion-2", "type": "file_exists", "path": "a.md"}))
    third = check_of(validate({"name": "criterion-2-1", "type": "file_exists", "path": "b.md"}))
    calls: dict[tuple[str, str], Any] = {
        ("a", check.criterion): ("unwritten", check.args, {}) for check in (first, third)
    }
    files, _ = exporting.suite_files(_rows(first.criterion, "Prose.", third.criterion), calls)
    assert "name: criterion-2-2\n" in files["1-a/case.yaml"]


def test_a_grader_file_whose_type_is_not_text_is_refused_at_type(tmp_path: Path) -> None:
    """`type: []` with a body: the body is kept aside, the type refused."""
    refusal = _refusal(tmp_path, {"prompt.md": "Hi\n", "graders/g.md": "---\ntype: []\n---\nrubric\n"})
    assert refusal.field_path == "graders/g.md.type"
