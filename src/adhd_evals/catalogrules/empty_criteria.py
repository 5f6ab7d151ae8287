"""E108 empty-criteria: criteria is a non-empty list, and no criterion is empty.

A case with no criterion cannot fail, so it can never tell a good answer from a
bad one.

Passing: `{"criteria": ["Answers 102."], ...}`
Failing: `{"criteria": [], ...}` or `{"criteria": ["Answers 102.", ""], ...}`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..problem import ERROR, Finding
from .contract import ROW, TEXTS, Field, Predicate, RowCheck, Run
from .position import column_of
from .row import Row

ID = "E108"
NAME = "empty-criteria"
SEVERITY = ERROR
SCOPE = ROW


def start(run: Run) -> RowCheck:
    return check  # nothing is remembered across rows


clean = Predicate(
    "type(row['criteria']) is list and row['criteria'] != [] and '' not in map(str.strip, row['criteria'])"
)
facts = (Field("criteria", TEXTS, nonblank=True, nonempty=True),)


def check(row: Row) -> Iterator[Finding]:
    if not (row.parsed and isinstance(row.value, dict)) or clean(row.value):
        return
    criteria = row.value.get("criteria")
    if criteria == []:
        yield Finding(row.number, column_of(row.text, "criteria"), "criteria is an empty list")
    elif isinstance(criteria, list):
        for index, item in enumerate(criteria):
            if isinstance(item, str) and not item.strip():
                yield Finding(
                    row.number, column_of(row.text, "criteria", index), f"criteria[{index}] is empty"
                )
