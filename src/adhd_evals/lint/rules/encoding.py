"""E110 encoding: a catalog line must be UTF-8, and the file must not start with a BOM.

The catalog is UTF-8 by contract; a reader that decodes it strictly stops at the first bad byte, and
many JSONL readers take a byte-order mark for part of the first line.

Passing: `{"id": "a", ...}` saved as UTF-8.
Failing: a line holding the byte 0xE9 (Latin-1 "é"), or a file that starts
with the bytes EF BB BF (many JSONL readers choke on the mark).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...problem import ERROR, Finding
from ._row import Row

ID = "E110"
NAME = "encoding"
SEVERITY = ERROR


def check(row: Row, state: dict[str, Any]) -> Iterator[Finding]:
    if row.bom:
        yield Finding(row.number, 1, "byte-order mark at the start of the file: save it as UTF-8 without BOM")
    if row.decode_offset is not None:
        yield Finding(
            row.number, row.decode_offset + 1, f"invalid UTF-8 at byte {row.decode_offset + 1} of the line"
        )
