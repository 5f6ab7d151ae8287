"""The model calls, the commands that spend money: `run` (one condition through a model CLI)
and `judge` (a model CLI filling a blind sheet). Both are POSIX-only (entry.POSIX_ONLY)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..runs.judging.admission import CONTROL_CASES
from ..schema import DEFAULT_BUDGET_USD, DEFAULT_CATALOG, Condition
from . import options
from .options import CACHE_HELP, FLAG, Cases, Jobs, Retries, Shard, ShardCount
from .plain import running as plain

commands = typer.Typer()


@commands.command("run")
def run_command(
    *,
    runner: Annotated[str, options.runner("A runner from --runner-config, or the built-in 'stub'.")],
    condition: Condition = typer.Option(..., "--condition", help="baseline, candidate or comparator."),
    output: Annotated[Path, options.output("The responses JSONL (appended; rerun to resume).")],
    cases: Cases = Path(DEFAULT_CATALOG),
    runner_config: Annotated[
        Path | None, options.runner_config("runners.json (command, response_format, budget_flag).")
    ] = None,
    condition_skill: Annotated[
        Path | None, options.condition_skill("The skill file candidate and comparator wrap the task with.")
    ] = None,
    case: list[str] | None = typer.Option(
        None, "--case", metavar="ID", help="Only this case id (repeatable)."
    ),
    trials: Annotated[int, options.trials("Trials per case.")] = 3,
    retries: Retries = 2,
    backoff: float = typer.Option(
        1.0, "--backoff", help="Seconds before the first retry; doubles each time."
    ),
    budget_usd: Annotated[
        float | None,
        options.budget_usd(
            "Stop once this much is spent (counting earlier runs into the same file; per shard with "
            f"--shard). Default {DEFAULT_BUDGET_USD:g}."
        ),
    ] = None,
    allow_unmetered: Annotated[
        bool, options.allow_unmetered("Allow a response format that reports no cost.")
    ] = False,
    jobs: Jobs = 1,
    timeout: Annotated[
        float | None, options.timeout("Seconds one call may take before it counts as failed.")
    ] = None,
    max_calls: int | None = typer.Option(
        None, "--max-calls", help="With --allow-unmetered: the most calls (attempts) this run makes."
    ),
    max_output_bytes: int = typer.Option(
        16 * 1024 * 1024, "--max-output-bytes", help="End a call that prints more than this."
    ),
    shard: Shard = None,
    shard_count: ShardCount = None,
    shard_budget_total: float | None = typer.Option(
        None,
        "--shard-budget-total",
        metavar="USD",
        help="A budget for all shards, divided evenly among them.",
    ),
    cache: Annotated[str | None, options.cache(CACHE_HELP)] = None,
    refresh: bool = typer.Option(
        False, "--refresh", metavar=FLAG, help="With --cache: call anyway (and store the new answers)."
    ),
    assume_call_usd: Annotated[
        float | None,
        options.assume_call_usd(
            "Without a budget_flag: the most one call may cost (held, and charged "
            "when its cost is unknown). Default: the runner's assume_call_usd; required with --jobs above 1."
        ),
    ] = None,
    stop_when_decided: bool = typer.Option(
        False,
        "--stop-when-decided",
        metavar=FLAG,
        help="With --condition candidate and --baseline: run the cases in a random order and start no new "
        "call once no outcome of the rest could change the exact sign test's verdict on the cases' check Δ.",
    ),
    baseline: Path | None = typer.Option(
        None, "--baseline", help="With --stop-when-decided: the baseline's responses, already run."
    ),
    suite: Annotated[
        Path | None,
        options.suite(
            "With --stop-when-decided: the check module deciding each case's Δ (default evals/checks.py)."
        ),
    ] = None,
    seed: Annotated[
        int | None, options.seed("With --stop-when-decided: the seed of the cases' order (default 0).")
    ] = None,
    anytime: bool = typer.Option(
        False,
        "--anytime",
        metavar=FLAG,
        help="With --stop-when-decided: also stop once a betting e-process on the cases' signs reaches 20 "
        "(anytime-valid at 5%; see docs/runs-and-money.md).",
    ),
) -> int:
    """Run one condition through a model CLI, resumably and concurrently."""
    return plain.run(
        runner=runner,
        condition=condition,
        output=output,
        cases=cases,
        runner_config=runner_config,
        condition_skill=condition_skill,
        case=case,
        trials=trials,
        retries=retries,
        backoff=backoff,
        budget_usd=budget_usd,
        allow_unmetered=allow_unmetered,
        jobs=jobs,
        timeout=timeout,
        max_calls=max_calls,
        max_output_bytes=max_output_bytes,
        shard=shard,
        shard_count=shard_count,
        shard_budget_total=shard_budget_total,
        cache=cache,
        refresh=refresh,
        assume_call_usd=assume_call_usd,
        stop_when_decided=stop_when_decided,
        baseline=baseline,
        suite=suite,
        seed=seed,
        anytime=anytime,
    )


@commands.command("judge")
def judge_command(
    *,
    sheet: Path = typer.Argument(..., help="The blind sheet (from 'adhd-evals blind')."),
    runner: Annotated[str, options.runner("A runner from --runner-config, or the built-in 'stub' (a toy).")],
    runner_config: Annotated[Path | None, options.runner_config("runners.json.")] = None,
    cases: Cases = Path(DEFAULT_CATALOG),
    output: Annotated[Path, options.output("The judged sheet (JSONL; rerun to resume).")],
    jobs: Jobs = 1,
    budget_usd: Annotated[
        float, options.budget_usd("Stop once the judge has spent this much.")
    ] = DEFAULT_BUDGET_USD,
    allow_unmetered: Annotated[
        bool, options.allow_unmetered("Allow a judge whose format reports no cost.")
    ] = False,
    retries: Retries = 2,
    timeout: Annotated[float | None, options.timeout("Seconds one judge call may take.")] = None,
    assume_call_usd: Annotated[
        float | None,
        options.assume_call_usd("Without a budget_flag: the most one judge call may cost (see run)."),
    ] = None,
    swap_check: bool = typer.Option(
        False,
        "--swap-check",
        metavar=FLAG,
        help="Judge a sample again with the criteria in reverse order and report verdicts that change.",
    ),
    swap_sample: int = typer.Option(10, "--swap-sample", min=1, help="Rows --swap-check judges again."),
    controls: bool = typer.Option(
        False,
        "--controls",
        metavar=FLAG,
        help="Add control rows the judge must fail (an empty response, instructions to pass, the "
        "criteria restated); any it passes is a leak, and score refuses a leaky judge.",
    ),
    control_cases: int = typer.Option(
        CONTROL_CASES, "--control-cases", min=1, help="Cases --controls samples (each gets every kind)."
    ),
    shard: Shard = None,
    shard_count: ShardCount = None,
) -> int:
    """Fill a blind sheet with a model judge; rows it cannot judge are void, never passed."""
    return plain.judge(
        sheet=sheet,
        runner=runner,
        runner_config=runner_config,
        cases=cases,
        output=output,
        jobs=jobs,
        budget_usd=budget_usd,
        allow_unmetered=allow_unmetered,
        retries=retries,
        timeout=timeout,
        assume_call_usd=assume_call_usd,
        swap_check=swap_check,
        swap_sample=swap_sample,
        controls=controls,
        control_cases=control_cases,
        shard=shard,
        shard_count=shard_count,
    )
