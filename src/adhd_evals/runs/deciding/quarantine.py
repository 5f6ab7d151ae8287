"""The quarantine list `audit --quarantine-out` writes (the flaky checks and criteria), as
`score --quarantine` reads it back: which check results it sets aside for the second verdict,
and the line that says the verdict with them stands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from ...text import plural
from ..rows import QuarantineRow, ResultRow, field_problems, read_shaped

if TYPE_CHECKING:
    from ..rows import QuarantineJson

QUARANTINE_FIELDS: dict[str, type] = {"kind": str, "case_id": str, "criterion": str}


CHECK_FIELD: dict[str, type] = {"check": str}


def _quarantine_problems(row: Mapping[str, object]) -> list[str]:
    problems = field_problems(row, QUARANTINE_FIELDS)
    if row.get("kind") == "check":
        problems += field_problems(row, CHECK_FIELD)
    elif "kind" in row and row.get("kind") != "criterion":
        problems.append(f"kind must be check or criterion, not {row.get('kind')!r}")
    return problems


def _is_quarantined(row: Mapping[str, object]) -> TypeGuard[QuarantineRow]:
    return not _quarantine_problems(row)


def read_quarantine(path: Path) -> set[tuple[str, str, str]]:
    """The checks `audit --quarantine-out` listed: (case, criterion, check); its criteria rows are
    not checks, and score's checks are what it sets aside."""
    rows = read_shaped(path, _is_quarantined, _quarantine_problems, what="quarantine list")
    return {(r["case_id"], r["criterion"], r["check"]) for r in rows if r["kind"] == "check"}


def without_quarantined(
    results: Sequence[ResultRow], listed: set[tuple[str, str, str]]
) -> tuple[list[ResultRow], int]:
    """The results of every check not listed, and how many results were set aside."""
    kept = [
        row
        for row in results
        if (str(row.get("case_id")), str(row.get("criterion")), str(row.get("check"))) not in listed
    ]
    return kept, len(results) - len(kept)


def quarantine_line(found: QuarantineJson) -> str:
    """`score`'s line: the verdict decides with the checks; the list only informs."""
    same = "the same" if found["with_them"] == found["without_them"] else "different"
    return (
        f"Quarantine (--quarantine): {plural(found['listed'], 'flaky check')} listed "
        f"({plural(found['results'], 'result')} set aside for the second verdict). Verdict with them: "
        f"{found['with_them']}; without them: {found['without_them']} ({same}). The verdict with them "
        "stands: the list informs, it removes nothing."
    )
