"""The generated check module: one plain Python file a team then owns.

Every text that comes from a source file reaches the module through exactly
two doors: `literal()` for code (a Python literal that evaluates back to the
same string) and `comment()` for comments (one `#` line per source line,
with anything that could end a line or hide text escaped). Nothing else
concatenates source text into code.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any

from .model import Case, Check, CheckKind, ImportResult, Note

HELPERS = '''\
from __future__ import annotations

import re
import string
from collections.abc import Callable

Check = Callable[[str], bool]
CHECKS: dict[str, list[tuple[str, Check]]] = {}


def check(case_id: str, criterion: str) -> Callable[[Check], Check]:
    """Register the function below as the check of one criterion of one case."""

    def register(function: Check) -> Check:
        CHECKS.setdefault(case_id, []).append((criterion, function))
        return function

    return register


def contains_any(answer: str, needles: list[str]) -> bool:
    """The answer mentions at least one needle (ignoring case)."""
    text = answer.casefold()
    return any(needle.casefold() in text for needle in needles)


def contains_all(answer: str, needles: list[str]) -> bool:
    """The answer mentions every needle (ignoring case)."""
    text = answer.casefold()
    return all(needle.casefold() in text for needle in needles)


def contains_none(answer: str, needles: list[str]) -> bool:
    """The answer mentions no needle (ignoring case)."""
    text = answer.casefold()
    return not any(needle.casefold() in text for needle in needles)


_WHITESPACE = re.compile(r"\\s+")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def _normalized(text: str) -> str:
    return _WHITESPACE.sub(" ", text.strip().lower())


def _without_punctuation(text: str) -> str:
    return _WHITESPACE.sub(" ", text.translate(_PUNCTUATION)).strip()


def matches_exactly(answer: str, expected: str) -> bool:
    """evalflow's exact_match: equal after lowercasing and collapsing
    whitespace, or equal once ASCII punctuation is removed as well."""
    actual, wanted = _normalized(answer), _normalized(expected)
    return actual == wanted or _without_punctuation(actual) == _without_punctuation(wanted)


def unwritten(criterion: str) -> bool:
    """A criterion nobody has turned into code yet. It always fails, so the
    suite stays red until a person replaces this call with a real check."""
    return False
'''

_RULE = "# " + "-" * 76


def literal(value: Any) -> str:
    """A Python literal for a string or a tuple/list of strings.

    `repr` escapes quotes, backslashes and every non-printable character
    (newlines, NUL, form feed, U+2028/U+2029/U+0085, lone surrogates), so the
    result is always one line that evaluates back to exactly `value`.
    """
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    raise TypeError(f"no literal for {type(value).__name__}")


def _escape_unprintable(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def comment(text: str, prefix: str = "# ") -> list[str]:
    """Comment lines for `text`: split on its own newlines, each line escaped."""
    return [(prefix + _escape_unprintable(line)).rstrip() for line in text.split("\n")]


def note_text(note: Note) -> str:
    value = json.dumps(note.value, ensure_ascii=False, default=str)
    return f"{note.key}: {value}"


_IDENT = re.compile(r"[^0-9a-zA-Z]+")


def function_names(cases: Iterable[Case]) -> dict[str, str]:
    """A stable, unique ASCII function stem for each case id."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for case in cases:
        stem = _IDENT.sub("_", case.id).strip("_").lower()
        if not stem or stem in taken or not stem.isascii():
            digest = hashlib.blake2s(case.id.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()
            stem = f"{stem}_{digest}" if stem else f"case_{digest}"
        taken.add(stem)
        names[case.id] = stem
    return names


def call(check: Check) -> str:
    """The expression that checks one criterion against `answer`."""
    if check.kind is CheckKind.UNWRITTEN:
        return f"unwritten({literal(check.args[0])})"
    return f"{check.kind.value}(answer, {literal(check.args[0])})"


def case_block(case: Case, stem: str) -> list[str]:
    lines = ["", "", _RULE, *comment(f"case {case.id}")]
    if case.origin:
        lines += comment(f"from {case.origin}")
    for item in case.notes:
        lines += comment(note_text(item))
        if item.remark:
            lines += comment(f"({item.remark})", prefix="#   ")
    for number, item in enumerate(case.checks, start=1):
        lines += [
            "",
            "",
            f"@check({literal(case.id)}, {literal(item.criterion)})",
            f"def check_{stem}_{number}(answer: str) -> bool:",
            f"    return {call(item)}",
        ]
    return lines


def header(result: ImportResult) -> str:
    about = [
        "Checks for the catalog beside this file, generated by adhd-evals.",
        "",
        f"Imported from {result.source} ({result.format}).",
        "Each function checks one criterion of one case against the model's answer and",
        "returns True when it passes; @check files it under the case id. A call to",
        "unwritten(...) is a criterion nobody has turned into code yet: it always fails,",
        "so the suite reads red until it is written. To finish this file, replace each",
        "unwritten(...) with a real check. Notes from the source are comments on each case.",
    ]
    body = "\n".join(_escape_unprintable(line) for line in about)
    return '"""' + body.replace("\\", "\\\\").replace('"""', '\\"\\"\\"') + '\n"""\n\n'


def render(result: ImportResult) -> str:
    names = function_names(result.cases)
    lines: list[str] = []
    for case in result.cases:
        lines += case_block(case, names[case.id])
    return header(result) + HELPERS + "\n".join(lines) + "\n"
