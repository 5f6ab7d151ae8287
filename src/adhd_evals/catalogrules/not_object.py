"""E102 not-object: every catalog line is a JSON object.

Every tool reads a case by its keys; a bare string or list has none.

Passing: `{"id": "a", ...}`
Failing: `["a", "b"]` or `"a case"`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..problem import ERROR, Finding
from .contract import ROW, RowCheck, Run
from .row import Row

ID = "E102"
NAME = "not-object"
SEVERITY = ERROR
SCOPE = ROW
facts = ()  # the line pattern admits only what the strict parse does (linepattern.py)
clean = None  # the fast path admits only objects


def start(run: Run) -> RowCheck:
    return check  # nothing is remembered across rows


def check(row: Row) -> Iterator[Finding]:
    if row.parsed and not isinstance(row.value, dict):
        yield Finding(row.number, 1, "expected a JSON object")
