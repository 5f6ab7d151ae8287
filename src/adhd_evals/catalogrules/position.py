"""Columns inside one catalog line, found only when a problem needs one.

The line is walked with the JSON scanner along the path (never a text search,
which a prompt quoting `"risk":` would fool).
"""

from __future__ import annotations

from ..jsonpos import locate


def column_of(text: str | None, key: str, *more: str | int) -> int:
    """1-based column of the value at `key` (then `more` steps: an index into a list)
    in a one-line JSON object; the deepest value that exists, 1 for an empty line."""
    if not text:
        return 1
    return locate(text, (key, *more))[1] or 1
