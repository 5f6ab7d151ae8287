"""Issue 38 item 2 (perf-out): the shortcuts the check module's generation takes write what the
general path wrote, each held here on its own with the text worked by hand from the rules.

- a literal: a printable text with no `"` and no backslash is quoted as it is (repr escapes
  nothing in it); anything else goes through repr and the quote choice;
- a comment: a printable text (one line, nothing to escape) is written after `# `, the marker
  word still escaped; an unprintable character or a newline takes the escaping path;
- a note: a text value is written as the JSON encoder writes a string (quotes, backslashes and
  controls escaped, other characters kept); any other value through the encoder itself;
- a placeholder carrying other text than its criterion (the object a criterion came from) is
  laid out by the width of that text's literal: one line up to 66 columns after
  `    return unwritten(` and `)` (22 of the 88), wrapped past it, non-ASCII counting twice.

The oracle property (tests/test_perf_checkgen_same_bytes.py) holds the whole module to the
generation before; these name each rule and where it turns.
"""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

import perf_checkgen_before as before
from adhd_evals.importing import checkgen
from adhd_evals.importing.model import Case, Check, CheckKind, ImportResult, Note


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", '"plain"'),  # the shortcut: quoted as it is
        ("it's", '"it\'s"'),  # a single quote needs no escape inside double quotes
        ("東京", '"東京"'),  # printable non-ASCII is kept
        ('say "hi"', "'say \"hi\"'"),  # a double quote and no single one: repr's single quotes
        ("a\\b", '"a\\\\b"'),  # a backslash is escaped
        ("a\tb", '"a\\tb"'),  # an unprintable character is escaped
        ("\ud800", '"\\ud800"'),  # a lone surrogate is unprintable
    ],
)
def test_a_literal_quotes_as_it_is_only_when_nothing_needs_escaping(text: str, expected: str) -> None:
    """The literal of each text, written by hand from repr's rules and the quote choice."""
    assert checkgen.literal(text) == expected


@given(st.text(alphabet=st.sampled_from(["a", "'", '"', "\\", "\n", "é", "\ud800", " "]), max_size=8))
def test_a_literal_is_the_old_generators(text: str) -> None:
    """Whatever the text, the literal is the old generator's (tests/perf_checkgen_before.py)."""
    assert checkgen.literal(text) == before.literal(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain line", ["# plain line"]),  # the shortcut
        ("trailing  ", ["# trailing"]),  # formatters strip trailing spaces
        ("", ["#"]),
        ("see adhd-evals: here", ["# see adhd-evals\\x3a here"]),  # printable, the marker still escaped
        ("a\x00b", ["# a\\x00b"]),  # one line, unprintable: escaped
        ("a\u2028b", ["# a\\u2028b"]),  # a line separator is not a newline here: one line, escaped
        ("one\ntwo\x00", ["# one", "# two\\x00"]),  # a newline: one comment line each
    ],
)
def test_a_comment_takes_the_shortcut_only_for_a_printable_text(text: str, expected: list[str]) -> None:
    """Comment lines worked by hand: `# ` and the text, escaped where unprintable, stripped."""
    assert checkgen.comment(text) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('say "hé"\n', 'k: "say \\"hé\\"\\n"'),  # a text: JSON's escapes, é kept (not ASCII-only)
        (["a.txt", 2, None], 'k: ["a.txt", 2, null]'),  # any other value: the encoder
        (datetime.date(2026, 12, 3), 'k: "2026-12-03"'),  # what JSON cannot hold: its str()
    ],
)
def test_a_note_is_written_as_json(value: object, expected: str) -> None:
    """A note's text, worked by hand from JSON's rules (ensure_ascii off, str() as the default)."""
    assert checkgen.note_text(Note("k", value)) == expected


@pytest.mark.parametrize(
    ("carried", "wrapped"),
    [
        ("x" * 64, False),  # its literal is 66 wide: 22 + 66 = 88, one line
        ("x" * 65, True),  # 89: wrapped
        ("é" * 32, False),  # 32 characters of width 2, and the quotes: 66
        ("é" * 32 + "x", True),  # 67
    ],
)
def test_a_placeholder_carrying_other_text_wraps_past_88_columns(carried: str, wrapped: bool) -> None:
    """The return line of a placeholder whose text is not its criterion (the criterion `c`, short
    enough that the registration and the `def` stay whole), worked by hand from the widths."""
    case = Case("i", "c", "p", "low", (Check("c", CheckKind.UNWRITTEN, (carried,)),))
    (unit,) = [
        u for u in checkgen.units(ImportResult("x", "evals-json", (case,), "low", True)) if u.kind == "check"
    ]
    quoted = f'"{carried}"'
    body = (
        f"    return unwritten(\n        {quoted},\n    )" if wrapped else f"    return unwritten({quoted})"
    )
    assert unit.text == f'@check("i", "c")\ndef {unit.name}(answer: str) -> bool:\n{body}'
