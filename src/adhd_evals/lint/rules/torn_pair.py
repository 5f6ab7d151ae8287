"""E112 torn-pair: a catalog and the check module beside it come from one import.

An import writes both files and records their hashes; a kill between the two
renames leaves a new catalog beside an old module (or the reverse), whose
checks then belong to other criteria. Rerunning the import repairs it.

Passing: `evals/cases.jsonl` and `evals/checks.py` as one import wrote them.
Failing: the import into `evals/` was killed after it renamed `cases.jsonl`
and before it renamed `checks.py`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...output import torn
from ...problem import ERROR, Finding
from ._contract import FOLDER, IN_CATALOG, Folder

ID = "E112"
NAME = "torn-pair"
SEVERITY = ERROR
SCOPE = FOLDER
FILE = IN_CATALOG


def check(folder: Folder) -> Iterator[Finding]:
    if folder.module is None or not folder.ids:  # a pair, and a catalog that names a case
        return
    problem = torn(folder.path)
    if problem is not None:
        yield Finding(1, 1, problem)
