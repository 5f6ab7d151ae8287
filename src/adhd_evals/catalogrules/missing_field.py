"""E103 missing-field: a case has all five fields (id, category, prompt, risk, criteria).

The runner, the scorer and i-have-adhd's validator each need all five; a case
without one is refused or silently skipped downstream.

Passing: `{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}`
Failing: `{"id": "a", "category": "c", "turns": ["hi"], "risk": "low", "criteria": ["x"]}`
(no `prompt`).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..problem import ERROR, Finding
from ..schema import FIELDS
from .contract import ROW, Field, Predicate, RowCheck, Run
from .row import Row

ID = "E103"
NAME = "missing-field"
SEVERITY = ERROR
SCOPE = ROW
clean = Predicate("row.keys() >= FIELD_SET", FIELD_SET=frozenset(FIELDS))
facts = tuple(Field(name) for name in FIELDS)


def start(run: Run) -> RowCheck:
    return check  # nothing is remembered across rows


def check(row: Row) -> Iterator[Finding]:
    if row.parsed and isinstance(row.value, dict) and not clean(row.value):
        missing = [name for name in FIELDS if name not in row.value]
        if missing:
            yield Finding(row.number, 1, f"missing fields: {', '.join(missing)}")
