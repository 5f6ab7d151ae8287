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
from ._contract import FOLDER, IN_MODULE, Folder

ID = "W204"
NAME = "orphan-case"
SEVERITY = WARNING
SCOPE = FOLDER
FILE = IN_MODULE


def check(folder: Folder) -> Iterator[Finding]:
    if not folder.ids or folder.registered is None:  # no module beside it, or one that does not parse
        return
    for case_id, line in folder.registered.items():
        if case_id not in folder.ids:
            yield Finding(line, 1, f'case "{case_id}" has checks here but is not in the catalog beside it')
