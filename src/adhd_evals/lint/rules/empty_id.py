"""E105 empty-id: a case id is a non-empty string.

Passing: `{"id": "direct-answer", ...}`
Failing: `{"id": "", ...}` or `{"id": "  ", ...}`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...importing.model import TEXT_FIELDS
from ...problem import Problem
from ._position import column_of

ID = "E105"
NAME = "empty-id"
SEVERITY = "error"
DESCRIPTION = "an id, category or prompt that is an empty string"


def check(row: Any, state: dict[str, Any]) -> Iterator[Problem]:
    if not (row.parsed and isinstance(row.value, dict)):
        return
    for name in TEXT_FIELDS:
        value = row.value.get(name)
        if isinstance(value, str) and not value.strip():
            yield Problem(row.number, column_of(row.text, name), ID, f"{name} is empty")
