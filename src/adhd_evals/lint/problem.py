"""A lint finding: a value with a 1-based line and column (as yamllint's problems are)."""

from __future__ import annotations

from dataclasses import dataclass

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    line: int
    column: int
    code: str
    message: str
    severity: str = ERROR
    path: str = ""

    def at(self, path: str) -> Problem:
        return Problem(self.line, self.column, self.code, self.message, self.severity, path)
