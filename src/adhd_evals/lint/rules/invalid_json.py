"""E101 invalid-json: every non-blank catalog line is one JSON value.

Passing: `{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}`
Failing: `{"id": "a",` (the decoder's message and column are reported).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...problem import Problem

ID = "E101"
NAME = "invalid-json"
SEVERITY = "error"
DESCRIPTION = "a line that is not valid JSON"


def check(row: Any, state: dict[str, Any]) -> Iterator[Problem]:
    if row.parse_error is not None:
        yield Problem(row.number, row.parse_column, ID, f"invalid JSON: {row.parse_error}")
