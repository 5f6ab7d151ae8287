"""W203 unwritten-placeholder: a check module still has unwritten(...) calls.

Each one is a criterion nobody has turned into code: it always fails. A
warning by default (a fresh import is full of them); `--strict` fails on it.

Passing: `return "dark mode" in answer.lower()`
Failing: `return unwritten("Mentions dark mode")`
"""

from __future__ import annotations

from collections.abc import Iterator

from ...problem import WARNING, Finding
from ._contract import MODULE, ModuleRead

ID = "W203"
NAME = "unwritten-placeholder"
SEVERITY = WARNING
SCOPE = MODULE


def check(module: ModuleRead) -> Iterator[Finding]:
    if module.tree is None:
        return
    from ..placeholders import find_placeholders  # ast's walk only when a module is linted

    for found in find_placeholders(module.tree):
        text = (found.criterion or "?").replace("\n", " ")
        text = text if len(text) <= 70 else text[:67] + "..."
        yield Finding(found.line, found.column, f"unwritten check for case {found.case_id}: {text}")
