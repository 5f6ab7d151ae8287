"""E111 module-syntax: a check module must be valid Python (and UTF-8).

Passing: the module as `adhd-evals import` wrote it.
Failing: `def check_a_1(answer: str) -> bool:` followed by `return (`.
"""

from __future__ import annotations

from ...problem import Problem

ID = "E111"
NAME = "module-syntax"
SEVERITY = "error"
DESCRIPTION = "a check module that Python cannot parse"


def from_error(exc: SyntaxError) -> Problem:
    return Problem(exc.lineno or 1, exc.offset or 1, ID, f"syntax error: {exc.msg}")
