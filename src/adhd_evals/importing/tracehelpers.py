"""The trace checks of a check module: what the model did, not what it said.

This file is real code (linted, type-checked, imported by the tests) and is
also copied, below this docstring, into every check module that has a trace
check (after its other helpers). Keep it self-contained (standard library
only, no `from __future__` import: it is not the top of the module) and laid
out as black and ruff format lay it out.

`adhd-evals check` sets `TRACE` to each response row's trace before running
that row's checks (docs/traces.md has its shape). A trace check on a row
without a trace raises NoTrace, which `check` records as an error: a runner
that records no tool calls can neither pass nor fail one.
"""

import fnmatch
import json
import re
from collections.abc import Sequence
from typing import Any

TRACE: Any = None  # the trace of the response being checked; `check` sets it per row


class NoTrace(Exception):
    """A trace check on a response whose runner records no tool calls."""


def _trace_list(key: str, item: type) -> list[Any]:
    if TRACE is None:
        raise NoTrace("this runner records no tool calls")
    found = TRACE.get(key) if isinstance(TRACE, dict) else None
    if not isinstance(found, list) or not all(isinstance(x, item) for x in found):
        raise ValueError(f"the response's trace has no {key} list of {item.__name__}")
    return found


_NAMED_GROUP = re.compile("[?]<(?![=!])")  # after "(": a named group, not a lookbehind
_JS_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def _js_regex(pattern: str) -> "re.Pattern[str]":
    """A JavaScript regular expression (no flags) as Python reads the same: `\\d`, `\\w`
    and `\\b` ASCII-only, `\\s` JavaScript's whitespace, `.` no line terminator, `$` the
    very end, named groups `(?<name>...)` and `\\k<name>`; what differs otherwise
    raises re.error."""
    out, at, in_class = [], 0, False
    while at < len(pattern):
        piece, at, in_class = _js_piece(pattern, at, in_class)
        out.append(piece)
    return re.compile("".join(out), re.ASCII)


def _js_piece(pattern: str, at: int, in_class: bool) -> tuple[str, int, bool]:
    """The piece of `pattern` at `at` (a character, or an escape) in Python's words,
    where the next piece begins, and whether that is inside a class."""
    piece = pattern[at : at + 2] if pattern[at] == "\\" else pattern[at]
    at += len(piece)
    if piece in ("\\s", "\\S"):
        return _js_space(pattern, piece, in_class), at, in_class
    if in_class:
        return piece, at, piece != "]"
    return _js_outside(pattern, piece, at)


def _js_space(pattern: str, piece: str, in_class: bool) -> str:
    """`\\s` or `\\S` as JavaScript's whitespace (Python's differs)."""
    if piece == "\\s":
        return _JS_SPACE if in_class else "[" + _JS_SPACE + "]"
    if in_class:  # no class can say "not JavaScript's whitespace" inside another
        raise re.error(f"{pattern!r}: \\S inside a class")
    return "[^" + _JS_SPACE + "]"


def _js_outside(pattern: str, piece: str, at: int) -> tuple[str, int, bool]:
    """A piece outside a class (the `at` after it): a named backreference or group, a
    class opening, `.` or `$` written as JavaScript reads them, or itself."""
    if piece == "\\k" and pattern[at : at + 1] == "<" and ">" in pattern[at:]:
        end = pattern.index(">", at)  # a named backreference, \k<name>
        return f"(?P={pattern[at + 1 : end]})", end + 1, False
    if piece == "[":
        if pattern[at : at + 1] == "]" or pattern[at : at + 2] == "^]":
            raise re.error(f"{pattern!r}: [] or [^], which Python reads otherwise")
        return piece, at, True
    if piece in ".$":
        return ("[^\n\r\u2028\u2029]" if piece == "." else r"\Z"), at, False
    if piece == "(" and _NAMED_GROUP.match(pattern, at):
        return "(?P<", at + 2, False
    return piece, at, False


def _encoded(value: Any) -> str:
    """The input as JavaScript's JSON.stringify writes it: no spaces, no escaped letters."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _calls_of(tool: str, input_match: str | None) -> list[int]:
    """The positions of the calls of `tool` (its exact name) whose JSON-encoded input
    `input_match` finds (a JavaScript regular expression, as plugin eval reads it)."""
    found = _js_regex(input_match) if input_match is not None else None
    return [
        at
        for at, call in enumerate(_trace_list("tool_calls", dict))
        if call.get("name") == tool
        and (found is None or found.search(_encoded(call.get("input"))) is not None)
    ]


def tool_used(
    tool: str,
    input_match: str | None = None,
    min: int = 1,
    max: int | None = None,
) -> bool:
    """The run called `tool` (with an input `input_match` finds) at least `min` times
    and, unless `max` is None, at most `max` times: `max=0` means never."""
    count = len(_calls_of(tool, input_match))
    return count >= min and (max is None or count <= max)


def _first(step: str | Sequence[str]) -> int | None:
    """A step is a tool's name, or [name, input_match]; None: never called so."""
    name, pattern = (step, None) if isinstance(step, str) else (step[0], step[1])
    return next(iter(_calls_of(name, pattern)), None)


def tool_order(before: str | Sequence[str], after: str | Sequence[str]) -> bool:
    """The first call of `before` comes before the first call of `after` (each a tool's
    name, or [name, input_match]); False when either was never called."""
    first, then = _first(before), _first(after)
    return first is not None and then is not None and first < then


def file_created(glob: str, exists: bool = True) -> bool:
    """A file the run created matches `glob` (fnmatch: `*` also crosses `/`), its path
    taken whole or with leading folders removed; `exists=False`: no such file was."""
    paths = _trace_list("files_created", str)
    tails = [p.split("/")[at:] for p in paths for at in range(len(p.split("/")))]
    found = any(fnmatch.fnmatchcase("/".join(tail), glob) for tail in tails)
    return found if exists else not found
