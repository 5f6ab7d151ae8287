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
from pathlib import Path

from ...output import torn
from ...problem import ERROR, Finding

ID = "E112"
NAME = "torn-pair"
SEVERITY = ERROR


def check(folder: Path) -> Iterator[Finding]:
    problem = torn(folder)
    if problem is not None:
        yield Finding(1, 1, problem)
