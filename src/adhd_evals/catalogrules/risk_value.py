"""E107 risk-value: risk is low, medium or high.

Risk decides how a case is weighed in a release review; a value outside the
three the validator knows is refused there.

Passing: `{"risk": "medium", ...}`
Failing: `{"risk": "severe", ...}` or `{"risk": "High", ...}`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..problem import ERROR, Finding
from ..schema import RISKS
from .contract import ROW, TEXT, Field, Predicate, RowCheck, Run
from .position import column_of
from .row import Row

ID = "E107"
NAME = "risk-value"
SEVERITY = ERROR
SCOPE = ROW


def start(run: Run) -> RowCheck:
    return check  # nothing is remembered across rows


clean = Predicate("row['risk'] in RISKS", RISKS=RISKS)
facts = (Field("risk", TEXT, among=RISKS),)


def check(row: Row) -> Iterator[Finding]:
    if row.parsed and isinstance(row.value, dict) and not clean(row.value):
        risk = row.value.get("risk")
        if isinstance(risk, str) and risk not in RISKS:
            yield Finding(
                row.number, column_of(row.text, "risk"), f'risk must be low, medium or high, not "{risk}"'
            )
