"""Find the `unwritten(...)` placeholders left in a check module, without running it.

Python's own `ast` is enough to find calls with their line and column, and
it is many times faster than a concrete syntax tree: this runs on the
pre-commit path, so it must not import libcst. For the same reason a
placeholder is a NamedTuple, not a dataclass: dataclasses imports inspect,
about 7 ms of a hook run (tests/lint/test_startup.py keeps both off the path).
"""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled
# one by one (the hook's start-up: see problem.py).
import ast
from pathlib import Path
from typing import NamedTuple

from ..files import read_text_limited
from ..importing.registrations import registration


class Placeholder(NamedTuple):
    case_id: str | None  # from the @check decorator; None outside a registered check
    criterion: str | None
    line: int
    column: int  # 1-based, like every position this project reports


def _is_unwritten(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "unwritten"


def find_placeholders(source: str | ast.Module, filename: str = "<module>") -> list[Placeholder]:
    """Every `unwritten(...)` call outside the helper's own definition, in file order."""
    tree = source if isinstance(source, ast.Module) else ast.parse(source, filename)
    found: list[Placeholder] = []
    for function in tree.body:
        if not isinstance(function, ast.FunctionDef) or function.name == "unwritten":
            continue
        case_id, criterion = registration(function) or (None, None)
        found += [
            Placeholder(case_id, criterion, node.lineno, node.col_offset + 1)
            for node in ast.walk(function)
            if isinstance(node, ast.Call) and _is_unwritten(node)
        ]
    return sorted(found, key=lambda p: (p.line, p.column))


def placeholders_in(path: Path) -> list[Placeholder]:
    return find_placeholders(read_text_limited(path), str(path))
