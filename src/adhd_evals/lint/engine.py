"""The lint engine: every rule runs where its scope says, and what it finds is stamped.

Each rule declares its SCOPE (rules/_contract.py); the engine sorts the rules by scope once,
as yamllint's linter sorts its rules by TYPE, hands each the subject of its scope, and stamps
the rule's code and severity on every finding, so a rule cannot report under another's name.
The readers that make the subjects live beside it: catalog.py streams the rows, module.py
parses a check module; here is only which rules see them, in what order, and where they
report.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TypeGuard, TypeVar

from ..catalog import SOURCES_RECORD
from ..problem import Finding, Problem
from ..schema import DEFAULT_MODULE
from .rules import (
    CATALOG,
    FOLDER,
    MODULE,
    ORDER,
    ROW,
    AnyRule,
    CatalogRead,
    CatalogRule,
    Folder,
    FolderRule,
    ModuleRead,
    ModuleRule,
    Row,
    RowRule,
    Rule,
    Run,
)
from .rules._contract import RowCheck

T = TypeVar("T")


def _row(rule: AnyRule) -> TypeGuard[RowRule]:
    return rule.SCOPE == ROW


def _catalog(rule: AnyRule) -> TypeGuard[CatalogRule]:
    return rule.SCOPE == CATALOG


def _module(rule: AnyRule) -> TypeGuard[ModuleRule]:
    return rule.SCOPE == MODULE


def _folder(rule: AnyRule) -> TypeGuard[FolderRule]:
    return rule.SCOPE == FOLDER


ROW_RULES: list[RowRule] = [rule for rule in ORDER if _row(rule)]
CATALOG_RULES: list[CatalogRule] = [rule for rule in ORDER if _catalog(rule)]
MODULE_RULES: list[ModuleRule] = [rule for rule in ORDER if _module(rule)]
FOLDER_RULES: list[FolderRule] = [rule for rule in ORDER if _folder(rule)]


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


def check_module(module: ModuleRead) -> list[Problem]:
    return [p for rule in MODULE_RULES for p in stamp(rule, rule.check(module))]


def check_folder(folder: Folder) -> list[Problem]:
    """The folder rules' problems, each placed in the file its rule reports in (no path: the
    catalog, which the caller places)."""
    problems: list[Problem] = []
    for rule in FOLDER_RULES:
        where = folder.file(rule.FILE)
        found = stamp(rule, rule.check(folder))
        problems += found if where is None else [p.at(str(where)) for p in found]
    return problems


def module_beside(catalog: Path) -> Path | None:
    """The check module beside a catalog, when it is a file."""
    module = catalog.parent / DEFAULT_MODULE.name
    return module if module.is_file() else None


def folder_of(catalog: Path, ids: dict[str, int], module: Path | None) -> Folder:
    """The catalog with its module and the sources record beside it (where that is a file)."""
    record = catalog.parent / SOURCES_RECORD
    return Folder(catalog, ids, module, record if record.is_file() else None, _registrations)


def _registrations(module: Path) -> dict[str, int] | None:
    from .module import registrations  # ast and the module reader only when checks.py is beside

    return registrations(module)
