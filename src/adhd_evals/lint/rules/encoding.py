"""E110 encoding: a catalog line must be UTF-8, and the file must not start with a BOM.

Passing: `{"id": "a", ...}` saved as UTF-8.
Failing: a line holding the byte 0xE9 (Latin-1 "é"), or a file that starts
with the bytes EF BB BF (many JSONL readers choke on the mark).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...problem import Problem

ID = "E110"
NAME = "encoding"
SEVERITY = "error"
DESCRIPTION = "a line that is not UTF-8, or a byte-order mark at the start of the file"


def check(row: Any, state: dict[str, Any]) -> Iterator[Problem]:
    if row.bom:
        yield Problem(
            row.number, 1, ID, "byte-order mark at the start of the file: save it as UTF-8 without BOM"
        )
    if row.decode_offset is not None:
        yield Problem(
            row.number,
            row.decode_offset + 1,
            ID,
            f"invalid UTF-8 at byte {row.decode_offset + 1} of the line",
        )
