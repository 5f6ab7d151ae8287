"""The plain bodies of `plan`, `merge` and `cache` (their typer signatures: cli/scale.py).

Each imports what only it (or only one of its modes) needs where it is used: the plain matrix
of `plan`, the trivial call, needs the catalog alone, while the forecast, the sizing (with
paired inference), the cache and merging cost 10-70 ms of imports each (python -X importtime,
2026-12-02; tests/test_cli_startup.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from ... import exitcodes, jsonl
from ...catalog import load_valid
from ...errors import Busy, UsageError
from ...files import Held, not_being_written, set_max_bytes
from ...output import refuse_clobbering, write_all_atomically
from ...text import plural, usd

if TYPE_CHECKING:
    from ...runs.calling import forecast
    from ...runs.calling.cache import CacheAction


def plan(
    *,
    cases: Path,
    trials: int,
    include_comparator: bool,
    from_scores: Path | None,
    effect: list[float] | None,
    key: Path | None,
    estimate: bool,
    history: list[Path] | None,
    runner: list[str] | None,
    runner_config: Path | None,
    condition_skill: Path | None,
    cache: str | None,
    jobs: int,
    as_json: bool,
) -> int:
    """Print the paired run matrix as JSONL; with --from-scores, how many cases and trials you need;
    with --estimate, what running it will cost."""
    if from_scores is not None:
        from ...runs.deciding import sizing

        print("\n".join(sizing.plan_lines(from_scores, key, trials, effect or [])))
        return exitcodes.OK

    loaded = load_valid(cases)
    conditions = ["baseline", "candidate"] + (["comparator"] if include_comparator else [])
    if estimate:
        from ...runs.calling import forecast

        lines = forecast.forecast(
            loaded,
            trials,
            conditions,
            history=history or [],
            runners=runner or [],
            config=runner_config,
            skill=condition_skill,
            cache=cache,
        )
        print(_forecast(lines, jobs, as_json=as_json))
        return exitcodes.OK
    for trial in range(1, trials + 1):
        for case in loaded:
            for condition in conditions:
                # ASCII, as the reference writes it (and printable on any terminal encoding)
                print(
                    jsonl.line(
                        {"case_id": case["id"], "trial": trial, "condition": condition}, ensure_ascii=True
                    )
                )
    return exitcodes.OK


def _forecast(lines: list[forecast.Line], jobs: int, *, as_json: bool) -> str:
    """plan --estimate's forecast: a table, or JSON."""
    from ...runs.calling import forecast

    if not as_json:
        return "\n".join(forecast.report(lines, jobs))
    total = forecast.total(lines).as_json(jobs)
    return json.dumps(
        {"jobs": jobs, "lines": [line.as_json(jobs) for line in lines], "total": total}, indent=2
    )


def merge(*, shards: list[Path], output: Path, plan: Path | None, max_bytes: int) -> int:
    """Merge shard outputs, refusing a missing or foreign shard and a missing or doubled row."""
    from ...runs.calling.merge import merge as merge_shards

    set_max_bytes(max_bytes)

    refuse_clobbering({"--output": output}, {"plan": plan, **{f"shard {p}": p for p in shards}})
    merged = merge_shards(shards, plan)
    try:
        with not_being_written(output):  # a run appending to it would lose its later rows
            # A busy output is refused before the shards' judge records are read, as always.
            write_all_atomically({output: merged.text(), **_judge_record(shards, output)})
    except Held as held:
        raise Busy(
            f"{output} is being written by another run (pid {held.holder}); "
            "wait for it, or merge into another --output"
        ) from None
    cached = f"; {merged.cached} from the cache, not charged (first cost {usd(merged.cached_cost)})"
    unmetered = f"; {merged.unmetered} with no reported cost" if merged.unmetered else ""
    print(
        f"Merged {plural(merged.shards, 'shard')} ({plural(merged.rows, 'row')}) into {output}. "
        f"Total spend {usd(merged.spent)}" + (cached if merged.cached else "") + unmetered + "."
    )
    return exitcodes.OK


def _judge_record(shards: list[Path], output: Path) -> dict[Path, str]:
    """The merged judge's record beside `output` for a judge's shards; nothing for a run's."""
    from ...runs.calling.merge import judged

    if not judged(shards):
        return {}
    # Imported only then: admission brings the judge's modules (6-14 ms), which merging a run's
    # shards, and plan and cache in this stage, never need (tests/test_perf_shards3_*).
    from ...runs.judging.admission import merged_record

    return merged_record(shards, output)


def cache(*, action: CacheAction, cache: Path | None, older_than: str | None) -> int:
    """The response cache: what it holds, and pruning what is old."""
    from ...runs.calling import cache as caching

    root = cache if cache is not None else caching.default_dir()
    if action == "prune":
        if older_than is None:
            raise UsageError("cache prune needs --older-than AGE (for example 30d)")
        removed, freed = caching.prune(root, caching.parse_age(older_than))
        print(f"Removed {plural(removed, 'entry', 'entries')} ({freed:,} bytes) from {root}.")
        return exitcodes.OK
    if older_than is not None:
        raise UsageError("--older-than is for cache prune")
    found = caching.stats(root)
    print("\n".join(caching.stats_lines(root, found)))
    return exitcodes.OK
