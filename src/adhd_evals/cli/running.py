"""The model calls, the commands that spend money: `run` (one condition through a model CLI)
and `judge` (a model CLI filling a blind sheet). Both are POSIX-only (entry.POSIX_ONLY)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from .. import exitcodes
from ..errors import UsageError
from ..output import refuse_clobbering
from ..runs.calling import shard as sharding
from ..runs.calling.cache import Cache, default_dir
from ..runs.calling.cache import damaged_line as caching_warning
from ..runs.calling.config import load_runner
from ..runs.judging.admission import CONTROL_CASES, control_lines
from ..runs.judging.judge import JudgeRequest, JudgeSummary, all_void, judge, swap_lines
from ..runs.running.curtail import lines as curtailed_lines
from ..runs.running.curtail import requested
from ..runs.running.execute import RunRequest, RunSummary, charged_line, run
from ..schema import DEFAULT_BUDGET_USD, DEFAULT_CATALOG, Condition
from ..text import plural, usd
from . import options
from .options import CACHE_HELP, FLAG, Cases, Jobs, Retries, Shard, ShardCount

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
    inputs = {"catalog": cases, "runner config": runner_config, "condition skill": condition_skill}
    refuse_clobbering({"--output": output}, inputs | {"baseline": baseline, "check module": suite})
    part = options.shard_part(shard, shard_count)
    curtail = requested(
        stop_when_decided=stop_when_decided,
        baseline=baseline,
        suite=suite,
        seed=seed,
        condition=condition,
        sharded=part is not None,
        anytime=anytime,
    )
    request = RunRequest(
        runner=load_runner(runner, runner_config),
        condition=condition,
        output=output,
        cases=cases,
        skill=condition_skill,
        case_ids=tuple(case or ()),
        trials=trials,
        retries=retries,
        budget_usd=sharding.budget(budget_usd, shard_budget_total, part, DEFAULT_BUDGET_USD),
        allow_unmetered=allow_unmetered,
        jobs=jobs,
        timeout=timeout,
        backoff=backoff,
        max_calls=max_calls,
        max_output_bytes=max_output_bytes,
        assume_call_usd=assume_call_usd,
        shard=part,
        cache=_cache(cache, refresh),
        curtail=curtail,
    )
    return _ran(request, run(request))


def _ran(request: RunRequest, summary: RunSummary) -> int:
    """Say what the run did on stderr; BUDGET when it stopped before every row ran."""
    said = []
    if summary.repaired_bytes:
        said.append(
            f"Repaired {request.output}: cut a torn last line ({summary.repaired_bytes} bytes) left by an "
            "interrupted run; its case ran again."
        )
    part = request.shard
    said.append(
        f"Ran {plural(summary.ran, 'case')} ({plural(summary.calls, 'call')}), skipped {summary.skipped} "
        f"already in {request.output}; spent {usd(summary.spent)} of {usd(request.budget_usd)}"
        + (f" (the budget of shard {part} alone)." if part else ".")
    )
    said += _cached(request.cache)
    if summary.charged_calls:
        said.append(charged_line(summary.charged, summary.charged_calls))
    if summary.curtailed is not None:
        said.append("\n".join(curtailed_lines(summary.curtailed)))
    if request.allow_unmetered:
        cap = f"--max-calls {request.max_calls}" if request.max_calls is not None else "no --max-calls cap"
        said.append(f"Unmetered: the CLI reports no cost, so the budget cannot stop this run; {cap}.")
    if summary.stopped_for_calls:
        said.append(
            "Call cap reached: stopped before every row ran. Rerun with a larger --max-calls to finish."
        )
    elif summary.stopped_for_budget:
        said.append("Budget spent: stopped before every row ran. Rerun with a larger --budget-usd to finish.")
    print("\n".join(said), file=sys.stderr)
    return exitcodes.BUDGET if summary.stopped_for_calls or summary.stopped_for_budget else exitcodes.OK


def _cached(responses: Cache | None) -> list[str]:
    """What the response cache gave: answers not charged, and any damaged entry."""
    if responses is None:
        return []
    said = [
        f"{plural(responses.hits, 'answer')} from the cache {responses.root}: not charged (they first "
        f"cost {usd(responses.hit_cost)})."
    ]
    return said + ([caching_warning(responses.damaged)] if responses.damaged else [])


def _cache(where: str | None, refresh: bool) -> Cache | None:
    """The response cache `--cache [DIR]` names (an empty value: the default folder), or None."""
    if where is None:
        if refresh:
            raise UsageError("--refresh bypasses the response cache: pass --cache too")
        return None
    return Cache.open(Path(where) if where else default_dir(), refresh=refresh)


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
    refuse_clobbering(
        {"--output": output}, {"sheet": sheet, "catalog": cases, "runner config": runner_config}
    )

    request = JudgeRequest(
        runner=load_runner(runner, runner_config),
        sheet=sheet,
        output=output,
        cases=cases,
        jobs=jobs,
        budget_usd=budget_usd,
        allow_unmetered=allow_unmetered,
        retries=retries,
        timeout=timeout,
        assume_call_usd=assume_call_usd,
        swap_check=swap_check,
        swap_sample=swap_sample,
        shard=options.shard_part(shard, shard_count),
        controls=controls,
        control_cases=control_cases,
    )
    summary = judge(request)
    _judged(summary, output, stub=runner == "stub" and runner_config is None)
    if summary.stopped_for_budget:
        print(
            "Budget spent: stopped before every row was judged. Rerun with a larger --budget-usd.",
            file=sys.stderr,
        )
        return exitcodes.BUDGET
    never = all_void(summary)
    if never is not None:
        print(f"adhd-evals: {never}.", file=sys.stderr)
        return exitcodes.JUDGE_VOID
    return exitcodes.OK


def _judged(summary: JudgeSummary, output: Path, *, stub: bool) -> None:
    """Say on stderr what the judge did: rows, spend, and what --swap-check and --controls found."""
    said = [
        f"Judged {plural(summary.judged, 'row')} ({summary.void} void), skipped {summary.skipped} already in "
        f"{output}; spent {usd(summary.spent)}."
    ]
    if summary.charged_calls:
        said.append(charged_line(summary.charged, summary.charged_calls))
    if summary.swap is not None:
        said += swap_lines(summary.swap)
    if summary.controls is not None:
        said += control_lines(summary.controls, output)
    if stub:
        said.append("The stub judge is a toy for trying the pipeline: its scores judge nothing.")
    print("\n".join(said), file=sys.stderr)
