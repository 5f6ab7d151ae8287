"""The rule contract: what every rule declares, and what the catalog's rules are given.

A rule is a module (as yamllint's are) declaring `ID`, `NAME`, `SEVERITY` and `SCOPE`; its
docstring is its documentation. An engine dispatches every rule by its `SCOPE`, as yamllint
dispatches by `TYPE`, and hands it the one subject that scope is about. The two scopes of a
catalog on its own live here, in the core (validate and every runs command read catalogs by
them); lint adds the scopes of the files beside a catalog (lint/rules/_contract.py):

- `row`: one catalog line (`Row`), as the file streams by. `start(run)` makes the rule's check
  for one run: a rule that remembers across rows keeps that in an object of its own, made
  afresh for each run (E106's ids); a rule that remembers nothing returns its plain `check`.
- `catalog`: the catalog once every row is read (`CatalogRead`).

Every rule yields `Finding`s (line, column, message); the engine stamps the rule's code and
severity on each, so what a rule reports is always under its own name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple, Protocol

from ..problem import Finding
from .row import Row

ROW = "row"
CATALOG = "catalog"


class Rule(Protocol):
    """What every rule module declares."""

    ID: str
    NAME: str
    SEVERITY: str
    SCOPE: str
    __doc__: str | None


RowCheck = Callable[[Row], Iterable[Finding]]  # one run's check of one row


class Run(NamedTuple):
    """What a row rule may know of the run that starts it: one catalog, streamed once."""

    # The file's rows read again from the start (blank lines left out); None when there is
    # no way back (the rows come from memory, or every id must be kept exactly anyway).
    again: Callable[[], Iterator[Row]] | None = None
    expected: int = 0  # about how many rows the file holds


class RowRule(Rule, Protocol):
    def start(self, run: Run) -> RowCheck: ...


class CatalogRead(NamedTuple):
    """The catalog once every row is read."""

    cases: int  # its non-blank lines


class CatalogRule(Rule, Protocol):
    def check(self, catalog: CatalogRead) -> Iterator[Finding]: ...
