"""E108 empty-criteria: criteria is a non-empty list, and no criterion is empty.

A case with no criterion cannot fail, so it can never tell a good answer from a
bad one.

Passing: `{"criteria": ["Answers 102."], ...}`
Failing: `{"criteria": [], ...}` or `{"criteria": ["Answers 102.", ""], ...}`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..problem import ERROR, Finding
from .contract import ROW, RowCheck, Run
from .position import column_of
from .row import Row

ID = "E108"
NAME = "empty-criteria"
SEVERITY = ERROR
SCOPE = ROW


def start(run: Run) -> RowCheck:
    return check  # nothing is remembered across rows


def clean(row: dict[str, Any]) -> bool:
    criteria = row.get("criteria")
    if type(criteria) is not list:
        return True
    return bool(criteria) and not any(type(item) is str and not item.strip() for item in criteria)


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
