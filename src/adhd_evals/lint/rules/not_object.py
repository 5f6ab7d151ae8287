"""E102 not-object: every catalog line is a JSON object.

Every tool reads a case by its keys; a bare string or list has none.

Passing: `{"id": "a", ...}`
Failing: `["a", "b"]` or `"a case"`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...problem import ERROR, Finding
from ._row import Row

ID = "E102"
NAME = "not-object"
SEVERITY = ERROR


def check(row: Row, state: dict[str, Any]) -> Iterator[Finding]:
    if row.parsed and not isinstance(row.value, dict):
        yield Finding(row.number, 1, "expected a JSON object")
