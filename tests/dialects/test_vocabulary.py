"""Every vocabulary helper on hand-computed cases: letter case, CJK, empty and
multi-line answers, needles holding regex metacharacters."""

from __future__ import annotations

import pytest

from adhd_evals.importing import vocabulary as v

MULTI = "First line\nSecond: Fixed the bug\n\nThird line ADDED"


@pytest.mark.parametrize(
    ("answer", "needle", "ignore_case", "expected"),
    [
        pytest.param("Hello World", "world", False, False, id="case-matters"),
        pytest.param("Hello World", "world", True, True, id="case-ignored"),
        pytest.param("STRASSE", "straße", True, True, id="casefold-not-lower"),
        pytest.param("", "x", True, False, id="empty-answer"),
        pytest.param("anything", "", False, True, id="empty-needle-is-in-every-text"),
        pytest.param("costs $5 (net)", "$5 (", False, True, id="metacharacters-are-plain-text"),
        pytest.param("a.c", "a.c", False, True, id="dot-is-a-dot"),
        pytest.param("abc", "a.c", False, False, id="dot-is-not-any-character"),
        pytest.param(MULTI, "Fixed the bug", False, True, id="multi-line"),
        pytest.param("東京は日本の首都", "日本", False, True, id="cjk"),
    ],
)
def test_contains(answer: str, needle: str, ignore_case: bool, expected: bool) -> None:
    assert v.contains(answer, needle, ignore_case=ignore_case) is expected


def test_contains_any_all_none() -> None:
    assert v.contains_any("Red fox", ["blue", "FOX"], ignore_case=True) is True
    assert v.contains_any("Red fox", ["blue", "FOX"], ignore_case=False) is False
    assert v.contains_all("Red fox", ["red", "fox"], ignore_case=True) is True
    assert v.contains_all("Red fox", ["red", "fox"], ignore_case=False) is False
    assert v.contains_none("Red fox", ["wolf", "(fox"], ignore_case=False) is True
    assert v.contains_none("Red fox", ["RED"], ignore_case=True) is False
    assert v.contains_any("", ["a"], ignore_case=True) is False
    assert v.contains_none("", ["a"], ignore_case=True) is True
    # A single string where a list is expected is a one-item list, not its characters.
    assert v.contains_all("ab", "ba", ignore_case=False) is False
    assert v.contains_any("xyz", "ab", ignore_case=False) is False


def test_starts_with_and_equals() -> None:
    assert v.starts_with("  \nYes, it is", "Yes", ignore_case=False) is True
    assert v.starts_with("yes, it is", "Yes", ignore_case=False) is False
    assert v.starts_with("yes, it is", "Yes", ignore_case=True) is True
    assert v.starts_with("", "Y", ignore_case=True) is False
    assert v.equals("  One line.\n", "One line.", ignore_case=False) is True
    assert v.equals("one line.", "One line.", ignore_case=False) is False
    assert v.equals("one line.", "One line.", ignore_case=True) is True
    assert v.equals("One  line.", "One line.", ignore_case=True) is False  # inner spaces count
    assert v.equals("", "", ignore_case=False) is True


def test_matches_exactly_is_evalflows() -> None:
    assert v.matches_exactly("  Paris!\n", "paris") is True
    assert v.matches_exactly("The  answer is\tParis", "the answer is paris") is True
    assert v.matches_exactly("Paris, France", "Paris") is False


def test_regex_and_not_regex_search_anywhere() -> None:
    assert v.regex(MULTI, r"Fixed \w+", ignore_case=False) is True
    assert v.regex(MULTI, r"^Second", ignore_case=False) is False  # ^ is the start of the answer
    assert v.regex(MULTI, r"(?m)^Second", ignore_case=False) is True
    assert v.regex(MULTI, r"added$", ignore_case=False) is False
    assert v.regex(MULTI, r"added$", ignore_case=True) is True
    assert v.not_regex("", r"\d", ignore_case=False) is True
    assert v.not_regex("v2", r"\d", ignore_case=False) is False


def test_char_counts_are_code_points() -> None:
    assert v.min_chars("東京", 2) is True
    assert v.min_chars("東京", 3) is False
    assert v.max_chars("a\nb", 3) is True  # the newline counts
    assert v.max_chars("a\nb ", 3) is False  # nothing is stripped
    assert v.min_chars("", 0) is True
    assert v.min_chars("", 1) is False


@pytest.mark.parametrize(
    ("answer", "count"),
    [
        pytest.param("", 0, id="empty"),
        pytest.param("one two  three\nfour", 4, id="latin-whitespace"),
        pytest.param("東京は日本の首都です", 10, id="each-cjk-character-a-word"),
        pytest.param("Tokyo は 日本", 4, id="mixed"),
        pytest.param("안녕 하세요", 5, id="hangul-syllables"),
        pytest.param("don't stop-now", 2, id="punctuation-inside-a-word"),
    ],
)
def test_words(answer: str, count: int) -> None:
    assert v.words(answer) == count
    assert v.min_words(answer, count) is True
    assert v.min_words(answer, count + 1) is False
    assert v.max_words(answer, count) is True
    assert v.max_words(answer, count - 1) is (count - 1 >= count)


def test_in_order() -> None:
    assert v.in_order("Added x. Fixed y.", ["Added", "Fixed"], ignore_case=False) is True
    assert v.in_order("Fixed y. Added x.", ["Added", "Fixed"], ignore_case=False) is False
    assert v.in_order("Fixed y. Added x. Fixed z.", ["Added", "Fixed"], ignore_case=False) is True
    assert v.in_order("aa", ["a", "a"], ignore_case=False) is True
    assert v.in_order("a", ["a", "a"], ignore_case=False) is False  # each after the previous one's end
    assert v.in_order("added\nFIXED", ["Added", "Fixed"], ignore_case=True) is True
    assert v.in_order("", ["a"], ignore_case=True) is False


def test_is_json_with_and_without_schema() -> None:
    assert v.is_json(' {"version": "2.0"}\n') is True
    assert v.is_json("Here it is: {}") is False
    assert v.is_json("") is False
    assert v.is_json("1" * 5000) is False  # past Python's digit limit: not a traceback
    schema = '{"type": "object", "required": ["version"]}'
    assert v.is_json('{"version": "2.0"}', schema) is True
    assert v.is_json('{"name": "x"}', schema) is False
    assert v.is_json("[1]", schema) is False


def test_unwritten_always_fails() -> None:
    assert v.unwritten("anything") is False
