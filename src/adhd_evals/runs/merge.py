"""`adhd-evals merge`: shard outputs into one responses file, proving nothing was lost or doubled.

The shards must belong together: the same shard count, catalog (by hash),
and for every run the same runner config, trials and skill file, as their
sidecars record. Then every planned row must be present exactly once: a
missing shard, a missing row, a row twice and a row no shard planned are
each refused by name, and nothing is written. The merged rows are the
shards' lines unchanged, in the order one unsharded `--jobs 1` run writes
them (run by run, trial by trial, in catalog order), so scores from the
merged file equal scores from a single run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import exitcodes
from ..catalog import open_rows
from ..errors import ScaleRefused
from ..text import plural
from . import shard as sharding

Key = tuple[str, int, str, str]  # (case_id, trial, condition, runner)
SHOWN = 10  # rows named in a refusal before "and N more"


@dataclass
class Merged:
    shards: int = 0
    rows: int = 0
    spent: float = 0.0  # what the calls cost (rows from the cache excluded: they cost an earlier run)
    cached: int = 0
    cached_cost: float = 0.0
    unmetered: int = 0
    lines: list[tuple[tuple[int, int, int], bytes]] = field(default_factory=list)

    def text(self) -> Iterator[str]:
        self.lines.sort(key=lambda item: item[0])
        for _, raw in self.lines:
            yield raw.decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class Part:
    path: Path
    record: dict[str, Any]

    @property
    def name(self) -> str:
        return f"{self.path} (shard {self.record['index']}/{self.record['count']})"


def merge(paths: list[Path], plan: Path | None = None) -> Merged:
    parts = [Part(path, sharding.read_sidecar(sharding.sidecar_path(path))) for path in paths]
    parts = _belong_together(parts)
    order = _run_order(parts[0])
    planned = {part.path: _planned(part, order) for part in parts}
    if plan is not None:
        _against_plan(plan, planned)
    merged = Merged(shards=len(parts))
    absent = [line for part in parts for line in _read_rows(part, planned[part.path], merged)]
    if absent:
        raise ScaleRefused(absent, exitcodes.SHARD_MISSING)
    return merged


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
            doubled.append(f"{seen[index].path} and {part.path} are both shard {index}/{part.record['count']}: "
                           "its rows would be merged twice")  # fmt: skip
        seen.setdefault(index, part)
    if doubled:
        raise ScaleRefused(doubled, exitcodes.ROW_DUPLICATED)
    count = first.record["count"]
    missing = [index for index in range(1, count + 1) if index not in seen]
    if missing:
        raise ScaleRefused([f"shard {index}/{count} is missing: none of the files given is it"
                            for index in missing], exitcodes.SHARD_MISSING)  # fmt: skip
    return [seen[index] for index in range(1, count + 1)]


def _foreign(part: Part, first: Part) -> list[str]:
    mine, theirs = part.record, first.record
    if mine["count"] != theirs["count"]:
        return [f"{part.name} is a shard of {mine['count']}, {first.name} of {theirs['count']}: "
                "they are not shards of one split"]  # fmt: skip
    if mine["catalog_sha256"] != theirs["catalog_sha256"]:
        return [f"{part.name} was run on another catalog than {first.name} (catalog hashes differ)"]
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
    for name, run in runs.items():
        strays = [case_id for _, case_id in run["cases"] if sharding.shard_of(case_id, count) != index]
        if strays:
            problems.append(
                f"{part.name}: run {name} planned cases of other shards ({', '.join(strays[:SHOWN])})"
            )
    return problems


def _names(runs: dict[str, Any]) -> str:
    return ", ".join(sorted(runs)) or "none"


def _run_order(first: Part) -> dict[tuple[str, str], int]:
    """(condition, runner) -> its place: the order the runs were made in (the sidecar keeps it)."""
    return {
        (run["condition"], run["runner"]["name"]): at for at, run in enumerate(first.record["runs"].values())
    }


def _planned(part: Part, order: dict[tuple[str, str], int]) -> dict[Key, tuple[int, int, int]]:
    """Each row the shard must hold, with its place in an unsharded run's output."""
    rows = {}
    for run in part.record["runs"].values():
        condition, runner = run["condition"], run["runner"]["name"]
        place = order[(condition, runner)]
        for trial in range(1, run["trials"] + 1):
            for at, case_id in run["cases"]:
                rows[(case_id, trial, condition, runner)] = (place, trial, at)
    return rows


def _read_rows(part: Part, planned: dict[Key, tuple[int, int, int]], merged: Merged) -> list[str]:
    """Add the shard's rows; refuses a row twice or unplanned; returns what is missing."""
    seen: dict[Key, int] = {}
    problems: list[tuple[int, str]] = []
    with open_rows(part.path, "shard output") as stream:
        for number, raw in enumerate(stream, start=1):
            if not raw.strip():
                continue
            row = _row(raw)
            key = _key(row)
            if key is None:
                problems.append((exitcodes.SHARD_FOREIGN,
                                 f"{part.path}:{number}: not a response row (a torn line? rerun the shard to "
                                 "repair it)"))  # fmt: skip
                continue
            if key in seen:
                problems.append((exitcodes.ROW_DUPLICATED, f"{part.path}:{number}: {_shown(key)} is there twice "
                                 f"(first on line {seen[key]})"))  # fmt: skip
                continue
            place = planned.get(key)
            if place is None:
                problems.append((exitcodes.SHARD_FOREIGN,
                                 f"{part.path}:{number}: {_shown(key)} is not in the plan of {part.name}"))  # fmt: skip
                continue
            seen[key] = number
            _count(row, merged)
            merged.lines.append((place, raw if raw.endswith(b"\n") else raw + b"\n"))
    _refuse(problems)
    absent = [key for key in planned if key not in seen]
    if not absent:
        return []
    more = f"; and {len(absent) - SHOWN} more" if len(absent) > SHOWN else ""
    return [f"{part.name} lacks {plural(len(absent), 'planned row')} (stopped early? rerun its command to "
            "finish): " + "; ".join(map(_shown, absent[:SHOWN])) + more]  # fmt: skip


def _row(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


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


def _count(row: dict[str, Any], merged: Merged) -> None:
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


def _against_plan(plan: Path, planned: dict[Path, dict[Key, tuple[int, int, int]]]) -> None:
    """Every row of `plan` (case_id, trial, condition: `adhd-evals plan`'s output) planned by some
    shard for each runner of its condition, and no shard planning a row the plan lacks."""
    from ..catalog import read_object_rows

    wanted = set()
    for row in read_object_rows(plan, what="plan file"):
        case_id, trial, condition = row.get("case_id"), row.get("trial"), row.get("condition")
        if isinstance(case_id, str) and type(trial) is int and isinstance(condition, str):
            wanted.add((case_id, trial, condition))
    covered = {
        (case_id, trial, condition) for rows in planned.values() for case_id, trial, condition, _ in rows
    }
    absent = sorted(wanted - covered, key=str)
    if absent:
        raise ScaleRefused([f"{plan}: {plural(len(absent), 'planned row')} no shard ran: "
                            + "; ".join(f"case {c} trial {t} {d}" for c, t, d in absent[:SHOWN])],
                           exitcodes.SHARD_MISSING)  # fmt: skip
    extra = sorted(covered - wanted, key=str)
    if extra:
        raise ScaleRefused([f"{plan}: the shards ran {plural(len(extra), 'row')} the plan does not hold: "
                            + "; ".join(f"case {c} trial {t} {d}" for c, t, d in extra[:SHOWN])],
                           exitcodes.SHARD_FOREIGN)  # fmt: skip
