"""The helpers of a module imported without a dialect (checkhelpers.py) are one text and one
meaning: the text every such module carries is the module's own, and each helper sharing a
name with the dialect vocabulary (vocabulary.py) agrees with it on every input."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.importing import checkgen, checkhelpers, vocabulary
from adhd_evals.importing.importer import import_source
from helpers import FIXTURES

EXAMPLES = int(os.environ.get("ADHD_EVALS_FUZZ", "200"))

# Worked by hand from the two files: checkhelpers defines check, contains_any/all/none,
# matches_exactly and unwritten publicly; vocabulary defines all six among its checks.
SHARED = {"check", "contains_any", "contains_all", "contains_none", "matches_exactly", "unwritten"}
CONTAINS = ("contains_any", "contains_all", "contains_none")


def _public_functions(module: Any) -> set[str]:
    return {
        name
        for name, value in vars(module).items()
        if inspect.isfunction(value) and not name.startswith("_") and value.__module__ == module.__name__
    }


def test_the_shared_names_are_the_ones_counted_by_hand() -> None:
    """Every public helper of checkhelpers is a vocabulary function too (a new one would be a
    name whose meaning is tested nowhere below)."""
    assert _public_functions(checkhelpers) == SHARED
    assert _public_functions(checkhelpers) <= _public_functions(vocabulary)


@pytest.mark.parametrize("name", sorted(SHARED))
def test_shared_helpers_take_the_same_arguments(name: str) -> None:
    """Any call one accepts, the other accepts: same parameters, kinds and defaults."""
    mine, theirs = getattr(checkhelpers, name), getattr(vocabulary, name)
    assert inspect.signature(mine) == inspect.signature(theirs)


def test_the_embedded_helpers_are_the_module_text() -> None:
    """checkgen.HELPERS is checkhelpers.py from the line after its docstring, byte for byte,
    and a module imported without a dialect carries it right after its header (then two blank
    lines, as formatters put them before the comment that is the preamble's marker)."""
    text = Path(checkhelpers.__file__).read_text(encoding="utf-8")
    assert text.split('"""\n\n', 1)[1] == checkgen.HELPERS
    module = import_source("yaml", FIXTURES / "yaml/good/single-file/tasks/pip_install.yaml").module
    assert '\n"""\n\n' + checkgen.HELPERS.rstrip("\n") + "\n\n\n# adhd-evals: preamble - " in module


def test_the_embedded_helpers_run_as_the_module_does() -> None:
    """Executed as a check module executes them, the helpers are the module's functions."""
    namespace: dict[str, Any] = {}
    exec(compile(checkgen.HELPERS, "checks.py", "exec"), namespace)
    for name in SHARED:
        assert inspect.getsource(getattr(checkhelpers, name)) in checkgen.HELPERS
        assert inspect.signature(namespace[name]) == inspect.signature(getattr(checkhelpers, name))


def test_a_single_string_is_one_needle() -> None:
    """By hand: "ba" is one needle, and "ab" does not contain "ba" (read as its letters, b and
    a, it would: the old helpers' answer). So any: no; all: no; none: yes."""
    for module in (checkhelpers, vocabulary):
        assert module.contains_any("ab", "ba") is False
        assert module.contains_all("ab", "ba") is False
        assert module.contains_none("ab", "ba") is True
        assert module.contains_any("xbay", "ba") is True


# Text where letter case and Unicode make comparisons hard: casefold's expansions (ß -> ss,
# ﬁ -> fi), the Kelvin sign, final and capital sigma, dotted I, combining marks, a lone
# surrogate, line breaks other than \n, and ASCII punctuation (matches_exactly drops it).
_HARD = ["a", "A", "b", "B", "\u00df", "SS", "ss", "\ufb01", "FI", "\u212a", "k", "K"]
_HARD += ["\u03c3", "\u03c2", "\u03a3", "\u0130", "i\u0307", "\u00e9", "e\u0301"]
_HARD += [" ", "\t", "\n", "\u2028", "\x85", ".", ",", "!", "-", "'", "\ud800", "😀"]
_pieces = st.lists(st.sampled_from(_HARD), max_size=8).map("".join)
texts = st.one_of(_pieces, st.text(max_size=12))


@st.composite
def answers_and_needles(draw: st.DrawFn) -> tuple[str, str | Sequence[str]]:
    """An answer and needles: often slices of the answer (overlapping each other), sometimes
    empty needles or none at all; a bare string, a list or a tuple."""
    answer = draw(texts)

    def needle() -> str:
        if answer and draw(st.booleans()):
            start = draw(st.integers(0, len(answer)))
            end = draw(st.integers(start, len(answer)))
            cut = answer[start:end]
            return cut.swapcase() if draw(st.booleans()) else cut
        return draw(texts)

    count = draw(st.integers(0, 4))
    found = [needle() for _ in range(count)]
    shape = draw(st.sampled_from(["string", "list", "tuple"]))
    if shape == "string":
        return answer, needle()
    return answer, found if shape == "list" else tuple(found)


def _call(function: Callable[..., bool], args: tuple[Any, ...], options: dict[str, bool]) -> Any:
    try:
        return function(*args, **options)
    except Exception as error:  # both must refuse the same inputs the same way
        return type(error)


@pytest.mark.long
@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn=answers_and_needles(), ignore_case=st.sampled_from([None, True, False]))
def test_contains_helpers_agree_with_the_vocabulary(
    drawn: tuple[str, str | Sequence[str]], ignore_case: bool | None
) -> None:
    options = {} if ignore_case is None else {"ignore_case": ignore_case}
    for name in CONTAINS:
        mine = _call(getattr(checkhelpers, name), drawn, options)
        theirs = _call(getattr(vocabulary, name), drawn, options)
        assert mine == theirs, (name, drawn, options)


@pytest.mark.long
@settings(max_examples=EXAMPLES, deadline=None)
@given(answer=texts, expected=texts)
def test_matches_exactly_agrees_with_the_vocabulary(answer: str, expected: str) -> None:
    assert checkhelpers.matches_exactly(answer, expected) == vocabulary.matches_exactly(answer, expected)


@pytest.mark.long
@settings(max_examples=EXAMPLES, deadline=None)
@given(
    expected=texts, spaces=st.sampled_from(["", " ", "  ", "\t", "\n "]), mark=st.sampled_from(".,!?;:'\"-")
)
def test_matches_exactly_agrees_on_near_misses(expected: str, spaces: str, mark: str) -> None:
    """The answers exact_match is about: the expected text shouted, padded, punctuated."""
    for answer in (expected.upper(), spaces + expected + spaces, expected + mark, mark + expected.title()):
        assert checkhelpers.matches_exactly(answer, expected) == vocabulary.matches_exactly(answer, expected)


@given(criterion=texts)
def test_unwritten_agrees_with_the_vocabulary(criterion: str) -> None:
    assert checkhelpers.unwritten(criterion) is vocabulary.unwritten(criterion) is False


def test_check_registers_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both decorators return the function itself and file (criterion, function) under the
    case id, in order."""
    for module in (checkhelpers, vocabulary):
        monkeypatch.setattr(module, "CHECKS", {})

        def first(answer: str) -> bool:
            return True

        def second(answer: str) -> bool:
            return False

        assert module.check("case-1", "one")(first) is first
        assert module.check("case-1", "two")(second) is second
        registered = module.CHECKS
        assert registered == {"case-1": [("one", first), ("two", second)]}
