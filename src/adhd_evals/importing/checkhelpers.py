"""The helpers of a check module imported without a dialect, defined once.

This file is real code (linted, type-checked, imported by the tests) and is
also the preamble of every check module imported without a dialect:
everything below this docstring is copied into the module verbatim
(`checkgen.HELPERS`). Keep it self-contained (standard library only) and laid
out as black and ruff format lay it out at their default line length (88), so
a team's formatter leaves a generated module unchanged.

Each helper here that shares a name with the dialect vocabulary
(vocabulary.py) means exactly what the vocabulary's does, on every input
(tests/test_checkhelpers.py checks it): a check keeps its meaning when a
dialect arrives, and a person reading either module reads one set of rules.
Changing the text below changes every module's preamble: keep the text the
version before wrote in released/ so a re-import still recognises it, and
note the change in docs/check-module-format.md.
"""

from __future__ import annotations

import re
import string
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


def _needles(needles: str | Sequence[str]) -> list[str]:
    """A single string is one needle (never its characters one by one)."""
    return [needles] if isinstance(needles, str) else list(needles)


def contains_any(
    answer: str,
    needles: str | Sequence[str],
    *,
    ignore_case: bool = True,
) -> bool:
    """The answer mentions at least one needle (ignoring case, unless told not to)."""
    text = _fold(answer, ignore_case)
    return any(_fold(needle, ignore_case) in text for needle in _needles(needles))


def contains_all(
    answer: str,
    needles: str | Sequence[str],
    *,
    ignore_case: bool = True,
) -> bool:
    """The answer mentions every needle (ignoring case, unless told not to)."""
    text = _fold(answer, ignore_case)
    return all(_fold(needle, ignore_case) in text for needle in _needles(needles))


def contains_none(
    answer: str,
    needles: str | Sequence[str],
    *,
    ignore_case: bool = True,
) -> bool:
    """The answer mentions no needle (ignoring case, unless told not to)."""
    text = _fold(answer, ignore_case)
    return not any(_fold(needle, ignore_case) in text for needle in _needles(needles))


_WHITESPACE = re.compile(r"\s+")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def _normalized(text: str) -> str:
    return _WHITESPACE.sub(" ", text.strip().lower())


def _without_punctuation(text: str) -> str:
    return _WHITESPACE.sub(" ", text.translate(_PUNCTUATION)).strip()


def matches_exactly(answer: str, expected: str) -> bool:
    """evalflow's exact_match: equal after lowercasing and collapsing
    whitespace, or equal once ASCII punctuation is removed as well."""
    actual, wanted = _normalized(answer), _normalized(expected)
    if actual == wanted:
        return True
    return _without_punctuation(actual) == _without_punctuation(wanted)


def unwritten(criterion: str) -> bool:
    """A criterion nobody has turned into code yet. It always fails, so the
    suite stays red until a person replaces this call with a real check."""
    return False
