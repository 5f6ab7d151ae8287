"""The corpus dialect (tests/corpus/evals-json.dialect.yaml, written with survey and
judgment) imports every real evals.json whose cases are a list of objects with a
prompt-like string (a conversation case left out by its cases.skip); the rest are
refused, each for the reason written here."""

from __future__ import annotations

from pathlib import Path

import pytest

from adhd_evals.catalog import validate_lines
from adhd_evals.importing import dialect
from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import Refusal
from helpers import CORPUS

DIALECT = Path(__file__).resolve().parent.parent / "corpus" / "evals-json.dialect.yaml"
FOLDER = CORPUS / "evals-json"
# Files that are not cases with string prompts, and what each holds instead.
NOT_CASES = {
    "182311729zhouyicheng__paper-style-deconstruct__evals_evals.json": "prompt",  # papers to read, no prompt
    "1997nanana__nana-prd-writing__evals_evals.json": "at least one case",  # an empty case list
    "STZ5353__glm-vision__evals.json": "a case list",  # a results file
    # Trigger evals: should_trigger / should_not_trigger prompts that must (not) select the
    # skill. Their prompts are reachable, but there is no answer to judge, and one case list
    # per file would import the first list and file the second away as a note.
    "UrsaMU__ursamu-dev-skill__skill_evals_evals.json": "a case list",
}

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not FOLDER.is_dir(), reason="../shared/corpus is not beside this checkout"),
]


def _files() -> list[Path]:
    return sorted(FOLDER.glob("*.json")) if FOLDER.is_dir() else []


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name[:50])
def test_corpus_file_imports_with_the_dialect_or_is_not_cases(path: Path) -> None:
    loaded = dialect.load(DIALECT)
    if path.name in NOT_CASES:
        with pytest.raises(Refusal) as refused:
            import_source("evals-json", path, dialect=loaded)
        assert NOT_CASES[path.name] in str(refused.value)
        return
    outcome = import_source("evals-json", path, dialect=loaded)
    assert all(x.reason for x in outcome.result.left_out)
    count, problems = validate_lines(outcome.catalog.splitlines())
    assert problems == [] and count == len(outcome.result.cases)
    compile(outcome.module, path.name, "exec")


# The mechanical rules of the corpus dialect, restated by hand: (selector, required key).
MECHANICAL = {
    ("type", "contains", "value"),
    ("type", "contains", "values"),
    ("type", "not_contains", "value"),
    ("type", "not_contains", "values"),
    ("type", "regex", "value"),
    ("type", "content_contains", "value"),
    ("type", "content_contains", "pattern"),
    ("type", "content_not_contains", "pattern"),
    ("type", "content_not_contains", "value"),
    ("type", "behavior_contains", "pattern"),
    ("type", "behavior_not_contains", "pattern"),
    ("type", "contains_any", "values"),
    ("type", "contains_all", "values"),
    ("type", "ordered_content", "patterns"),
    ("type", "shows_command", "values"),
}
NEEDLE_LISTS = (
    "must_contain",
    "must_not_contain",
    "must_have",
    "must_not_have",
    "required_regex",
    "forbidden_regex",
)
# Needle lists one level down in expected_output: (key, one check for the whole list?).
NESTED_NEEDLE_LISTS = (("sections", True), ("body_mentions_key_facts", True), ("banned_words_absent", False))


def _expected_mechanical(path: Path) -> int:
    """An independent count: typed objects a mechanical rule matches, plus one per listed needle
    (a contains_all list under expected_output is one check; banned words one each)."""
    import json

    data = json.loads(path.read_text(encoding="utf-8-sig"))
    cases = (
        data
        if isinstance(data, list)
        else next(data[k] for k in ("evals", "cases", "tests", "scenarios", "evaluations") if k in data)
    )
    count = 0
    for case in cases:
        if "prompt_sequence" in case:  # left out by the dialect's cases.skip
            continue
        lists = [case.get(key) for key in ("assertions", "expectations", "checks")]
        items = [item for found in lists if isinstance(found, list) for item in found]
        count += sum(
            1
            for item in items
            if isinstance(item, dict)
            and any(item.get(sel) == value and key in item for sel, value, key in MECHANICAL)
        )
        count += isinstance(case.get("should_trigger"), bool)  # a trigger case: one tool_used check
        for key in NEEDLE_LISTS:
            value = case.get(key, [])
            count += len(value) if isinstance(value, list) else 1
        expected = case.get("expected_output")
        for key, whole in NESTED_NEEDLE_LISTS:
            if isinstance(expected, dict) and expected.get(key):
                count += 1 if whole else len(expected[key])
    return count


@pytest.mark.parametrize("path", [p for p in _files() if p.name not in NOT_CASES], ids=lambda p: p.name[:50])
def test_every_typed_assertion_a_rule_names_is_converted(path: Path) -> None:
    result = import_source("evals-json", path, dialect=dialect.load(DIALECT)).result
    converted = sum(check.mechanical for case in result.cases for check in case.checks)
    assert converted == _expected_mechanical(path)
