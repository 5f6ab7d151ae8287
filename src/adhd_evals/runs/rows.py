"""The shapes of the row files runs read: responses, a blind sheet's key, labelled scores,
check results.

Every row is checked before it is used, so a bad file is named row by row
(never a KeyError or a comparison of a list with a number halfway through).
"""

from __future__ import annotations

from typing import Any

RESPONSE_FIELDS = {"case_id": str, "trial": int, "condition": str, "runner": str, "response": str}
KEY_FIELDS = {"case_id": str, "trial": int, "label": str, "condition": str}
LABELLED_FIELDS = {"case_id": str, "trial": int, "condition": str}
# what the gate counts (check --output writes more)
RESULT_FIELDS: dict[str, type] = {"condition": str, "status": str}
STATUSES = ("pass", "fail", "unwritten", "error", "orphan")


def field_problems(row: dict[str, Any], fields: dict[str, type]) -> list[str]:
    """What is wrong with `row` against `fields` (name -> str or int; bools are not ints)."""
    problems = []
    for name, kind in fields.items():
        value = row.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            word = "an integer" if kind is int else "a string"
            problems.append(f"{name} must be {word}" + ("" if name in row else " (missing)"))
    trial = row.get("trial")
    if "trial" in fields and isinstance(trial, int) and not isinstance(trial, bool) and trial < 1:
        problems.append("trial must be 1 or more")
    return problems


def response_problems(row: dict[str, Any]) -> list[str]:
    return field_problems(row, RESPONSE_FIELDS)


def key_problems(row: dict[str, Any]) -> list[str]:
    return field_problems(row, KEY_FIELDS)


def result_problems(row: dict[str, Any]) -> list[str]:
    """A check result the gate can count: a condition, and a status check can write."""
    problems = field_problems(row, RESULT_FIELDS)
    if isinstance(row.get("status"), str) and row["status"] not in STATUSES:
        problems.append(f"status must be one of {', '.join(STATUSES)}, not {row['status']!r}")
    return problems
