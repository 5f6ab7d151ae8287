"""The names every layer shares, each defined here once: the catalog's fields and risks,
its default paths, the run conditions. (The format names are the catalogue of formats':
`importing/catalogue`, where each format is declared once.)

Constants and Literal types only: lint's hook path reads them, so this module must cost
nothing. The CLI's choices are these Literal types (typer offers their values); the tuples
are read from the same types, so a value is written once. `tests/test_one_home.py` ties
them to their users.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Literal, get_args

FIELDS = ("id", "category", "prompt", "risk", "criteria")  # a catalog line's keys, in order
TEXT_FIELDS = ("id", "category", "prompt")  # non-empty strings
Risk = Literal["low", "medium", "high"]
RISKS: tuple[Risk, ...] = get_args(Risk)
DEFAULT_RISK: Risk = "medium"

# Where `import` writes and every later command reads, unless told otherwise. PurePath:
# callers wrap it in Path where they touch the file system.
DEFAULT_CATALOG = PurePath("evals/cases.jsonl")
DEFAULT_MODULE = PurePath("evals/checks.py")  # the check module beside it
SOURCES_RECORD = ".adhd-evals-sources.json"  # beside a catalog: the sources it was imported from
# what run and judge may spend when no --budget-usd is given (each is a request's default)
DEFAULT_BUDGET_USD = 25.0

Condition = Literal["baseline", "candidate", "comparator"]  # what a run compares
ExportFormat = Literal["promptfoo", "evals-json", "plugin-eval"]  # what `export --to` writes
CONDITIONS: tuple[Condition, ...] = get_args(Condition)
