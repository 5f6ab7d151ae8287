"""The catalog's rules run: every row rule on each row, then the catalog rules, each finding
stamped with its rule's code and severity (lint/engine.py runs the rules of the files beside a
catalog the same way, with `stamp`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from ..problem import Finding, Problem
from . import CATALOG_RULES, ROW_RULES
from .contract import CatalogRead, RowCheck, RowRule, Rule, Run
from .row import Row

T = TypeVar("T")


def stamp(rule: Rule, findings: Iterable[Finding]) -> list[Problem]:
    """The engine's half of every rule: code and severity come from the rule."""
    return [Problem(f.line, f.column, rule.ID, f.message, rule.SEVERITY) for f in findings]


class RowRun:
    """The row rules started for one run (one catalog): each check with its own state."""

    def __init__(self, run: Run | None = None) -> None:
        started = run if run is not None else Run()
        self.checks: list[tuple[RowRule, RowCheck]] = [(rule, rule.start(started)) for rule in ROW_RULES]

    def state(self, kind: type[T]) -> T:
        """The check of this run that is a `kind` (the fast path shares E106's ids)."""
        return next(check for _, check in self.checks if isinstance(check, kind))

    def check(self, row: Row) -> list[Problem]:
        """Every row rule's problems with one row, in the rules' order."""
        problems: list[Problem] = []
        for rule, check in self.checks:
            problems += stamp(rule, check(row))
        return problems


def check_catalog(catalog: CatalogRead) -> list[Problem]:
    return [p for rule in CATALOG_RULES for p in stamp(rule, rule.check(catalog))]
