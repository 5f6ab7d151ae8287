"""Lint a generated check module with Python's `ast` (never libcst: this is the hook path)."""

from __future__ import annotations

import ast
from pathlib import Path

from ..importing.registrations import registered_ids
from ..problem import Problem
from .placeholders import find_placeholders
from .rules import module_syntax, unwritten_placeholder


def lint_module(path: Path) -> tuple[list[Problem], set[str] | None]:
    """Problems in a module, and the case ids it registers (None when it does not parse)."""
    try:
        source = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return [Problem(1, 1, module_syntax.ID, f"not UTF-8: invalid byte at offset {exc.start}")], None
    try:
        tree = ast.parse(source, str(path))
    except SyntaxError as exc:
        return [module_syntax.from_error(exc)], None
    return list(unwritten_placeholder.check(find_placeholders(tree))), registered_ids(tree)
