"""A problem found in a file: a value with a 1-based line and column (as yamllint's are).

Lint's findings carry a code and a severity; `validate` and the row readers
use the same class without them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    line: int
    column: int  # 0 when only the line is known
    code: str
    message: str
    severity: str = ERROR
    path: str = ""

    def at(self, path: str) -> Problem:
        return Problem(self.line, self.column, self.code, self.message, self.severity, path)

    def render(self, path: str) -> str:
        """`path:line[:column]: message`, as validate prints it."""
        where = f"{path}:{self.line}" + (f":{self.column}" if self.column else "")
        return f"{where}: {self.code + ' ' if self.code else ''}{self.message}"


class Finding(NamedTuple):
    """What a lint rule yields: where and what. The engine stamps the rule's code
    and severity on it, so a rule cannot report under another rule's name."""

    line: int
    column: int
    message: str
