"""A plugin eval regex grader's pattern and flags, as Python runs them: JavaScript's meaning.

Each expectation is `new RegExp(pattern, flags).test(text)` by ECMAScript's rules for a
non-Unicode regex: m lets ^ and $ stop at \\n, \\r, U+2028 and U+2029; s lets . match them;
i folds letters with toUpperCase but never maps a non-ASCII letter to an ASCII one (so the
Kelvin sign is not k, nor the long s s, as Python's re.IGNORECASE would have it). A class
holding \\D, \\W or \\S matches what Annex B says (a range endpoint that is a class escape
makes the - literal). Counts are String.prototype.match with the g flag: an empty match
moves lastIndex one on.
"""

from __future__ import annotations

import re

import pytest

from adhd_evals.importing.formats.promptfoo.jsregex import NotTranslatable, translate
from adhd_evals.importing.vocabulary import regex_count


@pytest.mark.parametrize(
    ("pattern", "flags", "text", "matches"),
    [
        ("^b", "m", "a\rb", True),
        ("^b", "m", "a\u2028b", True),
        ("^b", "", "a\nb", False),
        ("a$", "m", "a\nb", True),
        ("a$", "m", "a\u2029b", True),
        ("a$", "", "a\nb", False),
        ("a.b", "s", "a\nb", True),
        ("a.b", "", "a\nb", False),
        ("a.b", "", "a\x85b", True),
        ("k", "i", "K", True),
        ("k", "i", "\u212a", False),  # KELVIN SIGN: k only under Unicode case folding
        ("s", "i", "\u017f", False),  # LATIN SMALL LETTER LONG S
        ("[a-z]", "i", "Q", True),
        ("\\u0041", "i", "a", True),
        ("done", "gd", "all done", True),
        ("a.b", "ms", "a\rb", True),
        ("[\\s\\S]", "", "\n", True),
        ("[^\\S]", "", "\u3000", True),
        ("[^\\S]", "", "a", False),
        ("[\\D]", "", "5", False),
        ("[\\Dx]", "", "x", True),
        ("[^\\d\\W]", "", "_", True),
        ("[^\\d\\W]", "", "5", False),
        ("[^\\d\\W]", "", "é", False),
        ("[\\S-x]", "", "-", True),
        ("[^\\s\\S]", "", "a", False),
    ],
)
def test_flags_mean_what_they_mean_in_javascript(pattern: str, flags: str, text: str, matches: bool) -> None:
    assert (re.search(translate(pattern, flags), text) is not None) is matches


@pytest.mark.parametrize(
    ("pattern", "flags", "reason"),
    [
        pytest.param("\\p{L}", "u", "the flag 'u'", id="unicode"),
        pytest.param("x", "v", "the flag 'v'", id="unicode-sets"),
        pytest.param("x", "y", "the flag 'y'", id="sticky"),
        pytest.param("x", "ii", "a flag given twice", id="twice"),
        pytest.param("x", "x", "the flag 'x'", id="unknown"),
        pytest.param("é", "i", "a non-ASCII letter under the i flag", id="letter-under-i"),
        pytest.param("\\u00e9", "i", "a non-ASCII letter under the i flag", id="escaped-letter-under-i"),
        pytest.param("\\xe9", "i", "a non-ASCII letter under the i flag", id="hex-letter-under-i"),
    ],
)
def test_what_python_cannot_reproduce_is_refused_by_name(pattern: str, flags: str, reason: str) -> None:
    with pytest.raises(NotTranslatable, match=re.escape(reason)):
        translate(pattern, flags)


@pytest.mark.parametrize(
    ("text", "pattern", "count"),
    [
        ("baa", "a*", 3),  # '', 'aa', ''
        ("aaa", "a", 3),
        ("", "x*", 1),
        ("abc", "(?:)", 4),
        ("aaaa", "aa", 2),  # never overlapping
    ],
)
def test_regex_count_counts_as_javascript_s_global_match(text: str, pattern: str, count: int) -> None:
    assert regex_count(text, pattern, count)
    assert not regex_count(text, pattern, count + 1)
