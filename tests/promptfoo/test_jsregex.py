"""A JavaScript pattern (no flags, as promptfoo's regex assertion builds it) matches where Python's translation does.

Each expectation is `new RegExp(pattern).test(text)` by ECMAScript's rules (checked with
node): \\d, \\w and \\b are ASCII-only, \\s is JavaScript's whitespace set (with U+FEFF and
U+3000), `.` stops at \\n, \\r, U+2028 and U+2029, `$` is the very end, and a brace that
does not form {n}, {n,} or {n,m} is a literal character.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.importing.formats.promptfoo.jsregex import NotTranslatable, translate


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("\\d", "3", True),
        ("\\d", "\u0663", False),  # ARABIC-INDIC DIGIT THREE: a digit to Python's \d, not JavaScript's
        ("\\D", "\u0663", True),
        ("\\w", "é", False),  # JavaScript's \w is [A-Za-z0-9_]
        ("\\W", "é", True),
        ("\\s", "\u00a0", True),
        ("\\s", "\ufeff", True),  # the BOM is whitespace in JavaScript, not in Python
        ("\\S", "\ufeff", False),
        (".", "\u2028", False),  # LINE SEPARATOR ends a line in JavaScript
        (".", "\x85", True),  # NEXT LINE does not
        ("a$", "a\n", False),  # Python's $ also matches before a final newline
        ("x\\b", "xé", True),  # é is not a word character, so x ends a word
        ("\\Bé", "xé", False),
        ("[\\d]", "\u0663", False),
        ("[\\s]", "\u3000", True),
        ("[^\\s]", "\u3000", False),
        ("[\\w]", "_", True),
        ("[\\b]", "\b", True),  # in a class, \b is the backspace
        ("[\\B]", "B", True),  # and \B the letter B
        ("[\\B]", "\b", False),
        ("\\u0041", "A", True),
        ("\\x41", "A", True),
        ("\\0", "\0", True),
        ("\\v", "\x0b", True),
        ("\\t", "\t", True),
        ("(a)\\1", "aa", True),
        ("a\\/b", "a/b", True),
        ("\\.", "x", False),
        ("a{2}", "aa", True),
        ("a{2}", "a{2}", False),
        ("a{2,}", "aaa", True),
        ("a{1,2}b", "ab", True),
        ("x{,5}", "x{,5}", True),  # not a quantifier in JavaScript (Python 3.13 reads {,5} as one)
        ("a{", "a{", True),
        ("a}", "a}", True),
        ("[a[]", "[", True),  # a [ inside a class is literal
        ("(?:a)b", "ab", True),
        ("(?=a)a", "a", True),
        ("(?<=a)b", "ab", True),
        ("(?<!a)b", "ab", False),
        ("^a", "ba", False),
    ],
)
def test_the_translation_matches_where_javascript_does(pattern: str, text: str, matches: bool) -> None:
    assert (re.search(translate(pattern), text) is not None) is matches


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        # named groups: (?<name>) in JavaScript, (?P<name>) in Python; inline flags JavaScript lacks
        pytest.param(
            "(?<name>x)",
            "the group '(?<n'… (JavaScript reads it differently or not at all)",
            id="named-group",
        ),
        pytest.param(
            "(?P<n>x)",
            "the group '(?P<'… (JavaScript reads it differently or not at all)",
            id="python-named-group",
        ),
        pytest.param(
            "(?i)x", "the group '(?i)'… (JavaScript reads it differently or not at all)", id="inline-flag"
        ),
        # [] never matches and [^] matches anything in JavaScript; Python reads ] as a member
        pytest.param("[]", "an empty character class [] or [^]", id="empty-class"),
        pytest.param("[^]", "an empty character class [] or [^]", id="negated-empty-class"),
        pytest.param("[abc", "an unterminated character class", id="unterminated-class"),
        # an identity escape of a letter is the letter in JavaScript, an error or another meaning in Python
        pytest.param("\\e", "the escape \\e", id="letter-escape"),
        pytest.param("\\A", "the escape \\A", id="python-anchor"),
        pytest.param("\\cJ", "the escape \\c", id="control-escape"),
        pytest.param("\\u{41}", "the escape \\u", id="braced-unicode-escape"),
        pytest.param("a\\", "a pattern ending in a backslash", id="trailing-backslash"),
        pytest.param("\\01", "an octal escape", id="octal"),
        # Python 3.11 reads these as possessive; JavaScript rejects them ("Nothing to repeat")
        pytest.param(
            "a*+",
            "a possessive quantifier (*+, ++, ?+, {n}+), which JavaScript rejects",
            id="possessive-star",
        ),
        pytest.param(
            "a{2}+",
            "a possessive quantifier (*+, ++, ?+, {n}+), which JavaScript rejects",
            id="possessive-brace",
        ),
        pytest.param(
            "a+?+",
            "a possessive quantifier (*+, ++, ?+, {n}+), which JavaScript rejects",
            id="possessive-after-lazy",
        ),
    ],
)
def test_patterns_with_no_exact_python_form_are_named(pattern: str, reason: str) -> None:
    with pytest.raises(NotTranslatable) as caught:
        translate(pattern)
    assert str(caught.value) == reason


@pytest.mark.parametrize("pattern", ["(a", "a**", "{2}", "(a)\\2"])
def test_patterns_python_cannot_compile_are_named(pattern: str) -> None:
    """Each throws in JavaScript too (an unclosed group, nothing to repeat, a missing group)."""
    with pytest.raises(NotTranslatable, match=r"^a pattern Python cannot compile once translated"):
        translate(pattern)


@pytest.mark.long
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab\\dwsbBDWS.$^[]{}()?*+|:=!<,-0123nu", max_size=12))
def test_any_pattern_is_translated_or_named(pattern: str) -> None:
    """Whatever the text, the result compiles in Python, or NotTranslatable says why: never another error."""
    try:
        translated = translate(pattern)
    except NotTranslatable as exc:
        assert str(exc)
    else:
        re.compile(translated)
