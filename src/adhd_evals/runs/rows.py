"""The shapes of the row files runs read: responses, a blind sheet's key, labelled scores.

Every row is checked before it is used, so a bad file is named row by row
(never a KeyError or a comparison of a list with a number halfway through).
"""

from __future__ import annotations

from typing import Any

RESPONSE_FIELDS = {"case_id": str, "trial": int, "condition": str, "runner": str, "response": str}
KEY_FIELDS = {"case_id": str, "trial": int, "label": str, "condition": str}
LABELLED_FIELDS = {"case_id": str, "trial": int, "condition": str}


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
