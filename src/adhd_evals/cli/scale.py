"""A run's shape and scale (docs/scale.md): `plan` (the matrix, the suite's size, the bill),
`merge` (shards back into one file) and `cache` (the answers already paid for).

Nothing here starts a model call: `run` and `judge` live in cli/running.py, so planning
imports no thread pool nor process machinery (tests/test_cli_startup.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..files import DEFAULT_MAX_BYTES
from ..runs.calling.cache import CacheAction
from ..schema import DEFAULT_CATALOG
from . import options
from .options import FLAG, Cases, MaxBytes
from .plain import scale as plain

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
    return plain.plan(
        cases=cases,
        trials=trials,
        include_comparator=include_comparator,
        from_scores=from_scores,
        effect=effect,
        key=key,
        estimate=estimate,
        history=history,
        runner=runner,
        runner_config=runner_config,
        condition_skill=condition_skill,
        cache=cache,
        jobs=jobs,
        as_json=as_json,
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
    return plain.merge(shards=shards, output=output, plan=plan, max_bytes=max_bytes)


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
    return plain.cache(action=action, cache=cache, older_than=older_than)
