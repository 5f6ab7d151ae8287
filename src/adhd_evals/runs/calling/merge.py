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

from dataclasses import dataclass
from pathlib import Path

from ... import exitcodes
from ...errors import ScaleRefused
from ...text import plural
from . import shard as sharding
from . import sidecar
from .merge_rows import SHOWN, Merged, Planned, take_rows

SAMPLE = 64  # planned cases whose shard is checked against the hash (a doubled case is refused anyway)


@dataclass(frozen=True)
class Part:
    path: Path
    record: sidecar.ShardRecord

    @property
    def name(self) -> str:
        return f"{self.path} (shard {self.record['index']}/{self.record['count']})"

    def planned(self) -> Planned:
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
    absent = [line for part in parts for line in take_rows(part, merged)]
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
