"""Check results and criterion verdicts as trial outcomes (one check's or criterion's result on
one case, trial and condition), and the sign test's verdict on them: what `audit` measures and
`run --stop-when-decided` decides on, read once here for both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple, TypeGuard

from ..inference import paired as stats
from ..rows import PairedVerdict, ResultRow, VerdictRow, field_problems, read_shaped, result_problems
from ..types import OutcomeKind as Kind

ALPHA = 1 - stats.exact(stats.LEVEL)  # 1/20, exactly: the sign test's level here and in curtail


def sign_verdict(n_plus: int, n_minus: int) -> PairedVerdict:
    """The exact two-sided sign test's verdict on n+ cases up and n− down (paired.sign_test):
    `better` when p < 0.05 and more went up, `worse` when p < 0.05 and more went down."""
    if n_plus == n_minus or not stats.sign_test(n_plus, n_minus).p < ALPHA:
        return "inconclusive"
    return "better" if n_plus > n_minus else "worse"


# what audit needs of a check result, beyond what the gate needs: whose trial it is
RESULT_IDENTITY = {"case_id": str, "trial": int, "criterion": str, "check": str}


class Outcome(NamedTuple):
    """One check's (or criterion's) result on one (case, trial, condition)."""

    kind: Kind
    case_id: str
    criterion: str
    check: str  # the check function's name; "" for a criterion
    condition: str
    trial: int
    status: str

    @property
    def passed(self) -> bool:
        return self.status == "pass"


def result_row_problems(row: Mapping[str, object]) -> list[str]:
    """A check result audit can place: the gate's fields and the trial's identity."""
    return result_problems(row) + field_problems(row, RESULT_IDENTITY)


def is_placed_result(row: Mapping[str, object]) -> TypeGuard[ResultRow]:
    return not result_row_problems(row)


def read_results(path: Path) -> list[ResultRow]:
    """`check --output` rows, each with its case, trial, criterion and check."""
    return read_shaped(path, is_placed_result, result_row_problems, what="check results file")


def check_outcomes(rows: Iterable[ResultRow]) -> list[Outcome]:
    return [
        Outcome(
            "check",
            str(row.get("case_id")),
            str(row.get("criterion")),
            str(row.get("check")),
            row["condition"],
            int(row.get("trial", 1)),
            row["status"],
        )
        for row in rows
    ]


def criterion_outcomes(rows: Iterable[VerdictRow]) -> list[Outcome]:
    return [
        Outcome("criterion", r["case_id"], r["criterion"], "", r["condition"], r["trial"], r["status"])
        for r in rows
    ]
