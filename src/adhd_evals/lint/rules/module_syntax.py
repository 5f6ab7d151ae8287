"""E111 module-syntax: a check module must be valid Python (and UTF-8).

A module Python cannot parse cannot run a single check: `adhd-evals check` stops
at it, and a re-import cannot merge into it.

Passing: the module as `adhd-evals import` wrote it.
Failing: `def check_a_1(answer: str) -> bool:` followed by `return (`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...problem import ERROR, Finding
from ._contract import MODULE, ModuleRead

ID = "E111"
NAME = "module-syntax"
SEVERITY = ERROR
SCOPE = MODULE


def check(module: ModuleRead) -> Iterator[Finding]:
    if module.error is not None:
        yield _finding(module.error)


def _finding(exc: Exception) -> Finding:
    """Why a module has no syntax tree, where Python says it."""
    if isinstance(exc, OSError):  # not a regular file, past --max-bytes, or unreadable
        return Finding(1, 1, f"cannot be read: {exc.strerror or exc}")
    if isinstance(exc, UnicodeDecodeError):  # before ValueError: it is one
        return Finding(1, 1, f"not UTF-8: invalid byte at offset {exc.start}")
    if isinstance(exc, SyntaxError):
        return Finding(exc.lineno or 1, exc.offset or 1, f"syntax error: {exc.msg}")
    if isinstance(exc, ValueError):  # a NUL byte
        return Finding(1, 1, f"cannot parse: {exc}")
    return Finding(1, 1, "cannot parse: an expression nested too deeply for Python's parser")
