"""One catalog line as the catalog rules see it."""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled
# one by one (the hook's start-up: see problem.py).
from typing import Any, NamedTuple


class Row(NamedTuple):
    number: int  # 1-based line number
    text: str | None  # the decoded line (None when it is not UTF-8)
    value: Any  # the parsed JSON value (None when it did not parse)
    parse_error: str | None = None
    parse_column: int = 1
    decode_offset: int | None = None
    duplicate_key: str | None = None
    bom: bool = False

    @property
    def parsed(self) -> bool:
        return self.text is not None and self.parse_error is None and self.duplicate_key is None
