"""Issue 38 item 2: the evals-json reader's per-assertion work, cut without changing a byte.

An assertion object is kept verbatim as compact JSON; that JSON was made by the encoder built
for every call. Strings, and objects of string keys and string values (the common assertion
object), are now quoted directly. What they give must be exactly what json.dumps gives.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adhd_evals.importing.formats._common import compact
from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import Case, Refusal

ANY_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=30)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | ANY_TEXT
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
    max_leaves=12,
)


@given(JSON_VALUES)
def test_compact_is_json_dumps_on_any_json_value(value: object) -> None:
    """The rule: json.dumps with non-ASCII kept and its default separators ", " and ": "."""
    assert compact(value) == json.dumps(value, ensure_ascii=False)


@given(st.dictionaries(ANY_TEXT, ANY_TEXT, max_size=5))
def test_compact_of_an_object_of_strings_is_json_dumps(value: dict[str, str]) -> None:
    """The shortcut's own input: every key and value a string (the empty object included)."""
    assert compact(value) == json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"text": "Says é", "type": "x"}, '{"text": "Says é", "type": "x"}'),  # the shortcut
        ({"text": "a", "weight": 2}, '{"text": "a", "weight": 2}'),  # a number: the encoder
        ({1: "a"}, '{"1": "a"}'),  # a key that is not a string (YAML): the encoder names it
        ({}, "{}"),
        ('say "hi"\n', '"say \\"hi\\"\\n"'),  # a string: quoted and escaped
    ],
)
def test_compact_by_hand(value: object, expected: str) -> None:
    """Worked by hand from JSON's rules: quotes and newlines escaped, ", " between items."""
    assert compact(value) == expected


def _read_cases(tmp_path: Path, cases: list[dict[str, object]]) -> tuple[Case, ...]:
    source = tmp_path / "evals.json"
    source.write_text(json.dumps({"skill_name": "s", "evals": cases}), encoding="utf-8")
    return import_source("evals-json", source).result.cases


def test_a_statement_of_success_read_as_criteria_leaves_the_next_case_as_it_was(tmp_path: Path) -> None:
    """Cases read without a dialect share one empty record of what a dialect found; the first
    case's expected_output becomes its criterion (it has no list), which must not make the
    second case's expected_output a criterion too: that case has a list, so it stays a note."""
    first, second = _read_cases(
        tmp_path,
        [
            {"id": 1, "prompt": "p", "expected_output": "Says yes"},
            {"id": 2, "prompt": "q", "assertions": ["Says no"], "expected_output": "Says maybe"},
            {"id": 3, "prompt": "r", "expected_output": "Says so"},
        ],
    )[:2]
    assert [c.criterion for c in first.checks] == ["Says yes"]
    assert first.notes == ()
    assert [c.criterion for c in second.checks] == ["Says no"]
    assert [(n.key, n.value) for n in second.notes] == [("expected_output", "Says maybe")]


def test_whitespace_only_assertions_are_refused_as_before(tmp_path: Path) -> None:
    """A string of whitespace alone is no prose (strip() leaves nothing): it is refused by the
    full path, naming the assertion's place, as a non-empty string was expected."""
    with pytest.raises(Refusal) as caught:
        _read_cases(tmp_path, [{"id": 1, "prompt": "p", "assertions": ["ok", " \t\u2003"]}])
    assert caught.value.field_path == "assertions[1]"
    assert caught.value.expected == "a non-empty string"
