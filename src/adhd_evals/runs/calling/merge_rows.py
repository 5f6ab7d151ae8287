"""A shard's rows into their slots, for `merge` (merge.py): the fast path that takes a shard of
common rows as they are, and the general path that judges every line and names what is wrong.

Both put each row at its slot, its place in an unsharded `--jobs 1` run's output, so the merged
file needs no sort and a slot taken twice is a doubled row. What the fast path takes, the general
path takes too, the same bytes at the same slots with the same counts (the differential test,
tests/test_perf_shards2_merge.py); a shard it cannot take whole goes to the general path.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from ... import exitcodes
from ...catalog import open_rows
from ...errors import ScaleRefused
from ...text import plural
from . import shard as sharding
from .responses import is_dollars as dollars

if TYPE_CHECKING:
    from .merge import Part

Key = tuple[str, int, str, str]  # (case_id, trial, condition, runner)
SHOWN = 10  # rows named in a refusal before "and N more"


@dataclass
class Merged:
    """The merged rows, each at its slot: its place in an unsharded `--jobs 1` run's output
    ((run, trial, catalog place) numbered densely), so no sort is needed and a slot taken twice
    is a doubled row."""

    runs: dict[tuple[str, str], int]  # (condition, runner) -> the run's place
    trials: int
    width: int  # places in the catalog
    shards: int = 0
    rows: int = 0
    spent: float = 0.0  # what the calls cost (rows from the cache excluded: they cost an earlier run)
    cached: int = 0
    cached_cost: float = 0.0
    unmetered: int = 0
    slots: list[bytes | None] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # the line each slot's row came from

    def slot(self, place: int, trial: int, at: int) -> int:
        return (place * self.trials + trial - 1) * self.width + at

    def text(self, chunk: int = 4096) -> Iterator[str]:
        taken = [raw for raw in self.slots if raw is not None]
        for start in range(0, len(taken), chunk):
            yield b"".join(taken[start : start + chunk]).decode("utf-8", "surrogateescape")


_SCAN: Any = getattr(json.JSONDecoder(), "scan_once")  # noqa: B009  # the C scanner json.loads ends in, without its per-call checks


def _decode(raw: bytes) -> Any:
    """One line's value, or None when it is not one JSON value (trailing text included)."""
    try:
        text = raw.decode("utf-8")
        value, end = _SCAN(text, 0)
    except (StopIteration, ValueError, RecursionError):
        try:  # leading whitespace, or not JSON at all: the slow path says which
            return json.loads(raw)
        except (ValueError, RecursionError):
            return None
    return value if end == len(text) or not text[end:].strip() else None


Planned = dict[tuple[str, str], tuple[int, dict[str, int]]]  # (condition, runner) -> (trials, id -> place)
_CHUNK = 1 << 22  # bytes of whole lines read at once by the fast path
_SEALED_END = (
    len(sharding.SEAL_TAIL) + 67
)  # from a seal's tail to the line's end: 64 hex digits, '"}', newline


def take_rows(part: Part, merged: Merged) -> list[str]:
    """The shard's rows in their slots, and what it lacks: by the fast path when every line is a
    common row, else by the general path (`_read_rows`), which names what is wrong."""
    planned = part.planned()
    if _fast_rows(part, merged, planned):
        return _absent(part, planned, merged)
    return _read_rows(part, merged, planned)


@dataclass
class _Taken:
    """What the fast path took from one shard, kept apart from `Merged` until every line passed."""

    slots: list[int] = field(default_factory=list)
    common: int = 0  # rows with a float cost, not from the cache
    spent: float = 0.0  # their cost, summed in line order as the general path sums it
    others: list[tuple[object, object]] = field(default_factory=list)  # (cost_usd, cached) of the rest


class _Common(NamedTuple):
    """A common row's fields, as `_common` read them from its line."""

    run: tuple[str, str]  # (condition, runner)
    case_id: str
    trial: int
    cost: object  # None or dollars
    cached: object  # the row's "cached", or _ABSENT
    line: bytes  # the line without its seal, with its newline


_ABSENT = object()


def _fast_rows(part: Part, merged: Merged, planned: Planned) -> bool:
    """Take a shard whose every line is a common row, or nothing (False, `merged` as it was).

    A common row is one the general path takes as it is: a line ending in its seal, the seal
    holding for this catalog, one JSON object from its first byte to its newline, planned here,
    new, and its cost dollars or absent. Each line is decoded once, after its seal held on its
    bytes; lines are read in large chunks, and what a row costs is tallied apart, so a shard with
    any other line (blank, torn, doubled, of another catalog) is read again from the start by
    the general path, which says what is wrong: one reader of refusals."""
    first = {key: merged.runs[key] * merged.trials for key in planned}
    prefix = sharding.seal_prefix(part.record["catalog_sha256"])
    slots, lines, width = merged.slots, merged.lines, merged.width
    taken = _Taken()
    with open_rows(part.path, "shard output") as stream:
        number = 0
        for chunk in iter(lambda: stream.readlines(_CHUNK), []):
            for raw in chunk:
                number += 1
                row = _common(raw, prefix)
                run = None if row is None else planned.get(row.run)
                at = None if run is None or row is None or row.trial > run[0] else run[1].get(row.case_id)
                if (
                    row is None
                    or at is None
                    or slots[(first[row.run] + row.trial - 1) * width + at] is not None
                ):
                    _undo(taken, merged)
                    return False
                slot = (first[row.run] + row.trial - 1) * width + at
                slots[slot], lines[slot] = row.line, number
                taken.slots.append(slot)
                _tally(row, taken)
    _commit(taken, merged)
    return True


def _common(raw: bytes, prefix: sharding.Hash) -> _Common | None:
    """A sealed line's row when it is a common row's shape (see _fast_rows); None otherwise."""
    at = len(raw) - _SEALED_END
    if at < 0 or raw[at : at + len(sharding.SEAL_TAIL)] != sharding.SEAL_TAIL or raw[-3:] != b'"}\n':
        return None
    check = prefix.copy()
    check.update(raw[:at])
    check.update(b"}")
    if check.hexdigest().encode("ascii") != raw[at + len(sharding.SEAL_TAIL) : -3]:
        return None
    try:
        text = raw.decode("utf-8")
        row, end = _SCAN(text, 0)
    except (StopIteration, ValueError, RecursionError):
        return None
    if end != len(text) - 1 or type(row) is not dict:
        return None
    condition, runner, case_id, trial = (
        row.get("condition"),
        row.get("runner"),
        row.get("case_id"),
        row.get("trial"),
    )
    if type(condition) is not str or type(runner) is not str or type(case_id) is not str:
        return None
    if type(trial) is not int or trial < 1 or type(row.get("response")) is not str:
        return None
    cost = row.get("cost_usd")
    if cost is not None and not dollars(cost):
        return None
    return _Common((condition, runner), case_id, trial, cost, row.get("cached", _ABSENT), raw[:at] + b"}\n")


def _tally(row: _Common, taken: _Taken) -> None:
    """The row's cost, counted as the general path counts it (its common rows apart)."""
    if type(row.cost) is float and row.cached is _ABSENT:
        taken.common += 1
        taken.spent += row.cost
    else:
        taken.others.append((row.cost, row.cached))


def _commit(taken: _Taken, merged: Merged) -> None:
    """The shard's counts into `merged`, the floats added in the general path's order."""
    merged.rows += taken.common + len(taken.others)
    for cost, cached in taken.others:
        _count_cost(cost, cached, merged)
    merged.spent += taken.spent


def _undo(taken: _Taken, merged: Merged) -> None:
    for slot in taken.slots:
        merged.slots[slot], merged.lines[slot] = None, 0


def _read_rows(part: Part, merged: Merged, planned: Planned) -> list[str]:
    """Put the shard's rows in their slots; refuses a row twice or unplanned; returns what is missing.

    The general path: every line decoded and judged on its own, and anything but a row it takes
    goes to `_problem` to be named (`_fast_rows` takes the common shard without it)."""
    first = {key: merged.runs[key] * merged.trials for key in planned}  # the run's first block of slots
    catalog = part.record["catalog_sha256"]

    def sealed(raw: bytes) -> bool:
        return sharding.seal_holds(catalog, raw)

    slots, lines, width = merged.slots, merged.lines, merged.width
    problems: list[tuple[int, str]] = []
    spent = 0.0
    with open_rows(part.path, "shard output") as stream:
        for number, raw in enumerate(stream, start=1):
            row = _decode(raw)
            if type(row) is dict:
                condition, runner, case_id, trial = (
                    row.get("condition"),
                    row.get("runner"),
                    row.get("case_id"),
                    row.get("trial"),
                )
                if type(condition) is str and type(runner) is str and type(trial) is int:
                    run = planned.get((condition, runner))
                    if run is not None and 1 <= trial <= run[0] and type(row.get("response")) is str:
                        at = run[1].get(case_id) if type(case_id) is str else None
                        slot = -1 if at is None else (first[(condition, runner)] + trial - 1) * width + at
                        cost = row.get("cost_usd")
                        if (
                            slot >= 0
                            and slots[slot] is None
                            and sealed(raw)
                            and (cost is None or dollars(cost))
                        ):
                            slots[slot], lines[slot] = sharding.unsealed(raw), number
                            if type(cost) is float and "cached" not in row:
                                spent += cost  # the common row, counted here; any other by _count
                                merged.rows += 1
                            else:
                                _count(row, merged)
                            continue
            if raw.strip():
                problems.append(_problem(part, number, row, planned, merged))
    merged.spent += spent
    _refuse(problems)
    return _absent(part, planned, merged)


def _problem(
    part: Part,
    number: int,
    row: Any,
    planned: dict[tuple[str, str], tuple[int, dict[str, int]]],
    merged: Merged,
) -> tuple[int, str]:
    """Why a line did not take a slot: not a row, not planned here, or a slot already taken."""
    key = _key(row)
    if key is None:
        return (
            exitcodes.SHARD_FOREIGN,
            f"{part.path}:{number}: not a response row (a torn line? rerun the shard to repair it)",
        )
    case_id, trial, condition, runner = key
    run = planned.get((condition, runner))
    at = run[1].get(case_id) if run is not None and 1 <= trial <= run[0] else None
    if run is None or at is None:
        return (
            exitcodes.SHARD_FOREIGN,
            f"{part.path}:{number}: {_shown(key)} is not in the plan of {part.name}",
        )
    cost = row.get("cost_usd")
    if cost is not None and not dollars(cost):
        return (
            exitcodes.SHARD_FOREIGN,
            f"{part.path}:{number}: {_shown(key)}: cost_usd is {json.dumps(cost)}, not a finite number "
            "of dollars, 0 or more",
        )
    first = merged.lines[merged.slot(merged.runs[(condition, runner)], trial, at)]
    if first == 0:  # its slot is free: the line itself is what is wrong
        return (
            exitcodes.SHARD_FOREIGN,
            f"{part.path}:{number}: {_shown(key)} does not match its seal: edited since it was written, "
            f"or written for another catalog than {part.name} records; rerun that case",
        )
    return (
        exitcodes.ROW_DUPLICATED,
        f"{part.path}:{number}: {_shown(key)} is there twice (first on line {first})",
    )


def _absent(
    part: Part, planned: dict[tuple[str, str], tuple[int, dict[str, int]]], merged: Merged
) -> list[str]:
    slots, width = merged.slots, merged.width
    absent = [
        (case_id, trial, condition, runner)
        for (condition, runner), (trials, cases) in planned.items()
        for trial in range(1, trials + 1)
        for base in [(merged.runs[(condition, runner)] * merged.trials + trial - 1) * width]
        for case_id, at in cases.items()
        if slots[base + at] is None
    ]
    if not absent:
        return []
    more = f"; and {len(absent) - SHOWN} more" if len(absent) > SHOWN else ""
    return [
        f"{part.name} lacks {plural(len(absent), 'planned row')} (stopped early? rerun its command to "
        "finish): " + "; ".join(map(_shown, absent[:SHOWN])) + more
    ]


def _key(row: Any) -> Key | None:
    if not isinstance(row, dict):
        return None
    case_id, trial, condition, runner = (
        row.get("case_id"),
        row.get("trial"),
        row.get("condition"),
        row.get("runner"),
    )
    if type(trial) is not int or not isinstance(case_id, str) or not isinstance(condition, str):
        return None
    if not isinstance(runner, str) or not isinstance(row.get("response"), str):
        return None
    return case_id, trial, condition, runner


def _count(row: Mapping[str, object], merged: Merged) -> None:
    merged.rows += 1
    _count_cost(row.get("cost_usd"), row.get("cached"), merged)


def _count_cost(cost: object, cached: object, merged: Merged) -> None:
    """A taken row's cost where it belongs: spent, from the cache (paid before), or unknown."""
    if isinstance(cost, bool) or not isinstance(cost, (int, float)):
        merged.unmetered += 1
    elif cached is True:
        merged.cached += 1
        merged.cached_cost += cost
    else:
        merged.spent += cost


def _refuse(problems: list[tuple[int, str]]) -> None:
    if not problems:
        return
    code = min(code for code, _ in problems)  # doubled before foreign: the likelier slip first
    lines = [text for _, text in problems[:SHOWN]]
    if len(problems) > SHOWN:
        lines.append(f"and {len(problems) - SHOWN} more")
    raise ScaleRefused(lines, code)


def _shown(key: Key) -> str:
    case_id, trial, condition, runner = key
    return f"case {case_id} trial {trial} {condition}/{runner}"
