"""The catalog's rules run: every row rule on each row, then the catalog rules, each finding
stamped with its rule's code and severity (lint/engine.py runs the rules of the files beside a
catalog the same way, with `stamp`). The fast path (`RowRun.clean`) is what the row rules
declare lets it skip them (contract.py), and nothing else."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TypeVar

from ..problem import Finding, Problem
from . import CATALOG_RULES, ROW_RULES
from .contract import (
    PREDICATE_ERRORS,
    CatalogRead,
    Field,
    RecordingCheck,
    RowCheck,
    RowRule,
    Rule,
    Run,
    fused,
)
from .linepattern import line_test
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
        # The fast path, from what each rule declares: the predicates fused into one function,
        # then the checks that record (they must record only a row no other rule reports).
        self.fused = fused(rule.clean for rule in ROW_RULES if rule.clean is not None)
        self.recording: tuple[RecordingCheck, ...] = tuple(
            check for _, check in self.checks if isinstance(check, RecordingCheck)
        )

    def clean(self, row: object, number: int) -> bool:
        """True when no row rule can report the object a line parsed to strictly (UTF-8, no
        BOM, no duplicate key, no surrogate escape), by what the rules declare; what the
        recording checks would record (E106's id) is recorded."""
        try:
            if type(row) is not dict or not self.fused(row):
                return False
        except PREDICATE_ERRORS:  # a row a predicate cannot read is no clean row
            return False
        for check in self.recording:  # noqa: SIM110  # a loop, not all(): every row; last: they record
            if not check.clean(row, number):
                return False
        return True

    def line_clean(self) -> Callable[[str, int], bool] | None:
        """The first test of a line (its text), from the rules' facts (linepattern.py): true
        only when no row rule can report it, recording what the recording checks would. None
        when a rule declares no facts: then the pattern vouches for no line."""
        facts: list[Field] = []
        for rule in ROW_RULES:
            declared: tuple[Field, ...] | None = getattr(rule, "facts", None)  # a rule may not say
            if declared is None:
                return None
            facts += declared
        test = line_test(tuple(facts), tuple(check.field for check in self.recording))
        if test is None:
            return None
        match, free = test.match, test.free
        records = tuple((test.recorded[check.field], check.record) for check in self.recording)

        def clean(text: str, number: int) -> bool:
            found = match(text)
            if found is None:
                return False
            for group, unreported in free:  # a loop: cheaper than all() of a generator
                if not unreported(_items(found[group])):
                    return False
            for group, record in records:  # noqa: SIM110  # last: they record
                if not record(found[group], number):
                    return False
            return True

        return clean

    def state(self, kind: type[T]) -> T:
        """The check of this run that is a `kind` (a test seeds E106's ids through it)."""
        return next(check for _, check in self.checks if isinstance(check, kind))

    def check(self, row: Row) -> list[Problem]:
        """Every row rule's problems with one row, in the rules' order."""
        problems: list[Problem] = []
        for rule, check in self.checks:
            problems += stamp(rule, check(row))
        return problems


def _items(text: str) -> str:
    """A list's text as a `free` test reads it: as written when it holds no escape (the items'
    characters are their values), else its items decoded and joined by newlines."""
    return "\n".join(json.loads(text)) if "\\" in text else text


def check_catalog(catalog: CatalogRead) -> list[Problem]:
    return [p for rule in CATALOG_RULES for p in stamp(rule, rule.check(catalog))]
