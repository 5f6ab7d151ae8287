"""E113 empty-catalog: a catalog holds at least one case.

A catalog with no case checks nothing: every command that runs it passes
vacuously (i-have-adhd's validator calls an empty file valid; adhd-evals
does not, and says so in the README's table of differences).

Passing: a `cases.jsonl` with one case line.
Failing: an empty `cases.jsonl`, or one holding only blank lines.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..problem import ERROR, Finding
from .contract import CATALOG, CatalogRead

ID = "E113"
NAME = "empty-catalog"
SEVERITY = ERROR
SCOPE = CATALOG


def check(catalog: CatalogRead) -> Iterator[Finding]:
    if catalog.cases == 0:
        yield Finding(1, 1, "the catalog has no cases")
