"""E103 missing-field: a case has all five fields (id, category, prompt, risk, criteria).

Passing: `{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}`
Failing: `{"id": "a", "category": "c", "turns": ["hi"], "risk": "low", "criteria": ["x"]}`
(no `prompt`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...importing.model import FIELDS
from ...problem import Problem

ID = "E103"
NAME = "missing-field"
SEVERITY = "error"
DESCRIPTION = "a case without one of id, category, prompt, risk, criteria"


def check(row: Any, state: dict[str, Any]) -> Iterator[Problem]:
    if row.parsed and isinstance(row.value, dict):
        missing = [name for name in FIELDS if name not in row.value]
        if missing:
            yield Problem(row.number, 1, ID, f"missing fields: {', '.join(missing)}")
