"""E106 duplicate-id: no two cases share an id. Points at both lines.

Responses, scores and checks are paired by case id: two cases with one id mix
their results.

Passing: ids `a`, `b`.
Failing: ids `a`, `b`, `a` (line 3 repeats line 1).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...problem import ERROR, Finding
from ._position import column_of
from ._row import Row

ID = "E106"
NAME = "duplicate-id"
SEVERITY = ERROR


def check(row: Row, state: dict[str, Any]) -> Iterator[Finding]:
    if not (row.parsed and isinstance(row.value, dict)):
        return
    case_id = row.value.get("id")
    if not isinstance(case_id, str) or not case_id:
        return
    seen: dict[str, int] = state.setdefault("seen", {})
    if case_id in seen:
        yield Finding(
            row.number,
            column_of(row.text, "id"),
            f'duplicate id "{case_id}": line {seen[case_id]} has it too',
        )
    else:
        seen[case_id] = row.number
