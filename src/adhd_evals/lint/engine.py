"""The lint engine: every rule runs where its scope says, and what it finds is stamped.

Each rule declares its SCOPE (rules/_contract.py); the engine sorts the rules by scope once,
as yamllint's linter sorts its rules by TYPE, hands each the subject of its scope, and stamps
the rule's code and severity on every finding, so a rule cannot report under another's name.
The catalog's own rules (row and catalog scope) run in the core (catalogrules/engine.py,
which catalogrules/stream.py drives as the rows stream by); module.py parses a check module;
here is only which of lint's rules see them, in what order, and where they report.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeGuard

from ..catalogrules.engine import stamp
from ..problem import Problem
from ..schema import DEFAULT_MODULE, SOURCES_RECORD
from .rules import (
    FOLDER,
    MODULE,
    ORDER,
    AnyRule,
    Folder,
    FolderRule,
    ModuleRead,
    ModuleRule,
)


def _module(rule: AnyRule) -> TypeGuard[ModuleRule]:
    return rule.SCOPE == MODULE


def _folder(rule: AnyRule) -> TypeGuard[FolderRule]:
    return rule.SCOPE == FOLDER


MODULE_RULES: list[ModuleRule] = [rule for rule in ORDER if _module(rule)]
FOLDER_RULES: list[FolderRule] = [rule for rule in ORDER if _folder(rule)]


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


def folder_of(
    catalog: Path, ids: dict[str, int], module: Path | None, read: Callable[[Path], ModuleRead]
) -> Folder:
    """The catalog with its module and the sources record beside it (where that is a file);
    `read` reads the module (the run's reader: a module named too is parsed once)."""
    record = catalog.parent / SOURCES_RECORD

    def registrations(module: Path) -> dict[str, int] | None:
        from ..importing.registrations import registered_ids  # only when checks.py is beside

        tree = read(module).tree
        return None if tree is None else registered_ids(tree)

    return Folder(catalog, ids, module, record if record.is_file() else None, registrations)
