"""Which case and criterion each function of a check module registers with @check.

Read with Python's `ast`: this also runs on the pre-commit path (lint), so it
must not import libcst.
"""

from __future__ import annotations

import ast

DECORATOR = "check"  # the name a check module registers its checks with


def registration(function: ast.FunctionDef) -> tuple[str | None, str | None] | None:
    """(case id, criterion) of a function's `@check(...)`, None when it has none.

    An argument that is not a string literal is None: the function registers
    something, but not something this file can read without running it.
    """
    for decorator in function.decorator_list:
        if (
            isinstance(decorator, ast.Call)
            and isinstance(decorator.func, ast.Name)
            and decorator.func.id == DECORATOR
            and decorator.args
        ):
            case_id, criterion = (
                [
                    a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None
                    for a in decorator.args[:2]
                ]
                + [None]
            )[:2]
            return case_id, criterion
    return None


def registered_ids(tree: ast.Module) -> dict[str, int]:
    """Every case id a module registers at its top level, with the line of its first check."""
    lines: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found = registration(node)
            if found is not None and found[0] is not None:
                lines.setdefault(
                    found[0], node.decorator_list[0].lineno if node.decorator_list else node.lineno
                )
    return lines


def registered_in(text: str) -> list[str]:
    """Case ids registered in a piece of a module, in order; [] when it does not parse alone."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found = (registration(node) for node in tree.body if isinstance(node, ast.FunctionDef))
    return [reg[0] for reg in found if reg is not None and reg[0] is not None]
