"""Lint a generated check module with Python's `ast` (never libcst: this is the hook path)."""

from __future__ import annotations

import ast
from pathlib import Path

from ..files import read_limited
from ..importing.registrations import registered_ids
from ..problem import Finding, Problem
from .placeholders import find_placeholders
from .rules import module_syntax, stamp, unwritten_placeholder


def lint_module(path: Path) -> tuple[list[Problem], dict[str, int] | None]:
    """Problems in a module, and the case ids it registers (None when it does not parse)."""
    try:
        source = read_limited(path).decode("utf-8")
    except OSError as exc:  # not a regular file, past --max-bytes, or unreadable
        finding = Finding(1, 1, f"cannot be read: {exc.strerror or exc}")
        return stamp(module_syntax, [finding]), None
    except UnicodeDecodeError as exc:
        finding = Finding(1, 1, f"not UTF-8: invalid byte at offset {exc.start}")
        return stamp(module_syntax, [finding]), None
    try:
        tree = ast.parse(source, str(path))
    except SyntaxError as exc:
        return stamp(module_syntax, [module_syntax.from_error(exc)]), None
    except (ValueError, RecursionError, MemoryError) as exc:  # a NUL byte; nesting past the parser
        why = (
            str(exc) if isinstance(exc, ValueError) else "an expression nested too deeply for Python's parser"
        )
        return stamp(module_syntax, [Finding(1, 1, f"cannot parse: {why}")]), None
    return stamp(unwritten_placeholder, unwritten_placeholder.check(find_placeholders(tree))), registered_ids(
        tree
    )
