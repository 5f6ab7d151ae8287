"""Shard outputs written by hand, as `run --shard` writes them (docs/scale.md, "The record"): the
seal, the plan digest and the sidecar, each worked from the documented rule rather than made by
the code under test. Shared by the merge tests (test_merge_edges.py, test_merge_shards.py,
test_perf_shards2_merge.py, test_perf_shards3_*.py), which had a copy each."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

CATALOG_SHA256 = "x"  # the catalog hash every hand-written shard records
RUNNER: dict[str, object] = {
    "name": "r",
    "command": ["x"],
    "response_format": "claude-json",
    "budget_flag": None,
    "prompt_via": "argv",
}


def ids_sha256(ids: Sequence[str]) -> str:
    """The documented plan digest: SHA-256 over each id in order, each followed by a newline."""
    return hashlib.sha256("".join(case_id + "\n" for case_id in ids).encode()).hexdigest()


def sealed(line: str) -> str:
    """A JSON object line sealed by the documented rule for catalog hash "x": its seal is the
    SHA-256 of "x", a newline, and the line (its surrounding blanks left out); written as a last
    key `"seal"`, the leading blanks kept. Other lines as given."""
    try:
        value = json.loads(line)
    except ValueError:
        return line
    if not isinstance(value, dict):
        return line
    body = line.strip()
    seal = hashlib.sha256(f"{CATALOG_SHA256}\n{body}".encode()).hexdigest()
    return line[: len(line) - len(line.lstrip())] + body[:-1] + f', "seal": "{seal}"}}'


def record(
    path: Path,
    ids: Sequence[str],
    *,
    index: int = 1,
    total: int = 1,
    trials: int = 1,
    runs: bool = True,
    plan: Sequence[str] | None = None,
) -> None:
    """The sidecar of shard `index`/`total` beside `path`: `ids` at catalog places 0, 1, ..., one
    baseline run of runner r with `trials` trials (or no run), of a plan of `plan` (`ids` when
    not given)."""
    places = list(range(len(ids)))
    whole = list(ids if plan is None else plan)
    run = {
        "condition": "baseline",
        "runner": RUNNER,
        "trials": trials,
        "skill_sha256": None,
        "places": places,
    }
    sidecar = {
        "adhd_evals_shard": 3,
        "shard": f"{index}/{total}",
        "index": index,
        "count": total,
        "catalog_sha256": CATALOG_SHA256,
        "plan": {"cases": len(whole), "sha256": ids_sha256(whole)},
        "places": places,
        "ids": list(ids),
        "runs": {"baseline r": run} if runs else {},
    }
    path.with_name(path.name + ".shard.json").write_text(json.dumps(sidecar))


def shard(
    path: Path,
    lines: Sequence[str],
    ids: Sequence[str],
    *,
    index: int = 1,
    total: int = 1,
    trials: int = 1,
    runs: bool = True,
    plan: Sequence[str] | None = None,
) -> Path:
    """A shard output of `lines` (each JSON object sealed, as `run --shard` writes it) and its
    sidecar (`record`)."""
    path.write_text("".join(sealed(line) + "\n" for line in lines))
    record(path, ids, index=index, total=total, trials=trials, runs=runs, plan=plan)
    return path
