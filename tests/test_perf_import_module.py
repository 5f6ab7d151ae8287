"""Issue 38 item 2: the check module's generation does per check only the work it needs.

A line's width was counted one character at a time in a Python generator; a criterion was
quoted twice and hashed from two encodings. The shortcuts must give exactly what the
definitions give: the goldens (tests/test_golden.py) hold the whole module byte for byte,
and these hold each shortcut against its definition on any text.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adhd_evals.importing import checkgen
from adhd_evals.importing.model import Check, CheckKind

# Any code point, lone surrogates included: a criterion may hold one (it then never reaches a
# catalog, but the module's helpers must not fail on it).
ANY_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=120)


def _width(line: str) -> int:
    """The definition: every character counts one, and every non-ASCII one counts once more."""
    return sum(1 if ord(ch) < 128 else 2 for ch in line)


@given(ANY_TEXT)
def test_fits_is_the_width_rule_on_any_line(line: str) -> None:
    """A line fits when its width (non-ASCII characters counted twice) is at most 88."""
    assert checkgen._fits(line) is (_width(line) <= checkgen.LINE_LENGTH)


@pytest.mark.parametrize(
    ("line", "fits"),
    [
        ("x" * 88, True),  # 88 ASCII: exactly the limit
        ("x" * 89, False),  # one past it: refused on its length alone
        ("é" * 44, True),  # 44 characters of width 2: 88
        ("é" * 45, False),  # 90
        ("x" * 43 + "é" * 22, True),  # 43 + 44 = 87: between the two shortcuts, counted
        ("x" * 44 + "é" * 23, False),  # 44 + 46 = 90: counted, too wide
        ("\ud800" * 44, True),  # a lone surrogate is non-ASCII: 88
        ("\ud800" * 44 + "x", False),  # 89
    ],
)
def test_fits_at_the_edges_of_each_shortcut(line: str, fits: bool) -> None:
    """Widths worked by hand from the rule: ASCII 1, anything else 2, limit 88."""
    assert checkgen._fits(line) is fits


@given(ANY_TEXT)
def test_key_and_short_are_the_two_short_hashes(text: str) -> None:
    """One encoding gives both hashes: blake2s of the UTF-8 (surrogates passed) at 8 and 3 bytes."""
    data = text.encode("utf-8", "surrogatepass")
    expected = (
        hashlib.blake2s(data, digest_size=8).hexdigest(),
        hashlib.blake2s(data, digest_size=3).hexdigest(),
    )
    assert checkgen._key_and_short(text) == expected
    assert expected == (checkgen.short_hash(text), checkgen.short_hash(text, 3))


def test_an_unwritten_check_reuses_its_criterions_literal() -> None:
    """The literal passed in stands for the criterion when the check's text is the criterion."""
    check = Check("Says it", CheckKind.UNWRITTEN, ("Says it",))
    assert checkgen.call(check, '"Says it"') == ("unwritten", ['"Says it"'])
    assert checkgen.call(check) == ("unwritten", ['"Says it"'])


def test_an_unwritten_check_with_other_text_is_quoted_itself() -> None:
    """A placeholder carrying a verbatim object: its text is not its criterion, so it is quoted
    on its own (the criterion's literal would name the wrong text)."""
    check = Check("Says it", CheckKind.UNWRITTEN, ('{"text": "Says it", "w": 2}',))
    assert checkgen.call(check, '"Says it"') == ("unwritten", ['\'{"text": "Says it", "w": 2}\''])
