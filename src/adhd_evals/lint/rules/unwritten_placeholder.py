"""W203 unwritten-placeholder: a check module still has unwritten(...) calls.

Each one is a criterion nobody has turned into code: it always fails. A
warning by default (a fresh import is full of them); `--strict` fails on it.

Passing: `return "dark mode" in answer.lower()`
Failing: `return unwritten("Mentions dark mode")`
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ...problem import WARNING, Finding

if TYPE_CHECKING:  # the module's parser (ast) is imported when a module is linted, not before
    from ..placeholders import Placeholder

ID = "W203"
NAME = "unwritten-placeholder"
SEVERITY = WARNING


def check(placeholders: Iterable[Placeholder]) -> Iterator[Finding]:
    for found in placeholders:
        text = (found.criterion or "?").replace("\n", " ")
        text = text if len(text) <= 70 else text[:67] + "..."
        yield Finding(found.line, found.column, f"unwritten check for case {found.case_id}: {text}")
