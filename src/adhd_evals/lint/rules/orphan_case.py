"""W204 orphan-case: the check module registers a case the catalog beside it does not have.

Its checks never run: `check` only runs the catalog's cases. It usually means
a case left the source (a re-import keeps its edited checks and says so) or
an id was mistyped by hand.

Passing: checks.py registers `@check("a", ...)` and cases.jsonl has case `a`.
Failing: checks.py registers `@check("b", ...)`; cases.jsonl has no case `b`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...problem import WARNING, Finding

ID = "W204"
NAME = "orphan-case"
SEVERITY = WARNING


def check(registered: dict[str, int], catalog: dict[str, int]) -> Iterator[Finding]:
    for case_id, line in registered.items():
        if case_id not in catalog:
            yield Finding(line, 1, f'case "{case_id}" has checks here but is not in the catalog beside it')
