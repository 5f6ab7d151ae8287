"""lint --dialect and import --dialect agree on every dialect fixture (good and bad), so
the hook says what the import would: the same cases, the same refusal in the same words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import Refusal, RefusalCode
from adhd_evals.lint import lint_paths
from helpers import Fixture, fixtures


def _with_dialect(kind: str) -> list[Fixture]:
    found = [f for f in fixtures(kind) if "dialect" in f.meta and f.format == "evals-json"]
    return [f for f in found if f.meta.get("code") != RefusalCode.DIALECT_INVALID.value]


@pytest.mark.parametrize("fixture", [pytest.param(f, id=f.name) for f in _with_dialect("good")])
def test_lint_reads_a_good_fixture_as_the_import_does(fixture: Fixture) -> None:
    result = import_source("evals-json", fixture.source, dialect=fixture.dialect()).result
    report = lint_paths([fixture.source], forced="evals-json", dialect=fixture.dialect())
    assert report.problems == []
    assert report.cases == len(result.cases)


@pytest.mark.parametrize("fixture", [pytest.param(f, id=f.name) for f in _with_dialect("bad")])
def test_lint_refuses_a_bad_fixture_in_the_import_words(fixture: Fixture) -> None:
    name = fixture.source.name
    with pytest.raises(Refusal) as refused:
        import_source("evals-json", fixture.source, display=name, dialect=fixture.dialect())
    report = lint_paths([fixture.source], forced="evals-json", dialect=fixture.dialect())
    first = report.problems[0]
    assert first.message.startswith(refused.value.body)
    assert (first.line, first.column) == (refused.value.line, refused.value.column)


# One case per construct of issue 22: a file that uses it well, and the same file broken in
# that construct. lint must read the good file as the import does (the same cases, no
# problem; a left-out case counted by neither) and refuse the broken one in the import's
# words at the import's position. (construct, dialect's `cases:`/`assertions:` lines,
# the good cases, the broken cases)
CONSTRUCTS: list[tuple[str, str, str, str]] = [
    (
        "nested prompt",
        "cases:\n  prompt: [prompt, inputs.prompt]\n",
        '[{"id": 1, "inputs": {"prompt": "Hi", "locale": "en"}}, {"id": 2, "prompt": "Yo"}]',
        '[{"id": 1, "inputs": {"prompt": "Hi"}}, {"id": 2, "inputs": {"question": "Yo"}}]',
    ),
    (
        "nested id",
        "cases:\n  id: [id, meta.ticket_id]\n",
        '[{"meta": {"ticket_id": "T-1"}, "prompt": "Hi"}, {"id": 2, "prompt": "Yo"}]',
        '[{"meta": {"ticket_id": "T-1"}, "prompt": "Hi"}, {"meta": {}, "prompt": "Yo"}]',
    ),
    (
        "nested category",
        "cases:\n  category: [ticket.queue]\n",
        '[{"id": 1, "prompt": "Hi", "ticket": {"queue": "billing"}}, {"id": 2, "prompt": "Yo"}]',
        '[{"id": 1, "prompt": "Hi", "ticket": {"queue": "billing"}}, {"id": 2, "prompt": "Yo", "ticket": {"queue": ""}}]',
    ),
    (
        "type-less objects (has-only rules)",
        "assertions:\n  - {has: [text, check], check: regex, needle: check, case: sensitive, criterion: text}\n"
        "  - {has: [name, description], check: unwritten, criterion: description}\n",
        '[{"id": 1, "prompt": "Hi", "assertions": [{"name": "n", "description": "Calm"},'
        ' {"text": "A ref", "check": "[A-Z]{3}"}]}]',
        '[{"id": 1, "prompt": "Hi", "assertions": [{"name": "n", "description": "Calm"},'
        ' {"text": "A ref", "check": "[A-Z"}]}]',
    ),
    (
        "null needles",
        "cases:\n  criteria:\n    - {at: route, check: contains, case: insensitive, missing: skip}\n",
        '[{"id": 1, "prompt": "Hi", "route": "billing"}, {"id": 2, "prompt": "Yo", "route": null}]',
        '[{"id": 1, "prompt": "Hi", "route": "billing"}, {"id": 2, "prompt": "Yo", "route": 3}]',
    ),
    (
        "mixed lists",
        'cases:\n  criteria:\n    - rubric[]\n    - {at: "checklist[].pass_if", missing: skip}\n',
        '[{"id": 1, "prompt": "Hi", "rubric": ["Says hi", {"text": "Is short"}],'
        ' "checklist": ["Reads it", {"pass_if": "Greets back"}]}]',
        '[{"id": 1, "prompt": "Hi", "rubric": ["Says hi", null, {"text": "Is short"}]}]',
    ),
    (
        "list needles",
        "cases:\n  criteria:\n    - {at: expected.any, check: contains_any, case: insensitive}\n",
        '[{"id": 1, "prompt": "Hi", "expected": {"any": ["hello", "hi"]}}, {"id": 2, "prompt": "Yo"}]',
        '[{"id": 1, "prompt": "Hi", "expected": {"any": ["hello", {"regex": "h.*"}]}}]',
    ),
    (
        "a skipped multi-turn case",
        'cases:\n  skip:\n    - {has: [turns], reason: "multi-turn conversation"}\n',
        '[{"id": 1, "prompt": "Hi"}, {"id": 2, "turns": [{"role": "user", "content": "Yo"}]}]',
        '[{"id": 1, "prompt": "Hi"}, {"id": 2, "query_flow": [{"role": "user", "content": "Yo"}]}]',
    ),
]


def _construct_files(tmp_path: Path, rules: str, cases: str) -> tuple[Path, Any]:
    from adhd_evals.importing.dialect import load

    source, dialect_file = tmp_path / "evals.json", tmp_path / "dialect.yaml"
    source.write_text('{"skill_name": "s", "evals": ' + cases + "}\n", encoding="utf-8")
    dialect_file.write_text("adhd-evals-dialect: 1\nformat: evals-json\n" + rules, encoding="utf-8")
    return source, load(dialect_file, "dialect.yaml")


@pytest.mark.parametrize(("construct", "rules", "good", "broken"), CONSTRUCTS, ids=[c[0] for c in CONSTRUCTS])
def test_lint_and_import_agree_on_each_construct(
    construct: str, rules: str, good: str, broken: str, tmp_path: Path
) -> None:
    """Good: lint reports no problem and counts the cases the import read (a left-out case
    in neither). Broken: lint's first problem is the import's refusal, word for word from
    the start of its body, at the same line and column."""
    source, loaded = _construct_files(tmp_path, rules, good)
    result = import_source("evals-json", source, display="evals.json", dialect=loaded).result
    report = lint_paths([source], forced="evals-json", dialect=loaded)
    assert report.problems == []
    assert report.cases == len(result.cases)
    if construct == "a skipped multi-turn case":
        assert report.cases == 1 and [x.reason for x in result.left_out] == ["multi-turn conversation"]
    source, loaded = _construct_files(tmp_path, rules, broken)
    with pytest.raises(Refusal) as refused:
        import_source("evals-json", source, display="evals.json", dialect=loaded)
    report = lint_paths([source], forced="evals-json", dialect=loaded)
    first = report.problems[0]
    assert first.message.startswith(refused.value.body)
    assert (first.line, first.column) == (refused.value.line, refused.value.column)
