"""E105 empty-id: id, category and prompt are non-empty strings (not blank).

An empty id cannot be searched for or paired across runs; an empty category or
prompt sends nothing meaningful to the model.

Passing: `{"id": "direct-answer", ...}`
Failing: `{"id": "", ...}` or `{"id": "  ", ...}`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..problem import ERROR, Finding
from ..schema import TEXT_FIELDS
from .contract import ROW, TEXT, Field, Predicate, RowCheck, Run
from .position import column_of
from .row import Row

ID = "E105"
NAME = "empty-id"
SEVERITY = ERROR
SCOPE = ROW


def start(run: Run) -> RowCheck:
    return check  # nothing is remembered across rows


clean = Predicate(" and ".join(f"row[{name!r}].strip() != ''" for name in TEXT_FIELDS))
facts = tuple(Field(name, TEXT, nonblank=True) for name in TEXT_FIELDS)


def check(row: Row) -> Iterator[Finding]:
    if not (row.parsed and isinstance(row.value, dict)) or clean(row.value):
        return
    for name in TEXT_FIELDS:
        value = row.value.get(name)
        if isinstance(value, str) and not value.strip():
            yield Finding(row.number, column_of(row.text, name), f"{name} is empty")
