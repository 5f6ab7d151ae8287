"""`adhd-evals merge`: shard outputs into one responses file, proving nothing was lost or doubled.

The shards must belong together: the same shard count, catalog (by hash),
and for every run the same runner config, trials and skill file, as their
sidecars record. Then every planned row must be present exactly once: a
missing shard, a missing row, a row twice and a row no shard planned are
each refused by name, and nothing is written. So are a run narrowed by
`--case` (its slice's other cases are missing), a row whose seal does not
hold (edited since, or of another catalog) and a cost that is not dollars.
The merged rows are the shards' lines with their seals taken off, in the
order one unsharded `--jobs 1` run writes them (run by run, trial by trial,
in catalog order), so the merged file is the single run's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from ... import exitcodes
from ...catalog import open_rows
from ...errors import ScaleRefused
from ...text import plural
from . import shard as sharding
from . import sidecar
from .responses import is_dollars as dollars

Key = tuple[str, int, str, str]  # (case_id, trial, condition, runner)
SHOWN = 10  # rows named in a refusal before "and N more"
_INFINITY = float("inf")
SAMPLE = 64  # planned cases whose shard is checked against the hash (a doubled case is refused anyway)


class Merged:
    """The merged rows, each at its slot: its place in an unsharded `--jobs 1` run's output
    ((run, trial, catalog place) numbered densely), so no sort is needed and a slot taken twice
    is a doubled row."""

    # Plain classes here, not dataclasses: merge's start-up need not pay for dataclasses' code
    # generation (nor, once nothing else on its path uses them, their import with inspect).
    __slots__ = (
        "cached",
        "cached_cost",
        "lines",
        "rows",
        "runs",
        "shards",
        "slots",
        "spent",
        "trials",
        "unmetered",
        "width",
    )

    def __init__(self, runs: dict[tuple[str, str], int], trials: int, width: int, *, shards: int) -> None:
        self.runs = runs  # (condition, runner) -> the run's place
        self.trials = trials
        self.width = width  # places in the catalog
        self.shards = shards
        self.rows = 0
        self.spent = 0.0  # what the calls cost (rows from the cache excluded: they cost an earlier run)
        self.cached = 0
        self.cached_cost = 0.0
        self.unmetered = 0
        self.slots: list[bytes | None] = []
        self.lines: list[int] = []  # the line each slot's row came from

    def slot(self, place: int, trial: int, at: int) -> int:
        return (place * self.trials + trial - 1) * self.width + at

    def text(self, chunk: int = 4096) -> Iterator[str]:
        taken = [raw for raw in self.slots if raw is not None]
        for start in range(0, len(taken), chunk):
            yield b"".join(taken[start : start + chunk]).decode("utf-8", "surrogateescape")


class Part(NamedTuple):
    path: Path
    record: sidecar.ShardRecord

    @property
    def name(self) -> str:
        return f"{self.path} (shard {self.record['index']}/{self.record['count']})"

    def planned(self) -> dict[tuple[str, str], tuple[int, dict[str, int]]]:
        """(condition, runner) -> (trials, case id -> catalog place): the rows this shard owes —
        every case of its slice, whatever `--case` narrowed a run to."""
        whole = dict(zip(self.record["ids"], self.record["places"], strict=True))
        return {(run["condition"], run["runner"]["name"]): (run["trials"], whole) for run in self.runs()}

    def runs(self) -> list[sidecar.RecordedRun]:
        return list(self.record["runs"].values())

    def narrowed(self) -> list[str]:
        """Each run that ran fewer cases than its slice, said with the cases it left out."""
        said = []
        for run in self.runs():
            ran = set(sidecar.run_cases(self.record, run))
            left = [case_id for case_id in self.record["ids"] if case_id not in ran]
            if left:
                shown = ", ".join(left[:SHOWN]) + (
                    f" and {len(left) - SHOWN} more" if len(left) > SHOWN else ""
                )
                said.append(
                    f"{self.name}: run {run['condition']} {run['runner']['name']} ran {len(ran)} of its "
                    f"slice's {plural(len(self.record['ids']), 'case')} (narrowed by --case): {shown} "
                    "not run; rerun it without --case to finish"
                )
        return said


def merge(paths: list[Path], plan: Path | None = None) -> Merged:
    parts = [Part(path, sidecar.read_sidecar(sidecar.sidecar_path(path))) for path in paths]
    parts = _belong_together(parts)
    narrowed = [said for part in parts for said in part.narrowed()]
    if narrowed:
        raise ScaleRefused(narrowed, exitcodes.SHARD_MISSING)
    if plan is not None:
        _against_plan(plan, parts)
    runs = parts[0].record["runs"].values()
    width = 1 + max((max(part.record["places"], default=0) for part in parts), default=0)
    trials = max((run["trials"] for run in runs), default=1)
    order = {(run["condition"], run["runner"]["name"]): place for place, run in enumerate(runs)}
    merged = Merged(order, trials, width, shards=len(parts))
    merged.slots = [None] * (len(order) * trials * width)
    merged.lines = [0] * len(merged.slots)
    absent = [line for part in parts for line in _read_rows(part, merged)]
    if absent:
        raise ScaleRefused(absent, exitcodes.SHARD_MISSING)
    return merged


def judged(paths: list[Path]) -> bool:
    """Whether any shard has a judge's record beside it (then merge writes the judge's record
    too, or refuses shards of two judges: judging/admission.py's merged_record)."""
    return any(path.with_name(path.name + sharding.JUDGE_RECORD_SUFFIX).exists() for path in paths)


def _belong_together(parts: list[Part]) -> list[Part]:
    """Refuse a foreign shard, a shard given twice, and a missing one; the parts by index."""
    first = min(parts, key=lambda p: p.record["index"])
    foreign = [problem for part in parts for problem in _foreign(part, first)]
    if foreign:
        raise ScaleRefused(foreign, exitcodes.SHARD_FOREIGN)
    seen: dict[int, Part] = {}
    doubled = []
    for part in parts:
        index = part.record["index"]
        if index in seen:
            doubled.append(
                f"{seen[index].path} and {part.path} are both shard {index}/{part.record['count']}: "
                "its rows would be merged twice"
            )
        seen.setdefault(index, part)
    if doubled:
        raise ScaleRefused(doubled, exitcodes.ROW_DUPLICATED)
    count = first.record["count"]
    missing = [index for index in range(1, count + 1) if index not in seen]
    if missing:
        raise ScaleRefused(
            [f"shard {index}/{count} is missing: none of the files given is it" for index in missing],
            exitcodes.SHARD_MISSING,
        )
    held, planned = sum(len(part.record["ids"]) for part in parts), first.record["plan"]["cases"]
    if held != planned:  # each slice is whole and no case is in two: they add up to the plan
        raise ScaleRefused(
            [f"the shards' slices hold {plural(held, 'case')}, their plan {planned}: a record was edited"],
            exitcodes.SHARD_FOREIGN,
        )
    return [seen[index] for index in range(1, count + 1)]


def _foreign(part: Part, first: Part) -> list[str]:
    mine, theirs = part.record, first.record
    if mine["count"] != theirs["count"]:
        return [
            f"{part.name} is a shard of {mine['count']}, {first.name} of {theirs['count']}: "
            "they are not shards of one split"
        ]
    if mine["catalog_sha256"] != theirs["catalog_sha256"]:
        return [f"{part.name} was run on another catalog than {first.name} (catalog hashes differ)"]
    if mine["plan"] != theirs["plan"]:
        return [f"{part.name} was planned from other cases than {first.name} (plan digests differ)"]
    problems = []
    runs, reference = mine["runs"], theirs["runs"]
    if set(runs) != set(reference):
        problems.append(f"{part.name} holds the runs {_names(runs)}, {first.name} holds {_names(reference)}")
    for name in sorted(set(runs) & set(reference)):
        differs = [
            k for k in ("runner", "trials", "skill_sha256") if runs[name].get(k) != reference[name].get(k)
        ]
        if differs:
            problems.append(f"{part.name}: run {name} differs from {first.name} in {', '.join(differs)}")
    count, index = mine["count"], mine["index"]
    # a sample: another split (or hash) shows in the first cases; a case planned twice is refused anyway
    strays = [case_id for case_id in mine["ids"][:SAMPLE] if sharding.shard_of(case_id, count) != index]
    if strays:
        problems.append(f"{part.name} planned cases of other shards ({', '.join(strays[:SHOWN])})")
    return problems


def _names(runs: dict[str, sidecar.RecordedRun]) -> str:
    return ", ".join(sorted(runs)) or "none"


_SCAN: Any = getattr(json.JSONDecoder(), "scan_once")  # noqa: B009  # the C scanner json.loads ends in, without its per-call checks


def _decode(raw: bytes) -> Any:
    """One line's value, or None when it is not one JSON value (trailing text included) or not
    UTF-8: json.loads would read a lone surrogate's bytes (surrogatepass), which no merged file
    can hold (writing it failed as an internal error; a shard never writes them: they are escaped)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    try:
        value, end = _SCAN(text, 0)
    except (StopIteration, ValueError, RecursionError):
        try:  # leading whitespace, or not JSON at all: the slow path says which
            return json.loads(raw)
        except (ValueError, RecursionError):
            return None
    last = len(text) - 1  # a line's newline (the common end) needs no slice to be seen
    return value if end > last or (end == last and text[last] == "\n") or not text[end:].strip() else None


def _read_rows(part: Part, merged: Merged, *, common: bool = True) -> list[str]:
    """Put the shard's rows in their slots; refuses a row twice or unplanned; returns what is missing.

    The loop is the merge's cost (30,000 rows in the benchmark), so the common row (planned, new,
    sealed, a float cost, not from the cache) takes one path of dictionary lookups inline; every
    other line goes to `_taken`, the general path, which takes it or names what is wrong. Without
    `common` every line goes there (the tests hold the two paths to one result)."""
    planned = part.planned()
    # (condition, runner) -> (trials, case id -> place, the run's first slot): one lookup a row
    runs = {
        key: (trials, cases, merged.runs[key] * merged.trials) for key, (trials, cases) in planned.items()
    }
    unseal = sharding.opener(part.record["catalog_sha256"])
    slots, lines, width = merged.slots, merged.lines, merged.width
    problems: list[tuple[int, str]] = []
    spent, taken = 0.0, 0
    with open_rows(part.path, "shard output") as stream:
        for number, raw in enumerate(stream, start=1):
            row = _decode(raw)
            if common and type(row) is dict:
                slot = _slot(row, runs, width)
                cost = row.get("cost_usd")
                if (
                    slot >= 0
                    and slots[slot] is None
                    and type(cost) is float
                    and 0.0 <= cost < _INFINITY  # dollars: NaN fails the first test
                    and "cached" not in row
                    and (line := unseal(raw)) is not None
                ):
                    slots[slot], lines[slot] = line, number
                    spent += cost
                    taken += 1
                    continue
            if raw.strip() and (problem := _taken(part, number, (raw, row), planned, merged, unseal)):
                problems.append(problem)
    merged.spent += spent
    merged.rows += taken
    _refuse(problems)
    return _absent(part, planned, merged)


def _slot(
    row: dict[str, object], runs: dict[tuple[str, str], tuple[int, dict[str, int], int]], width: int
) -> int:
    """The common row's slot: -1 unless its condition, runner and case are planned here with a
    trial of the run's, and its response is text (anything else is the general path's)."""
    get = row.get
    condition, runner, case_id, trial = get("condition"), get("runner"), get("case_id"), get("trial")
    if type(condition) is not str or type(runner) is not str or type(trial) is not int:
        return -1
    run = runs.get((condition, runner))
    if (
        run is None
        or not 1 <= trial <= run[0]
        or type(case_id) is not str
        or type(get("response")) is not str
    ):
        return -1
    at = run[1].get(case_id)
    return -1 if at is None else (run[2] + trial - 1) * width + at


def _taken(
    part: Part,
    number: int,
    read: tuple[bytes, Any],
    planned: dict[tuple[str, str], tuple[int, dict[str, int]]],
    merged: Merged,
    unseal: Callable[[bytes], bytes | None],
) -> tuple[int, str] | None:
    """The general path: a line (as read, and decoded) put in its slot when it is a response row
    planned here, whose slot is free, whose cost is none or dollars and whose seal holds; else
    why not (`_problem`)."""
    raw, row = read
    key = _key(row)
    if key is not None:
        case_id, trial, condition, runner = key
        run = planned.get((condition, runner))
        at = run[1].get(case_id) if run is not None and 1 <= trial <= run[0] else None
        slot = -1 if at is None else merged.slot(merged.runs[(condition, runner)], trial, at)
        cost = row.get("cost_usd")
        if slot >= 0 and merged.slots[slot] is None and (cost is None or dollars(cost)):
            opened = unseal(raw)
            if opened is not None:
                merged.slots[slot], merged.lines[slot] = opened, number
                _count(row, merged)
                return None
    return _problem(part, number, row, planned, merged)


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
    cost = row.get("cost_usd")
    if isinstance(cost, bool) or not isinstance(cost, (int, float)):
        merged.unmetered += 1
    elif row.get("cached") is True:
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


def _against_plan(plan: Path, parts: list[Part]) -> None:
    """Every row of `plan` (case_id, trial, condition: `adhd-evals plan`'s output) planned by some
    shard for each runner of its condition, and no shard planning a row the plan lacks."""
    from ...catalog import read_object_rows

    wanted = set()
    for row in read_object_rows(plan, what="plan file"):
        case_id, trial, condition = row.get("case_id"), row.get("trial"), row.get("condition")
        if isinstance(case_id, str) and type(trial) is int and isinstance(condition, str):
            wanted.add((case_id, trial, condition))
    covered = {
        (case_id, trial, condition)
        for part in parts
        for (condition, _), (trials, cases) in part.planned().items()
        for trial in range(1, trials + 1)
        for case_id in cases
    }
    absent = sorted(wanted - covered, key=str)
    if absent:
        raise ScaleRefused(
            [
                f"{plan}: {plural(len(absent), 'planned row')} no shard ran: "
                + "; ".join(f"case {c} trial {t} {d}" for c, t, d in absent[:SHOWN])
            ],
            exitcodes.SHARD_MISSING,
        )
    extra = sorted(covered - wanted, key=str)
    if extra:
        raise ScaleRefused(
            [
                f"{plan}: the shards ran {plural(len(extra), 'row')} the plan does not hold: "
                + "; ".join(f"case {c} trial {t} {d}" for c, t, d in extra[:SHOWN])
            ],
            exitcodes.SHARD_FOREIGN,
        )
