"""Issue 38 item 2: the evals-json reader's per-assertion work, cut without changing a byte.

An assertion object is kept verbatim as compact JSON; that JSON was made by the encoder built
for every call. Strings, and objects of string keys and string values (the common assertion
object), are now quoted directly. What they give must be exactly what json.dumps gives.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adhd_evals.importing.formats._common import compact

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
