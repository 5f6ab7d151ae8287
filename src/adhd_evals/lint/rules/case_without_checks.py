"""W202 case-without-checks: a catalog case has no checks in the module beside it.

Reported on the catalog line of the case, when `checks.py` sits in the same
folder as the catalog. Such a case can never pass `adhd-evals check`.

Passing: cases.jsonl has case `a`; checks.py has `@check("a", ...)`.
Failing: cases.jsonl has case `b`; checks.py registers nothing for `b`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...problem import WARNING, Finding
from ._contract import FOLDER, IN_CATALOG, Folder

ID = "W202"
NAME = "case-without-checks"
SEVERITY = WARNING
SCOPE = FOLDER
FILE = IN_CATALOG


def check(folder: Folder) -> Iterator[Finding]:
    if not folder.ids or folder.registered is None:  # no module beside it, or one that does not parse
        return
    registered = folder.registered
    for case_id, line in folder.ids.items():
        if case_id not in registered:
            yield Finding(line, 1, f'case "{case_id}" has no checks in the check module beside it')
