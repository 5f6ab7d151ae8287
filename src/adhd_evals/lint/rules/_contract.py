"""The rule contract of lint's own scopes, beside the catalog's (catalogrules/contract.py).

A rule is a module (as yamllint's are) declaring `ID`, `NAME`, `SEVERITY` and `SCOPE`; its
docstring is its documentation. The engine (lint/engine.py) dispatches every rule by its
`SCOPE`, as yamllint dispatches by `TYPE`, and hands it the one subject that scope is about.
`row` and `catalog` (a catalog on its own) are the core's; lint adds:

- `module`: one check module (`ModuleRead`: its syntax tree, or why there is none).
- `folder`: a catalog with the files beside it (`Folder`: its ids, checks.py, the sources
  record); the rule's `FILE` names which of those files its findings' lines are in.

Every rule yields `Finding`s (line, column, message); the engine stamps the rule's code and
severity on each, so what a rule reports is always under its own name.
"""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled
# one by one (the hook's start-up: see problem.py).
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from ...catalogrules.contract import CATALOG, ROW, CatalogRead, CatalogRule, RowCheck, RowRule, Rule, Run
from ...problem import Finding

if TYPE_CHECKING:  # ast is imported when a check module is read, not on a catalog-only run
    import ast

MODULE = "module"
FOLDER = "folder"
SCOPES = (ROW, CATALOG, MODULE, FOLDER)  # in the order a catalog's run meets them

# Where a folder rule's findings are: the catalog (the file being linted), checks.py, the record
IN_CATALOG = "catalog"
IN_MODULE = "module"
IN_RECORD = "record"


class ModuleRead(NamedTuple):
    """A check module read and parsed with Python's `ast` (never libcst: the hook path)."""

    path: Path
    tree: "ast.Module | None"  # None when it could not be read or parsed (ast: not imported here)
    # Why not: OSError (unreadable), UnicodeDecodeError, SyntaxError, ValueError (a NUL byte),
    # RecursionError or MemoryError (nesting past Python's parser)
    error: Exception | None = None


class ModuleRule(Rule, Protocol):
    def check(self, module: ModuleRead) -> Iterator[Finding]: ...


class Folder:
    """A catalog and the files beside it that belong with it."""

    def __init__(
        self,
        catalog: Path,
        ids: dict[str, int],
        module: Path | None,
        record: Path | None,
        registrations: Callable[[Path], dict[str, int] | None],
    ) -> None:
        self.catalog = catalog
        self.path = catalog.parent
        self.ids = ids  # every case id of the catalog and its line ({} when not kept: no module)
        self.module = module  # checks.py beside it, when it is a file
        self.record = record  # the sources record beside it, when it is a file
        self._registrations = registrations

    @functools.cached_property
    def registered(self) -> dict[str, int] | None:
        """The case ids checks.py registers, each with the line of its first check; None
        without a module or when it does not parse (read once, when a rule asks)."""
        return None if self.module is None else self._registrations(self.module)

    def file(self, where: str) -> Path | None:
        """The file a folder rule's findings are in (None: the catalog, the file being linted)."""
        return {IN_CATALOG: None, IN_MODULE: self.module, IN_RECORD: self.record}[where]


class FolderRule(Rule, Protocol):
    FILE: str  # IN_CATALOG, IN_MODULE or IN_RECORD

    def check(self, folder: Folder) -> Iterator[Finding]: ...


__all__ = [
    "CATALOG",
    "FOLDER",
    "IN_CATALOG",
    "IN_MODULE",
    "IN_RECORD",
    "MODULE",
    "ROW",
    "SCOPES",
    "CatalogRead",
    "CatalogRule",
    "Folder",
    "FolderRule",
    "ModuleRead",
    "ModuleRule",
    "RowCheck",
    "RowRule",
    "Rule",
    "Run",
]
