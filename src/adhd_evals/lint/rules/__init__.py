"""Lint rules, one module each (as yamllint's are).

Every rule module satisfies `Rule`: its `ID` (the code), `NAME`, `SEVERITY`,
and a docstring that is its documentation: the first line says what it
finds, then why it matters, then a passing and a failing example. Rules
yield `Finding`s (line, column, message); the engine stamps the rule's code
and severity on each, so what a rule reports is always under its own name.

Catalog rules see one `Row` at a time (the file is streamed); `state` is a
dict the rule may keep across the rows of one file. W202, W203 and E111
look at a check module instead and have their own inputs (see `RULES`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from ...problem import Finding, Problem
from . import (
    bundled_criterion,
    case_without_checks,
    duplicate_id,
    duplicate_key,
    empty_catalog,
    empty_criteria,
    empty_id,
    encoding,
    invalid_json,
    missing_field,
    module_syntax,
    not_object,
    orphan_case,
    risk_value,
    source_gone,
    torn_pair,
    unwritten_placeholder,
    wrong_type,
)
from ._row import Row


class Rule(Protocol):
    """What every rule module declares."""

    ID: str
    NAME: str
    SEVERITY: str
    __doc__: str | None


class CatalogRule(Rule, Protocol):
    def check(self, row: Row, state: dict[str, Any]) -> Iterator[Finding]: ...


CATALOG_RULES: list[CatalogRule] = [
    encoding,
    invalid_json,
    duplicate_key,
    not_object,
    missing_field,
    wrong_type,
    empty_id,
    duplicate_id,
    risk_value,
    empty_criteria,
    bundled_criterion,
]
MODULE_RULES: list[Rule] = [
    case_without_checks,
    unwritten_placeholder,
    module_syntax,
    torn_pair,
    empty_catalog,
    orphan_case,
    source_gone,
]
# Every rule, by code: the catalog's and the check module's.
RULES: dict[str, Rule] = {
    rule.ID: rule for rule in sorted([*CATALOG_RULES, *MODULE_RULES], key=lambda r: r.ID)
}


def stamp(rule: Rule, findings: Iterable[Finding]) -> list[Problem]:
    """The engine's half of every rule: code and severity come from the rule."""
    return [Problem(f.line, f.column, rule.ID, f.message, rule.SEVERITY) for f in findings]


def summary(rule: Rule) -> str:
    """What the rule finds: its docstring's first line, after "CODE name: "."""
    first = (rule.__doc__ or "").strip().splitlines()[0]
    return first.split(": ", 1)[1] if ": " in first else first


def table() -> str:
    """The rule table, made from the rules (docs/lint-rules.md shows it; the MkDocs hook builds it)."""
    rows = ["| code | name | severity | what |", "| --- | --- | --- | --- |"]
    rows += [f"| {r.ID} | {r.NAME} | {r.SEVERITY} | {summary(r)} |" for r in RULES.values()]
    rows.append(
        "| Case… | (the refusal codes below) | error | an evals.json, YAML case or dataset.json the "
        "import would refuse, in the import's words; every bad case of a file is reported |"
    )
    return "\n".join(rows) + "\n"


__all__ = ["CATALOG_RULES", "RULES", "CatalogRule", "Row", "Rule", "stamp", "summary", "table"]
