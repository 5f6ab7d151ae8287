"""A shard's record, `<output>.shard.json` beside its output: what merge needs to prove the shards
belong together, written as each run of a shard plans its cases (`plan`, `plan_judge`).

The record holds the shard, the catalog's hash, the whole plan's cases and digest, this shard's
full slice of them, and each run's runner config, trials and the cases it ran (fewer than the
slice when `--case` narrowed it). It is a file of its own, never a row a reader would trip on;
which cases a shard holds, and the seal on each row, are shard.py's.
"""

# No `from __future__ import annotations`: a NamedTuple's (and a TypedDict's) string annotations are
# compiled one by one into ForwardRefs on every run's start-up (docs/startup.md); the few names
# only type checkers import stay quoted.
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol, TypedDict, TypeVar, cast

from ... import exitcodes, jsonl
from ...errors import ScaleRefused
from ...files import read_limited
from .config import Runner
from .shard import Shard, ids_sha256
from .shard import sidecar_path as sidecar_path  # beside the suffix: shard.py

if TYPE_CHECKING:
    from ...catalog import CaseRow

VERSION = 3  # 2: the planned cases once per shard, each run its places; 3: the plan, full slices, seals


class RunnerConfig(TypedDict):
    """The runner as run: what merge compares and the cache keys on (not its name alone)."""

    name: str
    command: list[str]
    response_format: str
    budget_flag: str | None
    prompt_via: str


class RunConfig(TypedDict):
    """Everything two shards of one run must agree on (not the cases: those differ by shard)."""

    condition: str
    runner: RunnerConfig
    trials: int
    skill_sha256: str | None


class RunnerSeen(TypedDict):
    """A recorded run's runner as read back: read_sidecar checks its name; the rest of it (a
    RunnerConfig, as written) is only compared."""

    name: str


class RecordedRun(TypedDict):
    """One run in a sidecar. Read back, read_sidecar has checked its condition, its runner's
    name, its trials and its places; its skill digest is only compared."""

    condition: str
    runner: RunnerSeen
    trials: int
    skill_sha256: object
    places: list[int]


class PlanDigest(TypedDict):
    """The whole plan a shard belongs to: how many cases, and the digest of their ids."""

    cases: int
    sha256: str


class ShardRecord(TypedDict):
    """A sidecar, `<output>.shard.json`. Read back, read_sidecar has checked every field but the
    shard as written (`K/N`, only shown in messages) and what RecordedRun says it does not."""

    adhd_evals_shard: int
    shard: object
    index: int
    count: int
    catalog_sha256: str
    plan: PlanDigest
    places: list[int]
    ids: list[str]
    runs: dict[str, RecordedRun]


def file_sha256(path: Path | None) -> str | None:
    if path is None:
        return None
    return hashlib.sha256(read_limited(path)).hexdigest()


def runner_config(runner: Runner) -> RunnerConfig:
    """The runner as run: what merge compares and the cache keys on (not its name alone)."""
    return {
        "name": runner.name,
        "command": list(runner.command),
        "response_format": runner.response_format,
        "budget_flag": runner.budget_flag,
        "prompt_via": runner.prompt_via,
    }


class Planned(NamedTuple):
    """One run's part of a shard: the rows `(case, trial, condition, runner)` it must hold.
    NamedTuples here, not dataclasses: dataclasses imports inspect, about 8 ms of run's and judge's start-up."""

    condition: str
    runner: RunnerConfig
    trials: int
    skill_sha256: str | None
    cases: list[tuple[int, str]]  # (place in the catalog, id), in catalog order

    @property
    def key(self) -> str:
        return f"{self.condition} {self.runner['name']}"

    def config(self) -> RunConfig:
        """Everything two shards of one run must agree on (not the cases: those differ by shard)."""
        return {
            "condition": self.condition,
            "runner": self.runner,
            "trials": self.trials,
            "skill_sha256": self.skill_sha256,
        }


class Slice(NamedTuple):
    """What the whole plan holds (every shard's cases, in catalog order) and this shard's part
    of it in full, whatever `--case` narrowed a run to."""

    plan_ids: list[str]
    cases: list[tuple[int, str]]  # (place in the catalog, id) of every plan case this shard holds

    def plan(self) -> PlanDigest:
        return {"cases": len(self.plan_ids), "sha256": ids_sha256(self.plan_ids)}


def record(output: Path, shard: Shard, catalog_sha256: str, whole: Slice, *runs: Planned) -> None:
    """Add this run to the output's sidecar (under the output's lock, so one writer), refusing an
    output whose sidecar speaks for another shard, catalog, or the same run configured otherwise."""
    from ...output import write_all_atomically

    path = sidecar_path(output)
    whole_plan = whole.plan()  # a digest over every planned id: made once
    data = read_sidecar(path) if path.exists() else None
    if data is None:
        if output.exists() and output.stat().st_size:
            raise ScaleRefused(
                [
                    f"{output} already holds rows of an unsharded run: write shard {shard} "
                    "to a file of its own"
                ],
                exitcodes.SHARD_CONFLICT,
            )
        data = _new_record(shard, catalog_sha256, whole, whole_plan)
    problems = [p for planned in runs for p in _conflicts(path, data, shard, catalog_sha256, planned)]
    if data["plan"] != whole_plan:
        problems.append(f"{path} records another plan (the cases changed since): start a new output")
    if problems:
        raise ScaleRefused(problems, exitcodes.SHARD_CONFLICT)
    for planned in runs:
        data["runs"][planned.key] = _recorded(planned)
    write_all_atomically({path: jsonl.text([data])})


def _new_record(shard: Shard, catalog_sha256: str, whole: Slice, whole_plan: PlanDigest) -> ShardRecord:
    """A sidecar before its first run: the shard, its catalog, the plan and this shard's slice."""
    return {
        "adhd_evals_shard": VERSION,
        "shard": str(shard),
        "index": shard.index,
        "count": shard.count,
        "catalog_sha256": catalog_sha256,
        "plan": whole_plan,
        "places": [at for at, _ in whole.cases],
        "ids": [case_id for _, case_id in whole.cases],
        "runs": {},
    }


def _recorded(planned: Planned) -> RecordedRun:
    """A run as its sidecar records it: its config, then its places."""
    config = planned.config()
    return {
        "condition": config["condition"],
        "runner": config["runner"],
        "trials": config["trials"],
        "skill_sha256": config["skill_sha256"],
        "places": [at for at, _ in planned.cases],
    }


def _conflicts(path: Path, data: ShardRecord, shard: Shard, catalog: str, planned: Planned) -> list[str]:
    problems: list[str] = []
    if (data["index"], data["count"]) != (shard.index, shard.count):
        problems.append(
            f"{path} records shard {data['shard']}, not {shard}: write each shard to its own file"
        )
    if data["catalog_sha256"] != catalog:
        problems.append(f"{path} records another catalog (the cases changed since): start a new output")
    earlier = data["runs"].get(planned.key)
    if earlier is not None and {k: v for k, v in earlier.items() if k != "places"} != planned.config():
        problems.append(
            f"{path} records {planned.key} with another runner config, trials or skill file: "
            "start a new output (rows of two configurations would be merged as one)"
        )
    return problems


def read_sidecar(path: Path) -> ShardRecord:
    """A sidecar, checked for the shape this version writes; refused by name otherwise."""
    try:
        data = json.loads(read_limited(path))
    except FileNotFoundError:
        raise ScaleRefused(
            [f"{path} is missing: its output is not a shard of a run (run with --shard K/N)"],
            exitcodes.SHARD_FOREIGN,
        ) from None
    except (OSError, ValueError) as exc:
        raise ScaleRefused(
            [f"{path} cannot be read as a shard record ({exc})"], exitcodes.SHARD_FOREIGN
        ) from exc
    shaped = (
        isinstance(data, dict)
        and data.get("adhd_evals_shard") == VERSION
        and all(type(data.get(k)) is int for k in ("index", "count"))
        and isinstance(data.get("catalog_sha256"), str)
        and isinstance(data.get("plan"), dict)
        and type(data["plan"].get("cases")) is int
        and isinstance(data["plan"].get("sha256"), str)
        and _listed(data.get("places"), int)
        and _listed(data.get("ids"), str)
        and len(data["places"]) == len(data["ids"])
        and isinstance(data.get("runs"), dict)
        and all(_run_shaped(run, data["places"]) for run in data["runs"].values())
    )
    if not shaped or not isinstance(data, dict):
        raise ScaleRefused(
            [f"{path} is not a shard record this version of adhd-evals wrote"], exitcodes.SHARD_FOREIGN
        )
    if not 1 <= data["index"] <= data["count"]:  # count 0 would divide by zero in shard_of
        raise ScaleRefused(
            [
                f"{path}: index {data['index']} of count {data['count']} cannot be a split "
                "(a shard K/N has 1 <= K <= N)"
            ],
            exitcodes.SHARD_FOREIGN,
        )
    return cast("ShardRecord", data)  # its shape checked just above, field by field


def _run_shaped(run: object, places: list[int]) -> bool:
    return (
        isinstance(run, dict)
        and isinstance(run.get("condition"), str)
        and isinstance(run.get("runner"), dict)
        and isinstance(run["runner"].get("name"), str)
        and type(run.get("trials")) is int
        and _listed(run.get("places"), int)
        and (run["places"] == places or set(run["places"]) <= set(places))
    )


def _listed(values: object, kind: type) -> bool:
    """A list of `kind` only (a type set built at C speed: 100,000 cases a shard)."""
    return isinstance(values, list) and set(map(type, values)) <= {kind}


def run_cases(record: ShardRecord, run: RecordedRun) -> dict[str, int]:
    """A run's planned cases: case id -> its place in the catalog."""
    if run["places"] == record["places"]:  # every case of the shard (the common run): built at C speed
        return dict(zip(record["ids"], record["places"], strict=True))
    name = dict(zip(record["places"], record["ids"], strict=True))
    return {name[at]: at for at in run["places"]}


def plan(
    output: Path,
    shard: Shard,
    catalog: Path,
    cases: "list[CaseRow]",
    *,
    runner: Runner,
    condition: str,
    trials: int,
    instructions: str | None,
    only: tuple[str, ...],
    part: "Part | None" = None,
) -> "list[CaseRow]":
    """The cases shard `shard` runs (in catalog order), recorded in the output's sidecar first.
    With `part` (the catalog's index read, catalog.indexed), `cases` is unused: the shard's cases
    and every id are the part's, parsed and hashed once."""
    if part is None:
        held = [(at, cases[at]) for at in shard.places(case["id"] for case in cases)]
        part = Part([case["id"] for case in cases], held, file_sha256(catalog) or "")
    held = part.held
    chosen = [(at, case) for at, case in held if not only or case["id"] in only]
    skill = None if instructions is None else hashlib.sha256(instructions.encode("utf-8", "surrogatepass"))
    planned = Planned(
        condition,
        runner_config(runner),
        trials,
        skill.hexdigest() if skill else None,
        [(at, case["id"]) for at, case in chosen],
    )
    whole = Slice(part.ids, [(at, case["id"]) for at, case in held])
    record(output, shard, part.catalog_sha256, whole, planned)
    return [case for _, case in chosen]


class Part(NamedTuple):
    """What a shard's plan is made of: every case's id (catalog order), the cases this shard
    holds with their places, and the catalog's SHA-256."""

    ids: list[str]
    held: "list[tuple[int, CaseRow]]"
    catalog_sha256: str


class JudgeLike(Protocol):
    @property
    def output(self) -> Path: ...
    @property
    def shard(self) -> Shard | None: ...
    @property
    def cases(self) -> Path: ...
    @property
    def sheet(self) -> Path: ...
    @property
    def runner(self) -> Runner: ...


# a sheet's row, whatever type its reader gave it (judge reads it checked: see _keyed)
SheetLike = TypeVar("SheetLike", bound=Mapping[str, object])


def _keyed(row: Mapping[str, object]) -> tuple[str, int, str]:
    """(case id, trial, label) of a sheet row: judge reads the sheet through its checked reader
    (case_id and condition strings, trial an integer) before it plans a shard of it."""
    return cast("tuple[str, int, str]", (row["case_id"], row["trial"], row["condition"]))


def plan_judge(request: JudgeLike, ids: list[str], sheet: list[SheetLike]) -> list[SheetLike]:
    """The sheet rows a judge shard judges, recorded as one run per label: each label's rows are
    the shard's cases times the sheet's trials (a sheet blind made from complete runs). The
    sheet's hash stands where a run records its skill file's: shards of two sheets are foreign."""
    assert request.shard is not None
    shard = request.shard
    place = {case_id: at for at, case_id in enumerate(ids)}
    keys = [_keyed(row) for row in sheet]
    mine = [row for row, (case_id, _, _) in zip(sheet, keys, strict=True) if shard.holds(case_id)]
    cases = [
        (at, ids[at]) for at in sorted({place[case_id] for case_id, _, _ in keys if shard.holds(case_id)})
    ]
    trials = max((trial for _, trial, _ in keys), default=1)
    sheet_sha256 = file_sha256(request.sheet)
    labels = dict.fromkeys(label for _, _, label in keys)
    runs = [Planned(label, runner_config(request.runner), trials, sheet_sha256, cases) for label in labels]
    judged = [ids[at] for at in sorted({place[case_id] for case_id, _, _ in keys})]
    record(request.output, shard, file_sha256(request.cases) or "", Slice(judged, cases), *runs)
    return mine
