"""The plain bodies of `run` and `judge` (their typer signatures: cli/running.py). Each imports
its own command where it starts, which imports the call machinery (the driver, the pool, process
groups) only where a call will start: a resumed run or judge with every row there imports none."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ... import exitcodes
from ...errors import UsageError
from ...output import refuse_clobbering
from ...schema import DEFAULT_BUDGET_USD
from ...text import plural, usd
from . import shard_part

if TYPE_CHECKING:
    from ...runs.calling.cache import Cache
    from ...runs.judging.judge import JudgeSummary
    from ...runs.running.execute import RunRequest, RunSummary
    from ...schema import Condition


def run(
    *,
    runner: str,
    condition: Condition,
    output: Path,
    cases: Path,
    runner_config: Path | None,
    condition_skill: Path | None,
    case: list[str] | None,
    trials: int,
    retries: int,
    backoff: float,
    budget_usd: float | None,
    allow_unmetered: bool,
    jobs: int,
    timeout: float | None,
    max_calls: int | None,
    max_output_bytes: int,
    shard: str | None,
    shard_count: int | None,
    shard_budget_total: float | None,
    cache: str | None,
    refresh: bool,
    assume_call_usd: float | None,
    stop_when_decided: bool,
    baseline: Path | None,
    suite: Path | None,
    seed: int | None,
    anytime: bool,
) -> int:
    """Run one condition through a model CLI, resumably and concurrently."""
    from ...runs.calling import shard as sharding
    from ...runs.calling.config import load_runner
    from ...runs.running.curtail_options import requested
    from ...runs.running.execute import RunRequest
    from ...runs.running.execute import run as execute

    inputs = {"catalog": cases, "runner config": runner_config, "condition skill": condition_skill}
    refuse_clobbering({"--output": output}, inputs | {"baseline": baseline, "check module": suite})
    part = shard_part(shard, shard_count)
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
    return _ran(request, execute(request))


def _ran(request: RunRequest, summary: RunSummary) -> int:
    """Say what the run did on stderr; BUDGET when it stopped before every row ran."""
    from ...runs.calling.budget import charged_line

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
        from ...runs.running.curtail import lines as curtailed_lines  # a curtailed run's modules only

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
    from ...runs.calling.cache import damaged_line as caching_warning

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
    from ...runs.calling.cache import Cache  # a cached run's alone
    from ...runs.calling.home import default_dir

    return Cache.open(Path(where) if where else default_dir(), refresh=refresh)


def judge(
    *,
    sheet: Path,
    runner: str,
    runner_config: Path | None,
    cases: Path,
    output: Path,
    jobs: int,
    budget_usd: float,
    allow_unmetered: bool,
    retries: int,
    timeout: float | None,
    assume_call_usd: float | None,
    swap_check: bool,
    swap_sample: int,
    controls: bool,
    control_cases: int,
    shard: str | None,
    shard_count: int | None,
) -> int:
    """Fill a blind sheet with a model judge; rows it cannot judge are void, never passed."""
    from ...runs.calling.config import load_runner
    from ...runs.judging.judge import JudgeRequest, all_void
    from ...runs.judging.judge import judge as judged

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
        shard=shard_part(shard, shard_count),
        controls=controls,
        control_cases=control_cases,
    )
    summary = judged(request)
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
    from ...runs.calling.budget import charged_line  # its home: judge imports none of run's execute
    from ...runs.judging.judge import swap_lines

    said = [
        f"Judged {plural(summary.judged, 'row')} ({summary.void} void), skipped {summary.skipped} already in "
        f"{output}; spent {usd(summary.spent)}."
    ]
    if summary.charged_calls:
        said.append(charged_line(summary.charged, summary.charged_calls))
    if summary.swap is not None:
        said += swap_lines(summary.swap)
    if summary.controls is not None:  # --controls: the admission's words for what the judge did
        from ...runs.judging.admission import control_lines

        said += control_lines(summary.controls, output)
    if stub:
        said.append("The stub judge is a toy for trying the pipeline: its scores judge nothing.")
    print("\n".join(said), file=sys.stderr)
