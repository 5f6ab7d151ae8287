"""`adhd-evals run`: call a model CLI for each (case, trial), concurrently, resumably.

What is run's own: its request, the (case, trial, prompt) tasks still to run, one task's
call (or cache hit, or stub answer) and the response row it makes. Money and processes
(the budget, the pool, retries, signals, the output lock, progress) are calls.py's, shared
with `judge`; the README's "Where adhd-evals differs" table says where they go beyond
i-have-adhd's run_evals.py.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ...catalog import CaseRow, drop_index, indexed, load_valid_once
from ...errors import UsageError
from ...schema import DEFAULT_BUDGET_USD, DEFAULT_CATALOG
from ...text import lone_surrogate_at
from ..calling import idle, policy
from ..calling.config import Runner
from ..calling.home import validated_dir
from ..calling.prompts import condition_prompt, skill_text
from ..calling.store import Store
from ..calling.traces import stub_trace
from ..rubric import CONDITIONS

if TYPE_CHECKING:
    from ..calling.budget import Budget
    from ..calling.cache import Cache
    from ..calling.calls import Done, Session
    from ..calling.shard import Shard
    from ..calling.sidecar import Part
    from ..calling.traces import Trace
    from .curtail import Curtail, Curtailed, Watch


class RunRequest:
    """What `run` was asked, built by keyword alone. A plain class, not a dataclass:
    dataclasses imports inspect, about 8 ms of run's and judge's start-up."""

    __slots__ = (
        "allow_unmetered", "assume_call_usd", "backoff", "budget_usd", "cache", "case_ids", "cases",
        "condition", "curtail", "jobs", "max_calls", "max_output_bytes", "output", "retries", "runner",
        "shard", "skill", "timeout", "trials",
    )  # fmt: skip

    def __init__(
        self,
        *,
        runner: Runner,
        condition: str,
        output: Path,
        cases: Path = Path(DEFAULT_CATALOG),
        skill: Path | None = None,
        case_ids: tuple[str, ...] = (),
        trials: int = 3,
        retries: int = 2,
        budget_usd: float = DEFAULT_BUDGET_USD,
        allow_unmetered: bool = False,
        jobs: int = 1,
        timeout: float | None = None,
        backoff: float = 1.0,
        max_calls: int | None = None,
        max_output_bytes: int = policy.DEFAULT_MAX_OUTPUT,
        assume_call_usd: float | None = None,  # None: the runner config's, if it has one
        shard: Shard | None = None,  # issue 24: only this shard's cases, recorded beside the output
        cache: Cache | None = None,  # issue 24: a hit is a row at no cost (no budget reserved)
        curtail: Curtail | None = None,  # issue 37: --stop-when-decided (see curtail.py)
    ) -> None:
        self.runner, self.condition, self.output, self.cases = runner, condition, output, cases
        self.skill, self.case_ids, self.trials, self.retries = skill, case_ids, trials, retries
        self.budget_usd, self.allow_unmetered, self.jobs = budget_usd, allow_unmetered, jobs
        self.timeout, self.backoff, self.max_calls = timeout, backoff, max_calls
        self.max_output_bytes, self.assume_call_usd = max_output_bytes, assume_call_usd
        self.shard, self.cache, self.curtail = shard, cache, curtail


class RunSummary:
    """What a run did (a plain class: see RunRequest)."""

    def __init__(self, *, repaired_bytes: int = 0) -> None:
        self.ran = 0
        self.skipped = 0
        self.failed_attempts = 0
        self.calls = 0
        self.spent = 0.0
        self.stopped_for_budget = False
        self.stopped_for_calls = False
        self.repaired_bytes = repaired_bytes
        self.charged = 0.0  # calls whose cost is unknown, charged their reservation
        self.charged_calls = 0
        self.curtailed: Curtailed | None = None  # issue 37: what --stop-when-decided did


def load_cases(path: Path) -> list[CaseRow]:
    """The catalog's cases, the rules run once per catalog content (not per run or shard)."""
    return load_valid_once(path, validated_dir())


def shard_part(request: RunRequest) -> Part | None:
    """A shard's part of a catalog whose content passed the rules before (catalog.indexed): every
    id from its index, and only the lines of the cases this shard holds parsed. None, and the
    whole catalog read as any run reads it, when there is no shard, --stop-when-decided needs
    every case, or the index is missing, damaged or not this content's: never a wrong plan."""
    if request.shard is None or request.curtail is not None:
        return None
    found = indexed(request.cases, validated_dir())
    if found is None:
        return None
    held: list[tuple[int, CaseRow]] = []
    for at in request.shard.places(found.ids):
        case = found.case(at)
        if case is None:  # a line that is not the index's: the index cannot be trusted
            drop_index(found.record)
            return None
        held.append((at, case))
    from ..calling.sidecar import Part  # a shard's modules only

    return Part(found.ids, held, found.sha256)


def check_request(request: RunRequest) -> None:
    if request.condition not in CONDITIONS:
        raise UsageError(f"--condition must be one of {', '.join(CONDITIONS)}")
    policy.check_amounts(request)
    if request.trials < 1 or request.jobs < 1 or request.retries < 0:  # the order they always ran in
        raise UsageError(policy.COUNTS)
    policy.check_limits(request)


def stub_answer(prompt: str) -> str:
    """Deterministic, network-free: the same prompt always gets the same answer."""
    digest = hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    # The digest differs per condition; no prompt text, so a blind sheet gives nothing away.
    return f"Stub answer {digest}: a deterministic stand-in for a model's reply."


def run(request: RunRequest, *, progress_stream: TextIO | None = None) -> RunSummary:
    check_request(request)
    part = shard_part(request)  # a shard of an indexed catalog: only its own lines parsed
    cases = load_cases(request.cases) if part is None else [case for _, case in part.held]
    known = set(part.ids) if part is not None else {case["id"] for case in cases}
    unknown = sorted(set(request.case_ids) - known)
    if unknown:
        raise UsageError(f"--case matched no evaluation case: {', '.join(unknown)}")
    instructions = skill_text(request.condition, request.skill)
    watch = _watch(request, cases)  # None unless --stop-when-decided: its inputs checked before any write
    with policy.only_writer(request.output):
        if request.shard is not None:  # the plan's rows of this shard only (see shard.py)
            from ..calling.sidecar import plan

            cases = plan(
                request.output,
                request.shard,
                request.cases,
                cases,
                runner=request.runner,
                condition=request.condition,
                trials=request.trials,
                instructions=instructions,
                only=request.case_ids,
                part=part,
            )
        with contextlib.closing(Store.open(request.output)) as store:
            summary = RunSummary(repaired_bytes=store.repaired_bytes)
            pending = _pending(request, cases, store, summary, instructions)
            pending = watch.resume(store, pending) if watch else pending
            if pending or watch:
                budget = _with_calls(request, pending, store, summary, watch, progress_stream)
            else:  # every row already there: no call can start, so none of the call machinery
                budget = idle.budget(request, store, (request.condition, request.runner.name))
            if watch:  # the calls it never started, recorded as not run (nothing is in flight now)
                summary.curtailed = watch.finish(store)
    summary.spent, summary.calls = budget.spent, budget.calls
    summary.charged, summary.charged_calls = budget.charged, budget.charged_calls
    return summary


def _with_calls(
    request: RunRequest,
    pending: list[Task],
    store: Store,
    summary: RunSummary,
    watch: Watch | None,
    progress_stream: TextIO | None,
) -> Budget:
    """The pending tasks' rows (cached, the stub's or called), in one session of calls; its budget."""
    from ..calling import calls  # where a call may start: a resumed run imports none of it

    scope = (request.condition, request.runner.name)
    with calls.open_session(request, store, scope, progress_stream) as session:
        missed: dict[tuple[str, int], str] = {}  # the key of the task `ready` found uncached
        work = _guarded(watch, lambda task: _one_call(request, task, session, missed))
        driven = calls.drive(pending, work, session, ready=_ready(request, watch, missed))
    summary.ran, summary.failed_attempts = driven.written, driven.failed_attempts
    summary.stopped_for_budget, summary.stopped_for_calls = (
        driven.stopped_for_budget,
        driven.stopped_for_calls,
    )
    return session.budget


Task = tuple[CaseRow, int, str]  # (case, trial, prompt)


def _watch(request: RunRequest, cases: list[CaseRow]) -> Watch | None:
    if request.curtail is None:
        return None
    from .curtail import Watch

    return Watch(request, cases)


def _guarded(watch: Watch | None, work: Callable[[Task], Done | None]) -> Callable[[Task], Done | None]:
    """`work`, consulting the watch (if any) before each task starts."""
    return watch.guard(work) if watch else work


def _pending(
    request: RunRequest,
    cases: list[CaseRow],
    store: Store,
    summary: RunSummary,
    instructions: str | None,
) -> list[Task]:
    """(case, trial, prompt) still to run; every prompt checked before the first call."""
    pending = []
    prompts: dict[int, str] = {}  # a case's prompt, made and checked once for all its trials
    for trial in range(1, request.trials + 1):
        for at, case in enumerate(cases):
            if request.case_ids and case["id"] not in request.case_ids:
                continue
            if (case["id"], trial, request.condition, request.runner.name) in store.done:
                summary.skipped += 1
                continue
            prompt = prompts.get(at)
            if prompt is None:
                prompt = prompts[at] = condition_prompt(case["prompt"], instructions)
                _check_prompt(request.runner, case["id"], prompt)
            pending.append((case, trial, prompt))
    return pending


def _ready(
    request: RunRequest, watch: Watch | None, missed: dict[tuple[str, int], str]
) -> Callable[[Task], Done | None] | None:
    """A task's cached row, or None (its key kept in `missed`, not looked up twice): what
    calls.drive writes before any call. None with no cache, or when --stop-when-decided must
    see every task before it starts."""
    cache = request.cache
    if cache is None or watch is not None:
        return None
    from ..calling.cache import cached_row
    from ..calling.calls import Done

    def ready(task: Task) -> Done | None:
        case, trial, prompt = task
        row, digest = cached_row(cache, request.runner, request.condition, case["id"], trial, prompt)
        if row is None:
            missed[(case["id"], trial)] = digest
            return None
        return Done(row, _label(request, case, trial))

    return ready


def _label(request: RunRequest, case: CaseRow, trial: int) -> str:
    return f"{request.condition} trial {trial}: {case['id']}"


def _one_call(
    request: RunRequest, task: Task, session: Session, missed: dict[tuple[str, int], str]
) -> Done | None:
    """One (case, trial)'s response row: a cache hit (charged nothing), the stub's answer, or
    the runner's; None when nothing more may start."""
    from ..calling.calls import Done  # loaded by the session this runs in

    case, trial, prompt = task
    label = _label(request, case, trial)
    started = time.monotonic()
    cost: float | None
    trace: Trace | None
    if request.cache is not None:  # a hit: the answer as first paid for, charged nothing now
        from ..calling.cache import cached_row  # a cached run's (loaded with its Cache)

        digest = missed.pop((case["id"], trial), "")
        if not digest:
            row, digest = cached_row(
                request.cache, request.runner, request.condition, case["id"], trial, prompt
            )
            if row is not None:
                session.hit()
                return Done(row, label)
    if request.runner.builtin:
        text, usage, cost, failed = stub_answer(prompt), {"input_tokens": len(prompt.split())}, 0.0, 0
        trace = stub_trace(prompt)
    else:
        answer = session.call(prompt)
        if answer is None:
            return None
        text, usage, cost, failed, trace = answer
    row = {
        "case_id": case["id"],
        "trial": trial,
        "condition": request.condition,
        "runner": request.runner.name,
        "response": text,
        "usage": usage,
        "cost_usd": cost,
        "elapsed_s": round(time.monotonic() - started, 3),
    }
    if trace is not None:  # after the reference's keys: a reader that does not know it ignores it
        row["trace"] = trace
    if request.cache is not None:
        request.cache.store(digest, row)
    return Done(row, label, failed)


def _check_prompt(runner: Runner, case_id: str, prompt: str) -> None:
    lone = lone_surrogate_at(prompt)
    if lone is not None:  # no UTF-8 bytes exist for it: neither argv nor stdin can carry it
        raise UsageError(
            f"case {case_id!r}: its prompt holds a lone surrogate (U+{ord(prompt[lone]):04X}) at "
            f"character {lone + 1}, which no UTF-8 text can carry; fix it in the catalog"
        )
    if "\x00" in prompt:
        raise UsageError(
            f"case {case_id!r}: its prompt holds a NUL character, which no command line or "
            "CLI reads intact; remove it from the catalog"
        )
    if prompt.startswith("-") and runner.command and not runner.placed:
        raise UsageError(
            f"case {case_id!r}: its prompt begins with '-', which runner {runner.name!r} would read as an "
            'option; in runners.json put "--", "{prompt}" at the end of its command, or set '
            '"prompt_via": "stdin"'
        )
