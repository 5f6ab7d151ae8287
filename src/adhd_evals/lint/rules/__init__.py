"""Lint rules, one module each: `ID`, `NAME`, `SEVERITY`, `DESCRIPTION`, and a
`check(row, state)` generator that yields problems. The module docstring is
the rule's documentation, with a passing and a failing example.

Catalog rules see one `Row` at a time (the file is streamed); `state` is a
dict the rule may keep across the rows of one file.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

from . import (
    bundled_criterion,
    duplicate_id,
    duplicate_key,
    empty_criteria,
    empty_id,
    encoding,
    invalid_json,
    missing_field,
    not_object,
    risk_value,
    wrong_type,
)


@dataclass(frozen=True)
class Row:
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


CATALOG_RULES: list[ModuleType] = [
    encoding,
    invalid_json,
    duplicate_key,
    not_object,
    missing_field,
    wrong_type,
    empty_id,
    duplicate_id,
    risk_value,
    empty_criteria,
    bundled_criterion,
]
