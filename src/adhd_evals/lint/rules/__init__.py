"""Lint rules, one module each (as yamllint's are): the catalog's own (row and catalog scope)
live in the core (catalogrules/), since validate and runs read catalogs by them; lint's add
the check module's and the folder's, and here every rule is listed.

Every rule module satisfies the contract in `_contract.py`: its `ID` (the code), `NAME`,
`SEVERITY`, `SCOPE`, and a docstring that is its documentation: the first line says what it
finds, then why it matters, then a passing and a failing example. The engine
(lint/engine.py) runs each rule where its scope says: on each catalog row, on the whole
catalog, on a check module, or on a catalog with the files beside it.
"""

from __future__ import annotations

from ...catalogrules import CATALOG_RULES, ROW_RULES
from ...catalogrules.row import Row
from . import (
    case_without_checks,
    module_syntax,
    orphan_case,
    source_gone,
    torn_pair,
    unwritten_placeholder,
)
from ._contract import (
    CATALOG,
    FOLDER,
    MODULE,
    ROW,
    SCOPES,
    CatalogRead,
    CatalogRule,
    Folder,
    FolderRule,
    ModuleRead,
    ModuleRule,
    RowRule,
    Rule,
    Run,
)

AnyRule = RowRule | CatalogRule | ModuleRule | FolderRule
# Every rule, in the order the engine runs those of one scope (a row's problems are reported
# in this order; the folder's, before the engine sorts them by position, too).
ORDER: list[AnyRule] = [
    *ROW_RULES,
    *CATALOG_RULES,
    module_syntax,
    unwritten_placeholder,
    torn_pair,
    case_without_checks,
    orphan_case,
    source_gone,
]
# Every rule, by code.
RULES: dict[str, AnyRule] = {rule.ID: rule for rule in sorted(ORDER, key=lambda r: r.ID)}


def summary(rule: Rule) -> str:
    """What the rule finds: its docstring's first line, after "CODE name: "."""
    first = (rule.__doc__ or "").strip().splitlines()[0]
    return first.split(": ", 1)[1] if ": " in first else first


def table() -> str:
    """The rule table, made from the rules (docs/lint-rules.md shows it; the MkDocs hook builds it)."""
    rows = ["| code | name | severity | scope | what |", "| --- | --- | --- | --- | --- |"]
    rows += [f"| {r.ID} | {r.NAME} | {r.SEVERITY} | {r.SCOPE} | {summary(r)} |" for r in RULES.values()]
    rows.append(
        "| Case… | (the refusal codes below) | error | source file | an evals.json, YAML case or "
        "dataset.json the import would refuse, in the import's words; every bad case of a file is reported |"
    )
    return "\n".join(rows) + "\n"


__all__ = [
    "CATALOG",
    "FOLDER",
    "MODULE",
    "ORDER",
    "ROW",
    "RULES",
    "SCOPES",
    "AnyRule",
    "CatalogRead",
    "CatalogRule",
    "Folder",
    "FolderRule",
    "ModuleRead",
    "ModuleRule",
    "Row",
    "RowRule",
    "Rule",
    "Run",
    "summary",
    "table",
]
