"""E107 risk-value: risk is low, medium or high.

Passing: `{"risk": "medium", ...}`
Failing: `{"risk": "severe", ...}` or `{"risk": "High", ...}`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...importing.model import RISKS
from ...problem import Problem
from ._position import column_of

ID = "E107"
NAME = "risk-value"
SEVERITY = "error"
DESCRIPTION = "a risk other than low, medium or high"


def check(row: Any, state: dict[str, Any]) -> Iterator[Problem]:
    if row.parsed and isinstance(row.value, dict) and "risk" in row.value:
        risk = row.value["risk"]
        if isinstance(risk, str) and risk not in RISKS:
            yield Problem(
                row.number, column_of(row.text, "risk"), ID, f'risk must be low, medium or high, not "{risk}"'
            )
