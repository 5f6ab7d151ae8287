"""E106 duplicate-id: no two cases share an id. Points at both lines.

Passing: ids `a`, `b`.
Failing: ids `a`, `b`, `a` (line 3 repeats line 1).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...problem import Problem
from ._position import column_of

ID = "E106"
NAME = "duplicate-id"
SEVERITY = "error"
DESCRIPTION = "an id that an earlier case already has"


def check(row: Any, state: dict[str, Any]) -> Iterator[Problem]:
    if not (row.parsed and isinstance(row.value, dict)):
        return
    case_id = row.value.get("id")
    if not isinstance(case_id, str) or not case_id:
        return
    seen: dict[str, int] = state.setdefault("seen", {})
    if case_id in seen:
        yield Problem(
            row.number,
            column_of(row.text, "id"),
            ID,
            f'duplicate id "{case_id}": line {seen[case_id]} has it too',
        )
    else:
        seen[case_id] = row.number
