"""E102 not-object: every catalog line is a JSON object.

Passing: `{"id": "a", ...}`
Failing: `["a", "b"]` or `"a case"`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...problem import Problem

ID = "E102"
NAME = "not-object"
SEVERITY = "error"
DESCRIPTION = "a line that is JSON but not an object"


def check(row: Any, state: dict[str, Any]) -> Iterator[Problem]:
    if row.parsed and not isinstance(row.value, dict):
        yield Problem(row.number, 1, ID, "expected a JSON object")
