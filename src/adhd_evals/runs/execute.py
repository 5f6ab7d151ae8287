"""`adhd-evals run`: call a model CLI for each (case, trial), concurrently, resumably.

Money and processes (the README's "Where adhd-evals differs" table says where
this goes beyond i-have-adhd's run_evals.py):
- a call starts only with its share of the budget reserved; a runner with a
  `budget_flag` is told at most that share, so what calls may spend never sums
  past `--budget-usd`;
- a stop (a fatal failure, the budget, Ctrl-C, SIGTERM) starts nothing new and
  ends in-flight calls with their process groups (see process.py);
- one writer per output file (an advisory lock naming the holder's pid).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO, TypeVar

from .. import exitcodes
from ..catalog import load_valid
from ..errors import Busy, RunnerFailed, Stopped, UsageError
from . import process
from .config import STUB, Runner
from .prompts import condition_prompt, skill_text
from .responses import ResponseUnreadable, parse
from .rubric import CONDITIONS
from .store import Store

if TYPE_CHECKING:
    from .cache import Cache
    from .shard import Shard


@dataclass(frozen=True)
class RunRequest:
    runner: Runner
    condition: str
    output: Path
    cases: Path = Path("evals/cases.jsonl")
    skill: Path | None = None
    case_ids: tuple[str, ...] = ()
    trials: int = 3
    retries: int = 2
    budget_usd: float = 25.0
    allow_unmetered: bool = False
    jobs: int = 1
    timeout: float | None = None
    backoff: float = 1.0
    max_calls: int | None = None
    max_output_bytes: int = process.DEFAULT_MAX_OUTPUT
    shard: Shard | None = None  # issue 24: only this shard's cases, recorded beside the output
    cache: Cache | None = None  # issue 24: a hit is a row at no cost (no budget reserved)


class CallPolicy(Protocol):
    """What a call to a model CLI needs to know (a run's request, or a judge's)."""

    @property
    def runner(self) -> Runner: ...
    @property
    def retries(self) -> int: ...
    @property
    def backoff(self) -> float: ...
    @property
    def timeout(self) -> float | None: ...
    @property
    def max_output_bytes(self) -> int: ...
    @property
    def allow_unmetered(self) -> bool: ...


class Unmetered(RunnerFailed):
    """A CLI reported no cost while the run is metered: a configuration problem, always fatal."""


@dataclass
class RunSummary:
    ran: int = 0
    skipped: int = 0
    failed_attempts: int = 0
    calls: int = 0
    spent: float = 0.0
    stopped_for_budget: bool = False
    stopped_for_calls: bool = False
    repaired_bytes: int = 0


def load_cases(path: Path) -> list[dict[str, Any]]:
    return load_valid(path)


def _finite(value: float | None, *, positive: bool) -> bool:
    return value is not None and math.isfinite(value) and (value > 0 if positive else value >= 0)


def check_request(request: RunRequest) -> None:
    if request.condition not in CONDITIONS:
        raise UsageError(f"--condition must be one of {', '.join(CONDITIONS)}")
    if not _finite(request.budget_usd, positive=True):
        raise UsageError("--budget-usd must be a number greater than 0")
    if not _finite(request.backoff, positive=False):
        raise UsageError("--backoff must be a number of seconds, 0 or more")
    if request.timeout is not None and not _finite(request.timeout, positive=True):
        raise UsageError("--timeout must be a number of seconds greater than 0")
    if request.trials < 1 or request.jobs < 1 or request.retries < 0:
        raise UsageError("--trials and --jobs must be at least 1, --retries at least 0")
    if request.max_output_bytes < 1 or (request.max_calls is not None and request.max_calls < 1):
        raise UsageError("--max-output-bytes and --max-calls must be at least 1")
    if not request.runner.metered and not request.allow_unmetered:
        raise UsageError(
            f"the {request.runner.response_format!r} response format never reports dollar "
            "cost; rerun with --allow-unmetered only when the provider has a separate hard "
            "spending cap (and --max-calls N to cap the calls)"
        )


class Budget:
    """Money shared by the workers, reserved before each call and settled after it.

    With a budget flag, a call reserves an equal share of what is unreserved
    among the calls that may still start, and the CLI is told that share, so
    the reservations never sum past the limit. Without one, the CLI cannot be
    told, so a call reserves the most any call has cost so far, and until one
    has reported a cost only one call runs at a time. `--max-calls` caps calls
    (every attempt counts) for runs that report no cost at all.
    """

    def __init__(self, limit: float, spent: float, jobs: int, flagged: bool, max_calls: int | None) -> None:
        self.limit, self.spent, self.jobs, self.flagged = limit, spent, jobs, flagged
        self.max_calls, self.calls = max_calls, 0
        self.reserved = 0.0
        self.in_flight = 0
        self.dearest: float | None = None
        self._changed = threading.Condition()

    def reserve(self, stop: threading.Event) -> float | None:
        """A share for one call, or None when nothing more may start (the budget, the cap, a stop)."""
        with self._changed:
            while True:
                if stop.is_set() or self.spent >= self.limit:
                    return None
                if self.max_calls is not None and self.calls >= self.max_calls:
                    return None
                free = self.limit - self.spent - self.reserved
                share = self._share(free)
                if share is not None:
                    self.reserved += share
                    self.in_flight += 1
                    self.calls += 1
                    return share
                if self.in_flight == 0:
                    return None  # too little left for one more call
                self._changed.wait(timeout=process.POLL_S)

    def _share(self, free: float) -> float | None:
        if free <= 0:
            return None
        if self.flagged:
            return free / (self.jobs - self.in_flight)
        if self.dearest is not None and self.dearest <= free:
            return self.dearest  # what calls have cost so far (free calls, 0, run at once too)
        if self.in_flight == 0:
            return free  # alone, a call may spend what is left (as the reference's does)
        return None

    def settle(self, share: float, cost: float | None) -> None:
        with self._changed:
            self.reserved -= share
            self.in_flight -= 1
            if cost is not None:
                self.spent += cost
                self.dearest = max(self.dearest or 0.0, cost)
            self._changed.notify_all()

    def exhausted(self) -> bool:
        with self._changed:
            return self.spent >= self.limit or self.limit - self.spent - self.reserved <= 0

    def capped(self) -> bool:
        with self._changed:
            return self.max_calls is not None and self.calls >= self.max_calls


class Progress:
    """A bar on a terminal (cases done, failures, spend, rate); plain lines otherwise."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total, self.stream = total, stream
        self.tty = stream.isatty()
        self.done = self.failures = 0
        self.started = time.monotonic()
        self._lock = threading.Lock()

    def step(self, label: str, spent: float, *, failed_attempts: int = 0) -> None:
        with self._lock:
            self.done += 1
            self.failures += failed_attempts
            rate = self.done / max(time.monotonic() - self.started, 1e-9)
            if self.tty:
                filled = int(24 * self.done / max(self.total, 1))
                self.stream.write(
                    f"\r[{'#' * filled}{'.' * (24 - filled)}] {self.done}/{self.total} "
                    f"failures {self.failures}  ${spent:.4f}  {rate:.1f}/s "
                )
                if self.done == self.total:
                    self.stream.write("\n")
            else:
                self.stream.write(f"{label} ({self.done}/{self.total}, ${spent:.4f})\n")
            self.stream.flush()


def stub_answer(prompt: str) -> str:
    """Deterministic, network-free: the same prompt always gets the same answer."""
    digest = hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    # The digest differs per condition; no prompt text, so a blind sheet gives nothing away.
    return f"Stub answer {digest}: a deterministic stand-in for a model's reply."


def run(request: RunRequest, *, progress_stream: TextIO | None = None) -> RunSummary:
    check_request(request)
    cases = load_cases(request.cases)
    unknown = sorted(set(request.case_ids) - {case["id"] for case in cases})
    if unknown:
        raise UsageError(f"--case matched no evaluation case: {', '.join(unknown)}")
    instructions = skill_text(request.condition, request.skill)
    with only_writer(request.output):
        if request.shard is not None:  # the plan's rows of this shard only (see shard.py)
            from .shard import plan

            cases = plan(request.output, request.shard, request.cases, cases, runner=request.runner,
                         condition=request.condition, trials=request.trials, instructions=instructions,
                         only=request.case_ids)  # fmt: skip
        store = Store.open(request.output)
        summary = RunSummary(repaired_bytes=store.repaired_bytes)
        try:
            pending = _pending(request, cases, store, summary, instructions)
            spent = store.spent.get((request.condition, request.runner.name), 0.0)
            budget = Budget(request.budget_usd, spent, request.jobs, bool(request.runner.budget_flag),
                            request.max_calls if request.allow_unmetered else None)  # fmt: skip
            progress = Progress(len(pending), progress_stream or sys.stderr)
            with signals_stop() as stop:
                _run_all(request, pending, store, budget, summary, progress, stop)
            summary.spent, summary.calls = budget.spent, budget.calls
        finally:
            store.close()
    return summary


def _pending(request: RunRequest, cases: list[dict[str, Any]], store: Store, summary: RunSummary,
             instructions: str | None) -> list[tuple[dict[str, Any], int, str]]:  # fmt: skip
    """(case, trial, prompt) still to run; every prompt checked before the first call."""
    pending = []
    for trial in range(1, request.trials + 1):
        for case in cases:
            if request.case_ids and case["id"] not in request.case_ids:
                continue
            if (case["id"], trial, request.condition, request.runner.name) in store.done:
                summary.skipped += 1
                continue
            prompt = condition_prompt(case["prompt"], instructions)
            _check_prompt(request.runner, case["id"], prompt)
            pending.append((case, trial, prompt))
    return pending


def _check_prompt(runner: Runner, case_id: str, prompt: str) -> None:
    if "\x00" in prompt:
        raise UsageError(f"case {case_id!r}: its prompt holds a NUL character, which no command line or "
                         "CLI reads intact; remove it from the catalog")  # fmt: skip
    if prompt.startswith("-") and runner.command and not runner.placed:
        raise UsageError(
            f"case {case_id!r}: its prompt begins with '-', which runner {runner.name!r} would read as an "
            'option; in runners.json put "--", "{prompt}" at the end of its command, or set '
            '"prompt_via": "stdin"'
        )


@contextlib.contextmanager
def only_writer(output: Path) -> Iterator[None]:
    """An advisory lock beside the output: a second run on the same file refuses at once."""
    output.parent.mkdir(parents=True, exist_ok=True)
    lock = output.with_name(output.name + ".lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
            raise Busy(f"{output} is being written by another run (pid {holder}); "
                       "wait for it, or write to another --output") from None  # fmt: skip
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
        with contextlib.suppress(OSError):
            lock.unlink()
    finally:
        os.close(fd)


@contextlib.contextmanager
def signals_stop() -> Iterator[threading.Event]:
    """SIGINT and SIGTERM set the stop (in-flight calls end with their groups); the run
    then raises Stopped with 130 or 143. Off the main thread, signals stay as they are."""
    stop = threading.Event()
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handle(signum: int, frame: object) -> None:
        received.append(signum)
        stop.set()

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if received:
        terminated = received[0] == signal.SIGTERM
        raise Stopped("stopped by " + ("SIGTERM" if terminated else "Ctrl-C") + ": no new call started, "
                      "calls in flight were ended",
                      exitcodes.TERMINATED if terminated else exitcodes.INTERRUPTED)  # fmt: skip


Task = TypeVar("Task")


def pool(jobs: int, tasks: list[Task], work: Callable[[Task], Any], stop: threading.Event) -> None:
    """Run `work` over the tasks on `jobs` threads; the first failure sets the stop before
    anything else can start, and is raised once every thread is done."""
    failures: list[BaseException] = []

    def guarded(task: Task) -> None:
        if stop.is_set():
            return
        try:
            work(task)
        except BaseException as exc:
            stop.set()
            failures.append(exc)

    with ThreadPoolExecutor(max_workers=jobs) as executor:
        futures = [executor.submit(guarded, task) for task in tasks]
        while not all(f.done() for f in futures):  # the main thread stays free for signals
            wait(futures, timeout=process.POLL_S * 4)
    if failures:
        raise failures[0]


def _run_all(request: RunRequest, pending: list[tuple[dict[str, Any], int, str]], store: Store,
             budget: Budget, summary: RunSummary, progress: Progress, stop: threading.Event) -> None:  # fmt: skip
    lock = threading.Lock()

    def work(task: tuple[dict[str, Any], int, str]) -> None:
        case, trial, prompt = task
        row, failed = _one_call(request, case, trial, prompt, budget, stop)
        if row is None:  # nothing more may start: the budget, the cap, or a stop
            return
        store.append(row)
        with lock:
            summary.ran += 1
            summary.failed_attempts += failed
        progress.step(
            f"{request.condition} trial {trial}: {case['id']}", budget.spent, failed_attempts=failed
        )

    try:
        pool(request.jobs, pending, work, stop)
    finally:
        incomplete = summary.ran < len(pending)
        summary.stopped_for_budget = incomplete and budget.exhausted()
        summary.stopped_for_calls = incomplete and budget.capped()


def _one_call(request: RunRequest, case: dict[str, Any], trial: int, prompt: str, budget: Budget,
              stop: threading.Event) -> tuple[dict[str, Any] | None, int]:  # fmt: skip
    started = time.monotonic()
    cost: float | None
    if request.cache is not None:  # a hit: the answer as first paid for, charged nothing now
        from .cache import cached_row

        row, digest = cached_row(request.cache, request.runner, request.condition, case["id"], trial, prompt)
        if row is not None:
            return row, 0
    if request.runner.name == STUB and not request.runner.command:
        text, usage, cost, failed = stub_answer(prompt), {"input_tokens": len(prompt.split())}, 0.0, 0
    else:
        result = call_with_retries(request, prompt, budget, stop)
        if result is None:
            return None, 0
        (text, usage, cost), failed = result
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
    if request.cache is not None:
        request.cache.store(digest, row)
    return row, failed


def call_with_retries(request: CallPolicy, prompt: str, budget: Budget, stop: threading.Event
                       ) -> tuple[tuple[str, dict[str, Any], float | None], int] | None:  # fmt: skip
    """A response, None when nothing more may start, or RunnerFailed after the last retry."""
    runner = request.runner
    last = ""
    for attempt in range(request.retries + 1):
        if attempt and stop.wait(min(request.backoff * 2 ** (attempt - 1), 30.0)):
            return None
        share = budget.reserve(stop)
        if share is None:
            return None
        cost: float | None = None
        try:
            argv, stdin_text = runner.invocation(prompt, share)
            outcome = process.call(argv, stdin_text=stdin_text, timeout=request.timeout,
                                   max_output=request.max_output_bytes, stop=stop)  # fmt: skip
            if outcome.ended == "stop":
                return None
            if outcome.code == 0:
                try:
                    text, usage, cost = parse(outcome.out, runner.response_format)
                except ResponseUnreadable as exc:
                    last = f"{exc}\n{_tail(outcome.out)}"
                    continue
                if cost is None and not request.allow_unmetered:
                    raise Unmetered(
                        f"runner {runner.name!r} ({runner.shown()}) did not report dollar cost; rerun with "
                        "--allow-unmetered only when the provider has a separate hard spending cap"
                    )
                return (text, usage, cost), attempt
            last = _failure(outcome, request)
        finally:
            budget.settle(share, cost)
    raise RunnerFailed(
        f"runner {runner.name!r} failed after {request.retries + 1} attempts (command: {runner.shown()}): {last}"
    )


def _failure(outcome: process.Outcome, request: CallPolicy) -> str:
    if outcome.ended == "timeout":
        what = f"timed out after {request.timeout} s (its process group was ended)"
    elif outcome.ended == "output":
        what = f"printed more than {request.max_output_bytes:,} bytes (--max-output-bytes); it was ended"
    else:
        what = f"exit code {outcome.code}"
    tail = outcome.err or outcome.out
    return what + (f"; last output:\n{_tail(tail)}" if tail.strip() else "")


def _tail(text: str, lines: int = 12) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])
