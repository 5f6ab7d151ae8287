"""Shards: which plan rows a worker of an index/total scheduler runs, and the record it leaves.

A case belongs to shard K of N by a stable hash of its id (the first eight
bytes of its SHA-256, modulo N, plus one), so every trial and condition of a
case land in one shard and a pair is never split across machines. K counts
from 1, as GitLab's CI_NODE_INDEX does. `--shard auto` reads the index from
the scheduler running the process (see `from_environment`).

A shard's output keeps the reference's row format, plus one key a reader
ignores: each row's `seal`, a SHA-256 over the catalog's hash and the row's
line as written, so merge names a row edited since, or a shard whose record
was moved onto another catalog. What merge needs to prove the shards belong
together (the shard, the catalog's hash, the whole plan's cases and digest,
this shard's full slice of them, each run's runner config, trials and the
cases it ran: fewer than the slice when `--case` narrowed it) is a sidecar
file beside it, `<output>.shard.json`, never a row a reader would trip on.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ... import exitcodes, jsonl
from ...errors import ScaleRefused, UsageError
from ...files import read_limited
from .config import Runner

if TYPE_CHECKING:
    from ...catalog import CaseRow

SIDECAR_SUFFIX = ".shard.json"
VERSION = 3  # 2: the planned cases once per shard, each run its places; 3: the plan, full slices, seals
SEAL_KEY = "seal"
_SEAL_TAIL = b', "seal": "'  # how `jsonl.line` writes the last key of a sealed row


def ids_sha256(ids: Iterable[str]) -> str:
    """The digest of a list of case ids, in order (a plan's, or a slice's)."""
    digest = hashlib.sha256()
    for case_id in ids:
        digest.update(case_id.encode("utf-8", "surrogatepass") + b"\n")
    return digest.hexdigest()


def seal(catalog_sha256: str, line: bytes) -> str:
    """A row's seal: SHA-256 over the catalog's hash, a newline, and the row's line as written
    without its seal (UTF-8, no newline)."""
    return hashlib.sha256(catalog_sha256.encode("ascii", "replace") + b"\n" + line).hexdigest()


def sealed(catalog_sha256: str, line: bytes) -> bytes:
    """The row's line with its seal as the last key (`line` is one JSON object)."""
    return line[:-1] + _SEAL_TAIL + seal(catalog_sha256, line).encode() + b'"}'


def unsealed(raw: bytes) -> bytes:
    """A sealed line as an unsharded run writes it: without its seal, with its newline."""
    at = raw.rfind(_SEAL_TAIL)
    return raw[:at] + b"}\n"


def seal_holds(catalog_sha256: str, raw: bytes) -> bool:
    """Whether a line read back is a sealed row exactly as written for this catalog."""
    line = raw.strip()
    at = line.rfind(_SEAL_TAIL)
    if at < 0 or len(line) != at + len(_SEAL_TAIL) + 66 or not line.endswith(b'"}'):
        return False
    return seal(catalog_sha256, line[:at] + b"}") == line[at + len(_SEAL_TAIL) : -2].decode(
        "ascii", "replace"
    )


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, case_id: str) -> bool:
        return shard_of(case_id, self.count) == self.index


def shard_of(case_id: str, count: int) -> int:
    """The 1-based shard of a case id: stable across runs, machines and Python versions."""
    digest = hashlib.sha256(case_id.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def parse(spec: str, *, count: int | None = None, env: Mapping[str, str] | None = None) -> Shard:
    """`K/N` (1 <= K <= N), or `auto` from the scheduler's environment."""
    if spec == "auto":
        return from_environment(os.environ if env is None else env, count)
    index, slash, total = spec.partition("/")
    if not slash or not index.isdigit() or not total.isdigit():
        raise UsageError(f"--shard must be K/N (for example 2/4) or auto, not {spec!r}")
    return _checked(int(index), int(total), f"--shard {spec}", count)


def _checked(index: int, total: int, where: str, count: int | None) -> Shard:
    if total < 1 or not 1 <= index <= total:
        raise UsageError(f"{where}: the shard index counts from 1 to the shard count (K/N with 1 <= K <= N)")
    if count is not None and count != total:
        raise UsageError(f"{where} says {total} shards but --shard-count says {count}")
    return Shard(index, total)


SCHEDULERS = (
    ("GitLab (CI_NODE_INDEX, 1-based)", "CI_NODE_INDEX"),
    ("Kubernetes Indexed Job (JOB_COMPLETION_INDEX, 0-based)", "JOB_COMPLETION_INDEX"),
    ("Slurm array (SLURM_ARRAY_TASK_ID)", "SLURM_ARRAY_TASK_ID"),
)


def from_environment(env: Mapping[str, str], count: int | None) -> Shard:
    """The shard a scheduler gave this process. Exactly one scheduler's variables must be set:
    two would mean guessing which one is running us."""
    present = [name for name, variable in SCHEDULERS if variable in env]
    if not present:
        raise UsageError(
            "--shard auto found no scheduler: set by GitLab (CI_NODE_INDEX, CI_NODE_TOTAL), "
            "a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with --shard-count N) or a Slurm "
            "array (SLURM_ARRAY_TASK_ID); elsewhere pass --shard K/N"
        )
    if len(present) > 1:
        raise UsageError(
            f"--shard auto found more than one scheduler ({'; '.join(present)}): pass --shard K/N"
        )
    if "CI_NODE_INDEX" in env:
        return _checked(
            _int(env, "CI_NODE_INDEX"), _int(env, "CI_NODE_TOTAL"), "GitLab's CI_NODE_INDEX", count
        )
    if "JOB_COMPLETION_INDEX" in env:
        if count is None:
            raise UsageError(
                "JOB_COMPLETION_INDEX does not carry the shard count: pass --shard-count N "
                "(the Job's completions)"
            )
        return _checked(_int(env, "JOB_COMPLETION_INDEX") + 1, count, "JOB_COMPLETION_INDEX (0-based)", None)
    return _slurm(env, count)


def _slurm(env: Mapping[str, str], count: int | None) -> Shard:
    """Slurm numbers tasks as the --array spec says (0-3, 1-4, 0-15:4, ...). A task's shard is
    its place in the array: (ID - MIN) / STEP + 1, for an evenly spaced array of COUNT tasks."""
    task, low = _int(env, "SLURM_ARRAY_TASK_ID"), _int(env, "SLURM_ARRAY_TASK_MIN")
    total, high = _int(env, "SLURM_ARRAY_TASK_COUNT"), _int(env, "SLURM_ARRAY_TASK_MAX")
    step = _int(env, "SLURM_ARRAY_TASK_STEP") if "SLURM_ARRAY_TASK_STEP" in env else 1
    even = step >= 1 and (task - low) % step == 0 and high == low + (total - 1) * step
    if not even:
        raise UsageError(
            f"the Slurm array (tasks {low}-{high}, step {step}, {total} tasks) is not evenly "
            "spaced, so a task's shard cannot be told: use --array=0-(N-1), or pass "
            "--shard $((SLURM_ARRAY_TASK_ID + 1))/N"
        )
    return _checked((task - low) // step + 1, total, f"SLURM_ARRAY_TASK_ID {task}", count)


def _int(env: Mapping[str, str], name: str) -> int:
    value = env.get(name, "")
    if not value.strip().isdigit():
        shown = f"{value!r}" if name in env else "unset"
        raise UsageError(f"--shard auto: {name} is {shown}, not a whole number")
    return int(value)


def select(cases: Iterable[dict[str, Any]], shard: Shard | None) -> list[dict[str, Any]]:
    """The cases of one shard, in catalog order (all of them without a shard)."""
    return list(cases) if shard is None else [case for case in cases if shard.holds(case["id"])]


def budget(per_shard: float | None, total: float | None, shard: Shard | None, default: float) -> float:
    """A shard's budget: --budget-usd as given, or --shard-budget-total divided evenly."""
    if total is None:
        return default if per_shard is None else per_shard
    if per_shard is not None:
        raise UsageError("--budget-usd and --shard-budget-total both set the budget: pass one")
    if shard is None:
        raise UsageError("--shard-budget-total divides a budget among shards: pass --shard too")
    return total / shard.count


# The sidecar ------------------------------------------------------------------------------


def sidecar_path(output: Path) -> Path:
    return output.with_name(output.name + SIDECAR_SUFFIX)


def file_sha256(path: Path | None) -> str | None:
    if path is None:
        return None
    return hashlib.sha256(read_limited(path)).hexdigest()


def runner_config(runner: Runner) -> dict[str, Any]:
    """The runner as run: what merge compares and the cache keys on (not its name alone)."""
    return {
        "name": runner.name,
        "command": list(runner.command),
        "response_format": runner.response_format,
        "budget_flag": runner.budget_flag,
        "prompt_via": runner.prompt_via,
    }


@dataclass(frozen=True)
class Planned:
    """One run's part of a shard: the rows `(case, trial, condition, runner)` it must hold."""

    condition: str
    runner: dict[str, Any]
    trials: int
    skill_sha256: str | None
    cases: list[tuple[int, str]]  # (place in the catalog, id), in catalog order

    @property
    def key(self) -> str:
        return f"{self.condition} {self.runner['name']}"

    def config(self) -> dict[str, Any]:
        """Everything two shards of one run must agree on (not the cases: those differ by shard)."""
        return {
            "condition": self.condition,
            "runner": self.runner,
            "trials": self.trials,
            "skill_sha256": self.skill_sha256,
        }


@dataclass(frozen=True)
class Slice:
    """What the whole plan holds (every shard's cases, in catalog order) and this shard's part
    of it in full, whatever `--case` narrowed a run to."""

    plan_ids: list[str]
    cases: list[tuple[int, str]]  # (place in the catalog, id) of every plan case this shard holds

    def plan(self) -> dict[str, Any]:
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
        data = {
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
    problems = [p for planned in runs for p in _conflicts(path, data, shard, catalog_sha256, planned)]
    if data["plan"] != whole_plan:
        problems.append(f"{path} records another plan (the cases changed since): start a new output")
    if problems:
        raise ScaleRefused(problems, exitcodes.SHARD_CONFLICT)
    for planned in runs:
        data["runs"][planned.key] = {**planned.config(), "places": [at for at, _ in planned.cases]}
    write_all_atomically({path: jsonl.text([data])})


def _conflicts(path: Path, data: dict[str, Any], shard: Shard, catalog: str, planned: Planned) -> list[str]:
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


def read_sidecar(path: Path) -> dict[str, Any]:
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
    return data


def _run_shaped(run: Any, places: list[int]) -> bool:
    return (
        isinstance(run, dict)
        and isinstance(run.get("condition"), str)
        and isinstance(run.get("runner"), dict)
        and isinstance(run["runner"].get("name"), str)
        and type(run.get("trials")) is int
        and _listed(run.get("places"), int)
        and (run["places"] == places or set(run["places"]) <= set(places))
    )


def _listed(values: Any, kind: type) -> bool:
    """A list of `kind` only (a type set built at C speed: 100,000 cases a shard)."""
    return isinstance(values, list) and set(map(type, values)) <= {kind}


def run_cases(record: dict[str, Any], run: dict[str, Any]) -> dict[str, int]:
    """A run's planned cases: case id -> its place in the catalog."""
    if run["places"] == record["places"]:  # every case of the shard (the common run): built at C speed
        return dict(zip(record["ids"], record["places"], strict=True))
    name = dict(zip(record["places"], record["ids"], strict=True))
    return {name[at]: at for at in run["places"]}


def plan(
    output: Path,
    shard: Shard,
    catalog: Path,
    cases: list[CaseRow],
    *,
    runner: Runner,
    condition: str,
    trials: int,
    instructions: str | None,
    only: tuple[str, ...],
) -> list[CaseRow]:
    """The cases shard `shard` runs (in catalog order), recorded in the output's sidecar first."""
    held = [(at, case) for at, case in enumerate(cases) if shard.holds(case["id"])]
    chosen = [(at, case) for at, case in held if not only or case["id"] in only]
    skill = None if instructions is None else hashlib.sha256(instructions.encode("utf-8", "surrogatepass"))
    planned = Planned(
        condition,
        runner_config(runner),
        trials,
        skill.hexdigest() if skill else None,
        [(at, case["id"]) for at, case in chosen],
    )
    whole = Slice([case["id"] for case in cases], [(at, case["id"]) for at, case in held])
    record(output, shard, file_sha256(catalog) or "", whole, planned)
    return [case for _, case in chosen]


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


def plan_judge(request: JudgeLike, ids: list[str], sheet: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sheet rows a judge shard judges, recorded as one run per label: each label's rows are
    the shard's cases times the sheet's trials (a sheet blind made from complete runs). The
    sheet's hash stands where a run records its skill file's: shards of two sheets are foreign."""
    assert request.shard is not None
    shard = request.shard
    place = {case_id: at for at, case_id in enumerate(ids)}
    mine = [row for row in sheet if shard.holds(row["case_id"])]
    cases = [(at, ids[at]) for at in sorted({place[row["case_id"]] for row in mine})]
    trials = max((row["trial"] for row in sheet), default=1)
    sheet_sha256 = file_sha256(request.sheet)
    labels = dict.fromkeys(row["condition"] for row in sheet)
    runs = [Planned(label, runner_config(request.runner), trials, sheet_sha256, cases) for label in labels]
    judged = [ids[at] for at in sorted({place[row["case_id"]] for row in sheet})]
    record(request.output, shard, file_sha256(request.cases) or "", Slice(judged, cases), *runs)
    return mine
