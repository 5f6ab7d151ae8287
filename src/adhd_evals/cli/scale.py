"""A run's shape and scale (docs/scale.md): `plan` (the matrix, the suite's size, the bill),
`merge` (shards back into one file) and `cache` (the answers already paid for).

Nothing here starts a model call: `run` and `judge` live in cli/running.py, so planning
imports no thread pool nor process machinery (tests/test_cli_startup.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from .. import exitcodes, jsonl
from ..catalog import load_valid
from ..errors import UsageError
from ..files import DEFAULT_MAX_BYTES, set_max_bytes
from ..output import refuse_clobbering, write_all_atomically
from ..runs.calling import cache as caching
from ..runs.calling import forecast
from ..runs.calling.cache import CacheAction
from ..runs.calling.merge import merge
from ..runs.deciding import sizing
from ..schema import DEFAULT_CATALOG
from ..text import plural, usd
from . import options
from .options import FLAG, Cases, MaxBytes

commands = typer.Typer()


@commands.command("plan")
def plan_command(
    *,
    cases: Cases = Path(DEFAULT_CATALOG),
    trials: Annotated[int, options.trials("Trials per case.", min=1)] = 3,
    include_comparator: bool = typer.Option(
        False, "--include-comparator", metavar=FLAG, help="Add the comparator condition."
    ),
    from_scores: Path | None = typer.Option(
        None,
        "--from-scores",
        help="Size the suite instead: from these scores' spread, how many cases detect an effect (with --trials).",
    ),
    effect: list[float] | None = typer.Option(
        None, "--effect", help="With --from-scores: the weighted Δ to detect (repeatable; default a ladder)."
    ),
    key: Annotated[Path | None, options.key("With --from-scores: the key for a labelled sheet.")] = None,
    estimate: bool = typer.Option(
        False, "--estimate", metavar=FLAG, help="Print the expected calls, cost and wall time instead."
    ),
    history: list[Path] | None = typer.Option(
        None,
        "--history",
        help="--estimate: earlier runs' responses files, priced by their cost_usd (repeatable).",
    ),
    runner: Annotated[
        list[str] | None,
        options.runner("--estimate: a runner to price (repeatable; default: those in the history)."),
    ] = None,
    runner_config: Annotated[
        Path | None, options.runner_config("--estimate with --cache: runners.json.")
    ] = None,
    condition_skill: Annotated[
        Path | None,
        options.condition_skill(
            "--estimate with --cache: the skill file candidate and comparator wrap with."
        ),
    ] = None,
    cache: Annotated[
        str | None, options.cache("--estimate: count the calls this response cache answers as free.")
    ] = None,
    jobs: Annotated[int, options.jobs("--estimate: calls run at once.", min=1)] = 1,
    as_json: Annotated[bool, options.as_json("--estimate: print the forecast as JSON.")] = False,
) -> int:
    """Print the paired run matrix as JSONL; with --from-scores, how many cases and trials you need;
    with --estimate, what running it will cost."""
    if from_scores is not None:
        print("\n".join(sizing.plan_lines(from_scores, key, trials, effect or [])))
        return exitcodes.OK

    loaded = load_valid(cases)
    conditions = ["baseline", "candidate"] + (["comparator"] if include_comparator else [])
    if estimate:
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
    if not as_json:
        return "\n".join(forecast.report(lines, jobs))
    total = forecast.total(lines).as_json(jobs)
    return json.dumps(
        {"jobs": jobs, "lines": [line.as_json(jobs) for line in lines], "total": total}, indent=2
    )


@commands.command("merge")
def merge_command(
    *,
    shards: list[Path] = typer.Argument(..., help="Every shard's output (from 'run --shard K/N')."),
    output: Annotated[Path, options.output("The merged responses JSONL (written whole, or not at all).")],
    plan: Path | None = typer.Option(
        None, "--plan", help="The plan ('adhd-evals plan' output): refuse unless the shards ran exactly it."
    ),
    max_bytes: MaxBytes = DEFAULT_MAX_BYTES,
) -> int:
    """Merge shard outputs, refusing a missing or foreign shard and a missing or doubled row."""
    set_max_bytes(max_bytes)

    refuse_clobbering({"--output": output}, {"plan": plan, **{f"shard {p}": p for p in shards}})
    merged = merge(shards, plan)
    # Imported here: admission brings the judge's modules (~25 ms), which plan and cache, in this
    # stage too, never need (tests/test_cli_startup.py).
    from ..runs.judging.admission import merged_record

    write_all_atomically(
        {output: merged.text(), **merged_record(shards, output)}
    )  # a judge's: its record too
    cached = f"; {merged.cached} from the cache, not charged (first cost {usd(merged.cached_cost)})"
    unmetered = f"; {merged.unmetered} with no reported cost" if merged.unmetered else ""
    print(
        f"Merged {plural(merged.shards, 'shard')} ({plural(merged.rows, 'row')}) into {output}. "
        f"Total spend {usd(merged.spent)}" + (cached if merged.cached else "") + unmetered + "."
    )
    return exitcodes.OK


@commands.command("cache")
def cache_command(
    *,
    action: CacheAction = typer.Argument(..., help="stats: what the cache holds; prune: remove old entries."),
    # a folder, always named: not run's and plan's --cache [DIR] (options.cache)
    cache: Path | None = typer.Option(
        None, "--cache", help="The cache folder (default $XDG_CACHE_HOME/adhd-evals/responses)."
    ),
    older_than: str | None = typer.Option(
        None, "--older-than", metavar="AGE", help="prune: entries not written for this long (30d, 12h, 90m)."
    ),
) -> int:
    """The response cache: what it holds, and pruning what is old."""
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
