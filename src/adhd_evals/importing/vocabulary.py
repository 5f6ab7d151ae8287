"""The check vocabulary: every helper a dialect rule can name, defined once.

This file is real code (the tests import it) and is also the preamble of
every check module imported with a dialect: everything below this docstring
is copied into the module verbatim, so a reader of `checks.py` sees exactly
the semantics documented here. Keep it self-contained: standard library only,
except `is_json`, which imports jsonschema when a rule gives it a schema.

Letter case: every helper that compares text takes a keyword-only
`ignore_case`; the generated call always states it, because what `contains`
means differs between teams and the dialect file says which. (contains_any,
contains_all and contains_none default to ignoring case, what the helpers of
a module imported without a dialect do: a check kept from such a module, its
call without `ignore_case`, still means what it meant once a dialect arrives.) Ignoring case
uses `str.casefold()` on both sides (so "STRASSE" matches "straße").

Those helpers (checkhelpers.py) share five names with this file: each means
exactly what this file's does, on every input (tests/test_checkhelpers.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

Check = Callable[[str], bool]
CHECKS: dict[str, list[tuple[str, Check]]] = {}


def check(case_id: str, criterion: str) -> Callable[[Check], Check]:
    """Register the function below as the check of one criterion of one case."""

    def register(function: Check) -> Check:
        CHECKS.setdefault(case_id, []).append((criterion, function))
        return function

    return register


def _fold(text: str, ignore_case: bool) -> str:
    return text.casefold() if ignore_case else text


def _texts(needles: str | Sequence[str]) -> list[str]:
    """A single string where a list is expected is a one-item list."""
    return [needles] if isinstance(needles, str) else list(needles)


def contains(answer: str, needle: str, *, ignore_case: bool) -> bool:
    """The needle occurs in the answer as plain text (no pattern characters)."""
    return _fold(needle, ignore_case) in _fold(answer, ignore_case)


def contains_any(
    answer: str,
    needles: str | Sequence[str],
    *,
    ignore_case: bool = True,
) -> bool:
    """At least one needle occurs in the answer as plain text."""
    text = _fold(answer, ignore_case)
    return any(_fold(n, ignore_case) in text for n in _texts(needles))


def contains_all(
    answer: str,
    needles: str | Sequence[str],
    *,
    ignore_case: bool = True,
) -> bool:
    """Every needle occurs in the answer as plain text."""
    text = _fold(answer, ignore_case)
    return all(_fold(n, ignore_case) in text for n in _texts(needles))


def contains_none(
    answer: str,
    needles: str | Sequence[str],
    *,
    ignore_case: bool = True,
) -> bool:
    """No needle occurs in the answer as plain text."""
    text = _fold(answer, ignore_case)
    return not any(_fold(n, ignore_case) in text for n in _texts(needles))


def not_contains_all(
    answer: str,
    needles: str | Sequence[str],
    *,
    ignore_case: bool,
) -> bool:
    """At least one needle is missing from the answer (the opposite of contains_all)."""
    return not contains_all(answer, needles, ignore_case=ignore_case)


def starts_with(
    answer: str,
    prefix: str,
    *,
    ignore_case: bool,
    strip: bool = True,
) -> bool:
    """The answer, leading whitespace removed, begins with the prefix
    (`strip=False`: the answer as it is, as promptfoo's starts-with reads it)."""
    text = answer.lstrip() if strip else answer
    return _fold(text, ignore_case).startswith(_fold(prefix, ignore_case))


def not_starts_with(
    answer: str,
    prefix: str,
    *,
    ignore_case: bool,
    strip: bool = True,
) -> bool:
    """The answer does not begin with the prefix (read as starts_with reads it)."""
    return not starts_with(answer, prefix, ignore_case=ignore_case, strip=strip)


def equals(
    answer: str,
    expected: str,
    *,
    ignore_case: bool,
    strip: bool = True,
) -> bool:
    """The answer equals the expected text once surrounding whitespace is removed
    from both (inner whitespace must match); `strip=False`: character for
    character, as promptfoo's equals compares."""
    if strip:
        answer, expected = answer.strip(), expected.strip()
    return _fold(answer, ignore_case) == _fold(expected, ignore_case)


def not_equals(
    answer: str,
    expected: str,
    *,
    ignore_case: bool,
    strip: bool = True,
) -> bool:
    """The answer does not equal the expected text (compared as equals compares)."""
    return not equals(answer, expected, ignore_case=ignore_case, strip=strip)


_WHITESPACE = re.compile(r"\s+")
_ASCII_PUNCTUATION = str.maketrans("", "", "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _normalized(text: str) -> str:
    return _WHITESPACE.sub(" ", text.strip().lower())


def _without_punctuation(text: str) -> str:
    return _WHITESPACE.sub(" ", text.translate(_ASCII_PUNCTUATION)).strip()


def matches_exactly(answer: str, expected: str) -> bool:
    """evalflow's exact_match: equal after lowercasing and collapsing
    whitespace, or equal once ASCII punctuation is removed as well."""
    actual, wanted = _normalized(answer), _normalized(expected)
    if actual == wanted:
        return True
    return _without_punctuation(actual) == _without_punctuation(wanted)


def regex(answer: str, pattern: str, *, ignore_case: bool) -> bool:
    """`re.search(pattern, answer)` finds a match anywhere (Python's `re`
    syntax; `^` and `$` anchor the whole answer unless the pattern sets (?m))."""
    return re.search(pattern, answer, re.IGNORECASE if ignore_case else 0) is not None


def not_regex(answer: str, pattern: str, *, ignore_case: bool) -> bool:
    """`re.search(pattern, answer)` finds no match anywhere."""
    return not regex(answer, pattern, ignore_case=ignore_case)


def regex_count(answer: str, pattern: str, count: int) -> bool:
    """The pattern matches exactly `count` times, counted as JavaScript's `match`
    with the g flag counts them: left to right, never overlapping, an empty match
    moving one character on."""
    compiled, found, at = re.compile(pattern), 0, 0
    while at <= len(answer) and (match := compiled.search(answer, at)) is not None:
        found += 1
        at = match.end() + (match.end() == match.start())
    return found == count


def min_chars(answer: str, count: int) -> bool:
    """The answer has at least `count` characters (Unicode code points,
    whitespace included, nothing stripped)."""
    return len(answer) >= count


def max_chars(answer: str, count: int) -> bool:
    """The answer has at most `count` characters (as min_chars counts them)."""
    return len(answer) <= count


# Han, kana and Hangul are written without spaces between words: each such
# character counts as one word; any other run of non-space characters is one.
# (Kana and Han in the BMP, then Hangul and Han beyond the BMP.)
_KANA_HAN = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK = _KANA_HAN + "\uac00-\ud7af\U00020000-\U0003134f"
_WORD = re.compile(f"[{_CJK}]|[^\\s{_CJK}]+")


def words(answer: str) -> int:
    """How many words min_words and max_words count: runs of non-space
    characters, except that each Chinese, Japanese or Korean character
    (Han, Hiragana, Katakana, Hangul) counts as one word by itself."""
    return len(_WORD.findall(answer))


def min_words(answer: str, count: int) -> bool:
    """The answer has at least `count` words (see `words`)."""
    return words(answer) >= count


def max_words(answer: str, count: int) -> bool:
    """The answer has at most `count` words (see `words`)."""
    return words(answer) <= count


def in_order(
    answer: str,
    needles: str | Sequence[str],
    *,
    ignore_case: bool,
) -> bool:
    """Every needle occurs as plain text, each one starting after the end of
    the previous one's first occurrence that follows it."""
    text, start = _fold(answer, ignore_case), 0
    for needle in _texts(needles):
        found = text.find(_fold(needle, ignore_case), start)
        if found < 0:
            return False
        start = found + len(_fold(needle, ignore_case))
    return True


def is_json(answer: str, schema: str | None = None) -> bool:
    """The whole answer, surrounding whitespace removed, is one JSON value;
    with `schema` (a JSON Schema, as JSON text) it must also be valid against
    it (checked with jsonschema, draft taken from the schema's $schema)."""
    try:
        value = json.loads(answer, parse_constant=_not_json)
    except ValueError:  # not JSON (NaN is not), or past Python's digit limit
        return False
    if schema is None:
        return True
    import jsonschema

    parsed = json.loads(schema)
    return jsonschema.validators.validator_for(parsed)(parsed).is_valid(value)


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


def not_is_json(answer: str) -> bool:
    """The whole answer is not one JSON value (the opposite of is_json without a schema)."""
    return not is_json(answer)


def unwritten(criterion: str) -> bool:
    """A criterion nobody has turned into code yet. It always fails, so the
    suite stays red until a person replaces this call with a real check."""
    return False
