"""The one JSONL writer: its fast row of strings writes what json.dumps writes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals import jsonl

# Characters that exercise every escape: quotes, backslashes, controls, the three
# line breaks the writer escapes, non-ASCII letters, astral and lone surrogates.
_NASTY = st.sampled_from(
    [
        '"',
        "\\",
        "\n",
        "\x00",
        "\x1f",
        "\x7f",
        "\x85",
        "\u2028",
        "\u2029",
        "é",
        "東",
        "\ud800",
        "\U0001f600",
        " ",
        "a",
    ]
)
_TEXT = st.text(st.one_of(_NASTY, st.characters()), max_size=12)


def test_a_line_escapes_the_three_unicode_line_breaks() -> None:
    assert jsonl.line({"a": "x\u2028y\u2029z\x85"}) == '{"a": "x\\u2028y\\u2029z\\u0085"}'
    assert jsonl.line({"a": "東"}) == '{"a": "東"}'
    assert jsonl.line({"a": "東"}, ensure_ascii=True) == '{"a": "\\u6771"}'


def test_a_text_row_by_hand() -> None:
    row = (("id", 'q"1'), ("criteria", ["a\\b", "\u2028"]))
    assert jsonl.text_row(row) == '{"id": "q\\"1", "criteria": ["a\\\\b", "\\u2028"]}'
    assert jsonl.text_row((("criteria", []),)) == '{"criteria": []}'


@pytest.mark.long
@settings(max_examples=300)
@given(st.lists(_TEXT, min_size=4, max_size=4), st.lists(_TEXT, max_size=4))
def test_a_text_row_is_the_line_of_the_same_dict(values: list[str], criteria: list[str]) -> None:
    row: dict[str, str | list[str]] = {
        "id": values[0],
        "category": values[1],
        "prompt": values[2],
        "risk": values[3],
        "criteria": criteria,
    }
    written = jsonl.text_row(tuple(row.items()))
    assert written == jsonl.line(row)
    assert "\n" not in written and len(written.splitlines()) == 1
    if not any("\ud800" <= ch <= "\udfff" for text in (*values, *criteria) for ch in text):
        assert json.loads(written) == row


# Text around the surrogate range's edges: the two code points either side of it, its first and
# last, one inside, a backslash (left alone: only unencodable code points are escaped) and astral.
_AROUND_SURROGATES = st.text(
    alphabet=st.sampled_from(
        ["a", "\\", "\ud7ff", "\ud800", "\udbff", "\udc00", "\udfff", "\ue000", "\U0001f600"]
    ),
    max_size=12,
)


@settings(max_examples=200, deadline=None)
@given(_AROUND_SURROGATES)
def test_escape_surrogates_writes_each_surrogate_code_point_as_its_escape(text: str) -> None:
    """The rule, applied character by character: a code point in U+D800-U+DFFF becomes the six
    characters backslash, u and its four lowercase hex digits; every other character stays; the
    flag says whether one was there."""
    expected = "".join(f"\\u{ord(ch):04x}" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)
    assert jsonl.escape_surrogates(text) == (expected, expected != text)
