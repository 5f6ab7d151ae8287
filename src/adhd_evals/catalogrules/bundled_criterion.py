"""W201 bundled-criterion: one criterion, one check. "X and <verb> Y" bundles two.

A criterion that joins two requirements with "and" followed by a rubric
verb cannot pass half-way: a judge must fail the whole item for either
half. Split it in two. Lists of nouns ("Features and Fixes") are fine.

Passing: `"criteria": ["Identifies the missing header.", "Gives the smallest fix."]`
Failing: `"criteria": ["Identifies the missing header and gives the smallest fix."]`
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..problem import WARNING, Finding
from .contract import ROW, TEXTS, Field, Predicate, RowCheck, Run
from .position import column_of
from .row import Row

ID = "W201"
NAME = "bundled-criterion"
SEVERITY = WARNING
SCOPE = ROW
VERBS = (
    "acts",
    "answers",
    "asks",
    "avoids",
    "explains",
    "gives",
    "identifies",
    "includes",
    "keeps",
    "lists",
    "mentions",
    "names",
    "offers",
    "points",
    "provides",
    "reports",
    "returns",
    "says",
    "shows",
    "states",
    "suggests",
    "uses",
    "does",
    "is",
    "verifies",
)
BUNDLED = re.compile(r"\band (?:also |then )?(?:" + "|".join(VERBS) + r")\b", re.IGNORECASE)


def start(run: Run) -> RowCheck:
    return check  # nothing is remembered across rows


def unbundled(text: str) -> bool:
    """True when no criterion in `text` bundles: the criteria joined by characters BUNDLED
    holds none of, and no word character (a newline; or `", "` in a JSON list without
    escapes), so that no match spans two criteria and each one's word boundaries stay. It
    cannot match where "and " is absent from the lowered text, so one search is rarely run."""
    return "and " not in text.lower() or not BUNDLED.search(text)


clean = Predicate(
    "type(row['criteria']) is list and UNBUNDLED('\\n'.join(row['criteria']))", UNBUNDLED=unbundled
)
facts = (Field("criteria", TEXTS, free=unbundled),)


def check(row: Row) -> Iterator[Finding]:
    if not (row.parsed and isinstance(row.value, dict)) or clean(row.value):
        return
    criteria = row.value.get("criteria")
    if isinstance(criteria, list):
        for index, item in enumerate(criteria):
            if isinstance(item, str) and BUNDLED.search(item):
                yield Finding(
                    row.number,
                    column_of(row.text, "criteria", index),
                    f'criteria[{index}] bundles two checks with "and": split it',
                )
