"""E106 duplicate-id: no two cases share an id. Points at both lines.

Responses, scores and checks are paired by case id: two cases with one id mix
their results.

Passing: ids `a`, `b`.
Failing: ids `a`, `b`, `a` (line 3 repeats line 1).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator

from ..problem import ERROR, Finding
from .contract import ROW, Run
from .position import column_of
from .row import Row

ID = "E106"
NAME = "duplicate-id"
SEVERITY = ERROR
SCOPE = ROW
facts = ()  # its started check records the id the line pattern captures (DuplicateIds.field)
clean = None  # what it remembers is the started check's: DuplicateIds.clean


def start(run: Run) -> DuplicateIds:
    """The rule for one run, with its own memory of the ids seen. With a way to read the file
    again, only hashes are kept until one repeats; else every id from the start."""
    if run.again is None:
        return DuplicateIds(SeenIds())
    again = run.again
    return DuplicateIds(SeenIds(lambda: _ids(again()), run.expected))


class DuplicateIds:
    """E106 in one run: the ids seen so far are its state. The catalog's fast path records
    the ids of the rows it proves clean here too (`seen.add`), so no id is missed."""

    field = "id"  # what it records, for the line pattern

    def __init__(self, seen: SeenIds) -> None:
        self.seen = seen

    def clean(self, row: dict[str, object], number: int) -> bool:
        """True (and the id recorded) when the row's id is no repeat; the fast path asks last."""
        case_id = row.get("id")
        return type(case_id) is not str or self.record(case_id, number)

    def record(self, text: str, number: int) -> bool:
        """`clean` of a row whose id is this text (an empty id is E105's, never recorded)."""
        return not text or self.seen.add(text, number)

    def __call__(self, row: Row) -> Iterator[Finding]:
        case_id = _id(row)
        if case_id is None:
            return
        first = self.seen.first(case_id, row.number)
        if first is not None:
            yield Finding(
                row.number, column_of(row.text, "id"), f'duplicate id "{case_id}": line {first} has it too'
            )
        else:
            self.seen.add(case_id, row.number)


def _id(row: Row) -> str | None:
    """The id this rule records for a row: a non-empty string of a row that parsed whole."""
    if not (row.parsed and isinstance(row.value, dict)):
        return None
    case_id = row.value.get("id")
    return case_id if isinstance(case_id, str) and case_id else None


def _ids(rows: Iterable[Row]) -> Iterator[tuple[int, str]]:
    """(line, id) of every row the rule records, in order."""
    for row in rows:
        case_id = _id(row)
        if case_id is not None:
            yield row.number, case_id


Reread = Callable[[], Iterable[tuple[int, str]]]  # (line, id) of every row that has an id, in order


class SeenIds:
    """The ids of a catalog read so far, and the line where each first appeared.

    While every id is new, only a 64-bit hash of each is kept, in one flat
    array (8 bytes a slot whatever an id's length: a million ids in 16 MiB,
    where a dict of them takes 120). The first time a hash repeats, the rows
    read so far are read again (`reread`) into an exact dict, which serves the
    rest of the file: lines are found again only when a duplicate appears.
    Without `reread` (rows held in memory anyway) the dict is used from the start.
    """

    def __init__(self, reread: Reread | None = None, expected: int = 0) -> None:
        self.reread = reread
        self.exact: dict[str, int] | None = None if reread is not None else {}
        self.table = array("q", bytes(8 * max(1024, 2 * expected)))  # half full at most; 0: free
        self.count = 0

    def add(self, case_id: str, number: int) -> bool:
        """Record a first appearance; False (and nothing recorded) when it may be a repeat."""
        exact = self.exact
        if exact is not None:
            if case_id in exact:
                return False
            exact[case_id] = number
            return True
        digest = hash(case_id) or 1
        slot = _slot(self.table, digest)
        if self.table[slot]:
            return False
        self.table[slot] = digest
        self.count += 1
        if 2 * self.count > len(self.table):
            self._grow()
        return True

    def first(self, case_id: str, before: int) -> int | None:
        """The line where `case_id` first appeared, of the lines before `before`."""
        if self.exact is None:
            if self._absent(case_id):
                return None
            self.exact = self._rebuild(before)
        return self.exact.get(case_id)

    def _absent(self, case_id: str) -> bool:
        return not self.table[_slot(self.table, hash(case_id) or 1)]

    def _rebuild(self, before: int) -> dict[str, int]:
        assert self.reread is not None  # only hashes are kept when there is a way back
        exact: dict[str, int] = {}
        for number, case_id in self.reread():
            if number >= before:
                break
            exact.setdefault(case_id, number)
        self.table = array("q")  # the dict serves from here on
        return exact

    def _grow(self) -> None:
        old = self.table
        self.table = table = array("q", bytes(16 * len(old)))
        for digest in old:
            if digest:
                table[_slot(table, digest)] = digest


def _slot(table: array[int], digest: int) -> int:
    """Where `digest` is in the table, or the free slot where it would go (linear probing)."""
    size = len(table)
    slot = digest % size
    while table[slot] and table[slot] != digest:
        slot = (slot + 1) % size
    return slot
