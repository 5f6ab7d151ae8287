"""E111 module-syntax: a check module must be valid Python (and UTF-8).

A module Python cannot parse cannot run a single check: `adhd-evals check` stops
at it, and a re-import cannot merge into it.

Passing: the module as `adhd-evals import` wrote it.
Failing: `def check_a_1(answer: str) -> bool:` followed by `return (`.
"""

from __future__ import annotations

from ...problem import ERROR, Finding

ID = "E111"
NAME = "module-syntax"
SEVERITY = ERROR


def from_error(exc: SyntaxError) -> Finding:
    return Finding(exc.lineno or 1, exc.offset or 1, f"syntax error: {exc.msg}")
