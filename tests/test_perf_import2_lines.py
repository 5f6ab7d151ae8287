"""Issue 38 item 2: a catalog line filled into one format made once (jsonl.row_format), where
each line built every key and pair itself. The bytes must be exactly the line `jsonl.line`
writes for the row as a dict: json.dumps's separators and quoting, non-ASCII kept, and the
three Unicode line breaks escaped.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals import jsonl
from adhd_evals.importing.model import Case, Check, CheckKind

# Every code point but surrogates (no catalog holds one): quotes, backslashes, control
# characters, %, U+0085/U+2028/U+2029 and characters outside the BMP all come up.
TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=["Cs"]), max_size=12)


def _case(texts: tuple[str, str, str, str], criteria: list[str]) -> Case:
    checks = tuple(Check(text, CheckKind.UNWRITTEN, (text,)) for text in criteria)
    return Case(texts[0], texts[1], texts[2], texts[3], checks)


@settings(max_examples=150)
@given(st.tuples(TEXT, TEXT, TEXT, TEXT), st.lists(TEXT, max_size=4))
def test_a_catalog_line_is_the_line_of_its_row(texts: tuple[str, str, str, str], criteria: list[str]) -> None:
    """The rule: the row {id, category, prompt, risk, criteria} as `jsonl.line` writes it."""
    row = {"id": texts[0], "category": texts[1], "prompt": texts[2], "risk": texts[3], "criteria": criteria}
    assert _case(texts, criteria).catalog_line() == jsonl.line(row)


def test_a_catalog_line_by_hand() -> None:
    """Worked from JSON's rules: a quote and a newline escaped, "%" as it is, é kept, U+2028
    escaped (a line break to str.splitlines), ", " between items and ": " after keys."""
    case = _case(('a"1', "c%s", "p\nq é\u2028", "low"), ["x", "100%"])
    expected = '{"id": "a\\"1", "category": "c%s", "prompt": "p\\nq é\\u2028", "risk": "low", "criteria": ["x", "100%"]}'
    assert case.catalog_line() == expected
    assert json.loads(expected)["prompt"] == "p\nq é\u2028"


@given(st.lists(st.tuples(TEXT, st.booleans()), max_size=4, unique_by=lambda pair: pair[0]), st.data())
def test_row_format_filled_is_text_row(keys: list[tuple[str, bool]], data: st.DataObject) -> None:
    """Any keys (a "%" in one included), each holding a string or a list of strings: the format
    filled as its docstring says gives `text_row`'s line."""
    fields: list[tuple[str, str | list[str]]] = [
        (key, data.draw(st.lists(TEXT, max_size=3)) if is_list else data.draw(TEXT)) for key, is_list in keys
    ]
    form = jsonl.row_format(
        tuple(key for key, _ in keys), lists=tuple(key for key, is_list in keys if is_list)
    )
    filled = tuple(
        ", ".join(map(jsonl.quoted, value)) if isinstance(value, list) else jsonl.quoted(value)
        for _, value in fields
    )
    assert jsonl.unbroken(form % filled) == jsonl.text_row(tuple(fields))


def test_row_format_by_hand() -> None:
    """A "%" in a key is doubled in the format, so filling it leaves one."""
    form = jsonl.row_format(("a%", "b"), lists=("b",))
    assert form == '{"a%%": %s, "b": [%s]}'
    assert form % ('"x"', '"y", "z"') == '{"a%": "x", "b": ["y", "z"]}'


LONG_TEXT = st.text(
    st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=["Cs"]),
    min_size=250,
    max_size=300,
)


@settings(max_examples=60)
@given(LONG_TEXT | TEXT | st.builds(lambda text: text * 30, TEXT))
def test_quoted_text_is_json_dumps(text: str) -> None:
    """The rule: json.dumps's quoting, non-ASCII kept, for short and long texts alike."""
    assert jsonl.quoted_text(text) == json.dumps(text, ensure_ascii=False)


def test_quoted_text_by_hand() -> None:
    """Worked from JSON's rules, on 300-character texts: plain text is itself in quotes; a quote,
    a backslash or a newline is escaped; U+2028 (printable to JSON, not to Python) stays raw for
    `unbroken` to escape later."""
    plain = "é" * 300
    assert jsonl.quoted_text(plain) == '"' + plain + '"'
    assert jsonl.quoted_text('a"' * 150) == '"' + 'a\\"' * 150 + '"'
    assert jsonl.quoted_text("a\\" * 150) == '"' + "a\\\\" * 150 + '"'
    assert jsonl.quoted_text("a\n" * 150) == '"' + "a\\n" * 150 + '"'
    assert jsonl.quoted_text("a\u2028" * 150) == '"' + "a\u2028" * 150 + '"'
