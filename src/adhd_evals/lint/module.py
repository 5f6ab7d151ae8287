"""Read a generated check module with Python's `ast` (never libcst: this is the hook path)."""

from __future__ import annotations

import ast
from pathlib import Path

from ..files import read_limited
from .rules import ModuleRead


def read_module(path: Path) -> ModuleRead:
    """The module's syntax tree, or why there is none (the module rules say it)."""
    try:
        source = read_limited(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:  # not a regular file, past --max-bytes, unreadable
        return ModuleRead(path, None, exc)
    try:
        return ModuleRead(path, ast.parse(source, str(path)))
    except (
        SyntaxError,
        ValueError,
        RecursionError,
        MemoryError,
    ) as exc:  # a NUL byte; nesting past the parser
        return ModuleRead(path, None, exc)
