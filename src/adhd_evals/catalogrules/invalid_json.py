"""E101 invalid-json: every non-blank catalog line is one JSON value.

A line no JSON reader can parse is a case no tool can run; every reader skips or
stops at it differently.

Passing: `{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}`
Failing: `{"id": "a",` (the decoder's message and column are reported).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..problem import ERROR, Finding
from .contract import ROW, RowCheck, Run
from .row import Row

ID = "E101"
NAME = "invalid-json"
SEVERITY = ERROR
SCOPE = ROW
facts = ()  # the line pattern admits only what the strict parse does (linepattern.py)
clean = None  # a line that does not parse never reaches the fast path


def start(run: Run) -> RowCheck:
    return check  # nothing is remembered across rows


def check(row: Row) -> Iterator[Finding]:
    if row.parse_error is not None:
        yield Finding(row.number, row.parse_column, f"invalid JSON: {row.parse_error}")
