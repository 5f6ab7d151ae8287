"""E110 encoding: a catalog line must be UTF-8, and the file must not start with a BOM.

The catalog is UTF-8 by contract; a reader that decodes it strictly stops at the first bad byte, and
many JSONL readers take a byte-order mark for part of the first line.

A JSON escape of a lone surrogate (`"\\ud800"` with no partner) parses, but names no
character: every later step that writes the text as UTF-8 (blind sheets, reports, a
model's stdin) would fail on it, so it is refused here, at the value that holds it.

Passing: `{"id": "a", ...}` saved as UTF-8.
Failing: a line holding the byte 0xE9 (Latin-1 "é"), a file that starts
with the bytes EF BB BF (many JSONL readers choke on the mark), or
`"prompt": "\\ud800"`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..problem import ERROR, Finding
from ..schema import TEXT_FIELDS
from .contract import ROW, RowCheck, Run
from .position import column_of
from .row import Row

ID = "E110"
NAME = "encoding"
SEVERITY = ERROR
SCOPE = ROW
# A BOM, invalid UTF-8 and a lone surrogate (only a `\ud800`-style escape can write one in
# valid UTF-8) are each refused by the fast path's strict parse: it never sees them.
facts = ()  # the line pattern admits only what the strict parse does (linepattern.py)
clean = None


def start(run: Run) -> RowCheck:
    return check  # nothing is remembered across rows


def check(row: Row) -> Iterator[Finding]:
    if row.bom:
        yield Finding(row.number, 1, "byte-order mark at the start of the file: save it as UTF-8 without BOM")
    if row.decode_offset is not None:
        yield Finding(
            row.number, row.decode_offset + 1, f"invalid UTF-8 at byte {row.decode_offset + 1} of the line"
        )
    if row.parsed and row.text is not None and "\\u" in row.text and isinstance(row.value, dict):
        for path in _surrogate_paths(row.value):
            where = ".".join(str(step) for step in path) if len(path) == 1 else f"{path[0]}[{path[1]}]"
            yield Finding(
                row.number,
                column_of(row.text, *path),
                f"{where} holds a lone surrogate escape (not a Unicode character: it cannot be written as UTF-8)",
            )


def _surrogate_paths(case: dict[str, object]) -> Iterator[tuple[str] | tuple[str, int]]:
    """Each catalog field (or criterion) whose text holds a lone surrogate."""
    for key in (*TEXT_FIELDS, "risk"):
        if _lone(case.get(key)):
            yield (key,)
    criteria = case.get("criteria")
    if isinstance(criteria, list):
        for index, item in enumerate(criteria):
            if _lone(item):
                yield ("criteria", index)


def _lone(value: object) -> bool:
    if not isinstance(value, str) or value.isascii():
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
