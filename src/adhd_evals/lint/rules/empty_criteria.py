"""E108 empty-criteria: criteria is a non-empty list, and no criterion is empty.

Passing: `{"criteria": ["Answers 102."], ...}`
Failing: `{"criteria": [], ...}` or `{"criteria": ["Answers 102.", ""], ...}`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...problem import Problem
from ._position import column_of

ID = "E108"
NAME = "empty-criteria"
SEVERITY = "error"
DESCRIPTION = "an empty criteria list, or an empty criterion"


def check(row: Any, state: dict[str, Any]) -> Iterator[Problem]:
    if not (row.parsed and isinstance(row.value, dict)):
        return
    criteria = row.value.get("criteria")
    if criteria == []:
        yield Problem(row.number, column_of(row.text, "criteria"), ID, "criteria is an empty list")
    elif isinstance(criteria, list):
        for index, item in enumerate(criteria):
            if isinstance(item, str) and not item.strip():
                yield Problem(row.number, column_of(row.text, "criteria"), ID, f"criteria[{index}] is empty")
