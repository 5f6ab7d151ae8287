"""A problem found in a file: a value with a 1-based line and column (as yamllint's are).

Lint's findings carry a code and a severity; `validate` and the row readers
use the same class without them.
"""

# No `from __future__ import annotations` in a module of NamedTuples on the hook's path:
# typing.NamedTuple makes each string annotation a ForwardRef, compiling it (about 30 us a field,
# 2 ms over the hook's NamedTuples), so their fields' types are evaluated as each class is made
# (docs/startup.md; tests/lint/test_startup.py counts the ForwardRefs a hook run makes).
from typing import NamedTuple

ERROR = "error"
WARNING = "warning"


class Problem(NamedTuple):
    """A NamedTuple, not a dataclass: lint runs on every commit, and importing
    dataclasses (which imports inspect) cost about 7 ms of a hook run's 58."""

    line: int
    column: int  # 0 when only the line is known
    code: str
    message: str
    severity: str = ERROR
    path: str = ""

    def at(self, path: str) -> "Problem":
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
