"""E109 duplicate-key: a key appears twice in one JSON object.

JSON readers disagree on which value wins, so the case means different
things to different tools.

Passing: `{"id": "a", "prompt": "p", ...}`
Failing: `{"id": "a", "prompt": "p", "prompt": "q", ...}`
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from ..problem import ERROR, Finding
from .contract import ROW, RowCheck, Run
from .row import Row

ID = "E109"
NAME = "duplicate-key"
SEVERITY = ERROR
SCOPE = ROW
facts = ()  # the line pattern admits only what the strict parse does (linepattern.py)
clean = None  # the fast path parses with duplicate keys refused


def start(run: Run) -> RowCheck:
    return check  # nothing is remembered across rows


def check(row: Row) -> Iterator[Finding]:
    if row.duplicate_key is not None and row.text is not None:
        column = _second_occurrence(row.text, row.duplicate_key)
        yield Finding(row.number, column, f'duplicate key "{row.duplicate_key}" in one object')


def _second_occurrence(text: str, key: str) -> int:
    quoted = json.dumps(key)
    first = text.find(quoted)
    second = text.find(quoted, first + 1) if first >= 0 else -1
    return (second if second >= 0 else max(first, 0)) + 1
