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

The fast path. Running every rule's generator on each of a million clean lines would cost more
than parsing them, so each row rule also declares what lets the fast path skip it (`clean`),
and the engine honours exactly that (stream.py):

- `clean = None`: the rule reports only what the fast path's strict parse refuses by itself
  (a line that is not UTF-8, a BOM, a syntax error, a duplicate key, a lone surrogate escape,
  a value that is not an object): a row the strict parse accepts, it never reports;
- else `clean`: a `Predicate` over the parsed object, true only when the rule cannot report
  it. The rule's own check returns at once on a clean row, so the two cannot drift; the
  engine fuses every rule's predicate into one function (one call a row, not one a rule).
- A rule that remembers across rows (E106) has its started check declare `clean(row, line)`
  instead (`RecordingCheck`): the fast path records what the check would (the id), last.

Before any parse, a long catalog's lines meet one regular expression (linepattern.py), compiled
from what each row rule declares a clean line's fields look like (`facts`, a tuple of `Field`:
none for a rule the strict grammar already satisfies; None, or no `facts` at all, when the
rule cannot say, and then no line is vouched for by the pattern). A line the pattern matches
is a clean row by every rule's facts; any other line takes the path above.
"""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled
# one by one (the hook's start-up: see problem.py).
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple, Protocol, runtime_checkable

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
Clean = Callable[[dict[str, object]], bool]  # True: the rule cannot report a row parsed to this object
PREDICATE_ERRORS = (LookupError, TypeError, AttributeError)  # what reading an odd row may raise


TEXT = "text"  # a Field's kinds: a JSON string,
TEXTS = "texts"  # a JSON list of strings,
ANY = "any"  # or only present (the pattern cannot vouch for a field no rule gives a kind)


class Field(NamedTuple):
    """One fact a row rule declares about one field of every line it cannot report, in terms
    the line pattern can check in C. Facts about one field add up (their conjunction)."""

    name: str
    kind: str = ANY
    nonblank: bool = False  # TEXT: `strip()` leaves something; TEXTS: so does every item's
    among: tuple[str, ...] | None = None  # TEXT: one of these (written plainly, no escape)
    nonempty: bool = False  # TEXTS: at least one item
    # TEXTS: true only when the rule cannot report a list of these items: its JSON text when
    # it holds no escape (each item's characters are its value, between `", "`-like
    # separators), else the items joined by newlines
    free: Callable[[str], bool] | None = None


class Predicate:
    """A row rule's `clean`: one Python expression over `row` (the parsed object, any keys),
    true only when the rule cannot report that row, with the names it uses beside it. Sound,
    not complete: false sends the row to the rules, true means the rule is silent. An
    exception counts as false (a missing key, `.strip()` of a number), so an expression reads
    `row["risk"]` plainly: a clean row raises nothing, and fused, missing-field's test comes first.

    An expression, not a function, so that the engine can fuse every rule's into one
    function: seven calls a row cost the catalog's fast path more than the rules' work
    (measured on 50,000 rows: 2.2-2.7x the json.loads loop against 1.3x fused).
    """

    def __init__(self, expression: str, **names: object) -> None:
        self.expression = expression
        self.names = names
        self._test = compiled(expression, names)

    def __call__(self, row: dict[str, object]) -> bool:
        try:
            return bool(self._test(row))
        except PREDICATE_ERRORS:  # a row the expression cannot read is no clean row
            return False


def fused(predicates: Iterable[Predicate]) -> Clean:
    """One function true only when every predicate is (in order: an earlier one's truth may
    spare a later one work, never its correctness: each is safe on any object)."""
    names: dict[str, object] = {}
    expressions = []
    for predicate in predicates:
        for name, value in predicate.names.items():
            if names.setdefault(name, value) != value:
                raise ValueError(f"two rules' predicates name different values {name}")
        expressions.append(f"({predicate.expression})")
    return compiled(" and ".join(expressions) or "True", names)


def compiled(expression: str, names: dict[str, object]) -> Clean:
    test: Clean = eval(f"lambda row: {expression}", dict(names))  # the rules' own text, never input
    return test


@runtime_checkable
class RecordingCheck(Protocol):
    """A started check with memory across rows: `clean` says whether it can report the row,
    and records what it would have (the fast path calls it only once every other rule passed)."""

    def __call__(self, row: Row) -> Iterable[Finding]: ...

    def clean(self, row: dict[str, object], number: int) -> bool: ...

    # the line pattern's way in: the text field whose value is recorded (its text, plain)
    field: str

    def record(self, text: str, number: int) -> bool: ...


class Run(NamedTuple):
    """What a row rule may know of the run that starts it: one catalog, streamed once."""

    # The file's rows read again from the start (blank lines left out); None when there is
    # no way back (the rows come from memory, or every id must be kept exactly anyway).
    again: Callable[[], Iterator[Row]] | None = None
    expected: int = 0  # about how many rows the file holds


class RowRule(Rule, Protocol):
    @property
    def clean(self) -> Predicate | None: ...  # what lets the fast path skip the rule (above)

    def start(self, run: Run) -> RowCheck: ...


class CatalogRead(NamedTuple):
    """The catalog once every row is read."""

    cases: int  # its non-blank lines


class CatalogRule(Rule, Protocol):
    def check(self, catalog: CatalogRead) -> Iterator[Finding]: ...
