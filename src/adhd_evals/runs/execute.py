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
import hashlib
import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO, TypeVar

from .. import exitcodes, files
from ..catalog import load_valid
from ..errors import Busy, OutputError, RunnerFailed, Stopped, UsageError
from ..schema import DEFAULT_CATALOG
from ..text import plural
from . import process
from .config import Runner
from .prompts import condition_prompt, skill_text
from .responses import ResponseUnreadable, parse
from .rubric import CONDITIONS
from .store import Ledger, Store

if TYPE_CHECKING:
    from .cache import Cache
    from .shard import Shard


@dataclass(frozen=True)
class RunRequest:
    runner: Runner
    condition: str
    output: Path
    cases: Path = Path(DEFAULT_CATALOG)
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
    assume_call_usd: float | None = None  # None: the runner config's, if it has one
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
    charged: float = 0.0  # calls whose cost is unknown, charged their reservation
    charged_calls: int = 0


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
    if request.max_output_bytes > process.MAX_OUTPUT_LIMIT:  # it is read into memory whole
        raise UsageError(f"--max-output-bytes must be at most {process.MAX_OUTPUT_LIMIT:,} (1 GiB)")
    floor(request)
    if not request.runner.metered and not request.allow_unmetered:
        raise UsageError(
            f"the {request.runner.response_format!r} response format never reports dollar "
            "cost; rerun with --allow-unmetered only when the provider has a separate hard "
            "spending cap (and --max-calls N to cap the calls)"
        )


@dataclass(frozen=True)
class Reservation:
    """Money held for one call: `usd` is charged when its cost stays unknown; `told` is what
    the CLI is told through its budget flag (None when it has none)."""

    usd: float
    told: float | None = None
    ticket: str | None = None  # its line in the ledger, when there is one


FREE = Reservation(0.0)  # a call that costs this run nothing (a cached answer)


def floor(request: Any) -> float | None:
    """The least a call without a budget flag reserves: --assume-call-usd, else the runner
    config's `assume_call_usd`; refused when missing where calls would share the budget blind."""
    runner: Runner = request.runner
    given = getattr(request, "assume_call_usd", None)
    value = given if given is not None else runner.assume_call_usd
    if value is not None and not _finite(value, positive=True):
        raise UsageError("--assume-call-usd must be a number of dollars greater than 0")
    blind = runner.metered and not runner.budget_flag and not runner.builtin
    if value is None and blind and request.jobs > 1:
        raise UsageError(
            f"runner {runner.name!r} has no budget_flag, so its calls cannot be told their share: with "
            "--jobs above 1, say the most one call may cost with --assume-call-usd USD (or "
            '"assume_call_usd" in runners.json); a call that costs more stops the run'
        )
    return value if blind else None


class Budget:
    """Money shared by the workers: reserved before each call, then recorded or charged.

    API: `reserve()` a Reservation (or None: nothing more may start), then exactly
    one of `record(held, cost)` (the CLI reported its cost), `charge(held)` (it
    started, and its cost is unknown: it may have spent all it held) or
    `release(held)` (it never started). `reserve(stop, cached=True)` is FREE.

    With a budget flag, a call reserves an equal share of what is unreserved
    among the calls that may still start, and the CLI is told that share; until
    one call has come back within what it was told, calls go one at a time (a
    CLI that ignores its flag is caught on its first call, not on eight), and
    no call starts with less left than the dearest call so far has cost (a CLI
    that ignores a small share is not given one).
    Without one, a call reserves the dearest cost seen so far and at least the
    floor (`--assume-call-usd`); with no floor (allowed at --jobs 1 only) a call
    runs alone and holds all that is left. A call that costs more than it held
    has broken the accounting: nothing more starts, and `overspent` says who.
    `--max-calls` caps calls (every attempt counts) for runs that report no cost.
    """

    def __init__(
        self,
        limit: float,
        spent: float,
        jobs: int,
        flagged: bool,
        max_calls: int | None,
        *,
        floor: float | None = None,
        metered: bool = True,
        runner: str = "",
        ledger: Ledger | None = None,
        scope: tuple[str, str] = ("", ""),
        charged: float = 0.0,
        confirm_rows: bool = False,
    ) -> None:
        self.limit, self.jobs, self.flagged = limit, jobs, flagged
        self.spent = spent + charged  # recorded plus charged: what counts against the limit
        self.max_calls, self.calls = max_calls, 0
        self.floor, self.metered, self.runner = floor, metered, runner
        self.ledger, self.scope, self.confirm_rows = ledger, scope, confirm_rows
        self.charged, self.charged_calls = 0.0, 0  # this run's charges (the ledger holds earlier ones)
        self.reserved = 0.0
        self.in_flight = 0
        self.dearest: float | None = None
        self.trusted = False  # a flagged call has come back within what it was told
        self.overspent = ""
        self._changed = threading.Condition()
        self._unwritten = threading.local()

    def reserve(self, stop: threading.Event, *, cached: bool = False) -> Reservation | None:
        """A reservation for one call, or None when nothing more may start (the budget, the
        cap, an overspend, a stop). A cached answer costs nothing and waits for nothing."""
        if cached:
            return FREE
        with self._changed:
            while True:
                if stop.is_set() or self.overspent or self.spent >= self.limit:
                    return None
                if self.max_calls is not None and self.calls >= self.max_calls:
                    return None
                share = self._share(self.limit - self.spent - self.reserved)
                if share is not None:
                    self.reserved += share[0]
                    self.in_flight += 1
                    self.calls += 1
                    break
                if self.in_flight == 0:
                    return None  # too little left for one more call
                self._changed.wait(timeout=process.POLL_S)
        ticket = self.ledger.reserve(share[0], *self.scope) if self.ledger and share[0] > 0 else None
        return Reservation(share[0], share[1], ticket)

    def _share(self, free: float) -> tuple[float, float | None] | None:
        """(held, told) for the next call, or None when it must wait."""
        if free <= 0:
            return None
        if self.flagged:
            if (not self.trusted and self.in_flight) or (self.dearest or 0.0) > free:
                return None  # one at a time until trusted; never less left than a call has cost
            told = free / (self.jobs - self.in_flight)
            return (told if self.metered else 0.0), told
        if not self.metered:
            return 0.0, None  # nothing to count: --max-calls bounds the run
        if self.floor is None:
            return (free, None) if self.in_flight == 0 else None
        need = max(self.dearest or 0.0, self.floor)
        return (need, None) if need <= free else None

    def record(self, held: Reservation, cost: float | None) -> None:
        """The call reported its cost (None: an unmetered run, which counts calls instead)."""
        with self._changed:
            self._end(held)
            if cost is not None:
                self.spent += cost
                self.dearest = max(self.dearest or 0.0, cost)
                if self.metered and cost > held.usd + 1e-9 and held is not FREE:
                    self.overspent = self.overspent or self._overspend(cost, held)
                elif self.flagged:
                    self.trusted = True
        if held.ticket is None:
            return
        if self.confirm_rows:  # settled once its row is written: a kill in between overcounts
            self._pending().append(held.ticket)
        else:
            self._settle(held.ticket, 0.0)

    def row_written(self) -> None:
        """The calling thread's row is on disk: its reservations are settled."""
        tickets = self._pending()
        while tickets:
            self._settle(tickets.pop(), 0.0)

    def charge(self, held: Reservation) -> None:
        """The call started and its cost is unknown: it is charged what it held."""
        with self._changed:
            self._end(held)
            self.spent += held.usd
            self.charged += held.usd
            self.charged_calls += held.usd > 0
        if held.ticket is not None:
            self._settle(held.ticket, held.usd)

    def release(self, held: Reservation) -> None:
        """The call never started: nothing can have been spent."""
        with self._changed:
            self._end(held)
            self.calls -= 1
        if held.ticket is not None:
            self._settle(held.ticket, 0.0)

    def _end(self, held: Reservation) -> None:
        if held is FREE:
            return
        self.reserved -= held.usd
        self.in_flight -= 1
        self._changed.notify_all()

    def _settle(self, ticket: str, usd: float) -> None:
        if self.ledger is not None:
            self.ledger.settle(ticket, usd, self.scope)

    def _pending(self) -> list[str]:
        if not hasattr(self._unwritten, "tickets"):
            self._unwritten.tickets = []
        tickets: list[str] = self._unwritten.tickets
        return tickets

    def _overspend(self, cost: float, held: Reservation) -> str:
        what = (
            f"it was told ${held.told:.4f} through its budget flag"
            if held.told is not None
            else f"${held.usd:.4f} was reserved for it (the dearest call so far, at least --assume-call-usd)"
        )
        return (
            f"runner {self.runner!r} spent ${cost:.4f} on one call where {what}; no call started after "
            "it, since the budget can no longer be promised with this runner"
        )

    def raise_if_overspent(self) -> None:
        if self.overspent:
            raise Stopped(self.overspent, exitcodes.BUDGET)

    def exhausted(self) -> bool:
        """Whether the money (not a stop, not the call cap) is why no more calls start."""
        with self._changed:
            free = self.limit - self.spent - self.reserved
            return bool(self.overspent) or self.spent >= self.limit or self._share(free) is None

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


def charged_line(usd: float, calls: int) -> str:
    """The summary's line for calls whose cost stayed unknown ("" when there were none)."""
    if not calls:
        return ""
    return (
        f"Of that, ${usd:.4f} for {plural(calls, 'call')} that failed, timed out or printed unreadable "
        "output after starting: charged the reservation: cost unknown."
    )


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
            )
        store = Store.open(request.output)
        ledger = Ledger.beside(request.output, process.owner())
        summary = RunSummary(repaired_bytes=store.repaired_bytes)
        try:
            pending = _pending(request, cases, store, summary, instructions)
            budget = open_budget(request, store, ledger, (request.condition, request.runner.name))
            progress = Progress(len(pending), progress_stream or sys.stderr)
            with signals_stop() as stop:
                _run_all(request, pending, store, budget, summary, progress, stop)
            summary.spent, summary.calls = budget.spent, budget.calls
            summary.charged, summary.charged_calls = budget.charged, budget.charged_calls
            budget.raise_if_overspent()
        finally:
            store.close()
            ledger.close()
    return summary


def open_budget(request: Any, store: Store, ledger: Ledger, scope: tuple[str, str]) -> Budget:
    """The budget of one (condition, runner) — of one runner, any condition, when the scope's
    condition is "" (a judge's) — from what its rows recorded and its ledger charged."""
    runner: Runner = request.runner
    mine = [key for key in store.spent if key == scope or (scope[0] == "" and key[1] == scope[1])]
    budget = Budget(
        request.budget_usd,
        sum(store.spent[key] for key in mine),
        request.jobs,
        bool(runner.budget_flag),
        request.max_calls if request.allow_unmetered else None,
        floor=floor(request),
        metered=not request.allow_unmetered or runner.metered,
        runner=runner.name,
        ledger=ledger,
        scope=scope,
        charged=ledger.charged.get(scope, 0.0),
        confirm_rows=True,
    )
    budget.dearest = max((store.dearest.get(key, 0.0) for key in mine), default=None)  # earlier runs' too
    return budget


def _pending(
    request: RunRequest,
    cases: list[dict[str, Any]],
    store: Store,
    summary: RunSummary,
    instructions: str | None,
) -> list[tuple[dict[str, Any], int, str]]:
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
    lone = next((at for at, char in enumerate(prompt) if "\ud800" <= char <= "\udfff"), None)
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


@contextlib.contextmanager
def only_writer(output: Path) -> Iterator[None]:
    """One writer per output file, by the file's identity (see files.only_writer): a second
    run refuses at once, whether it names the file by the same path, a symlink or a hard link."""
    output.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as held_lock:
        try:
            held_lock.enter_context(files.only_writer(output))
        except files.Held as held:
            raise Busy(
                f"{output} is being written by another run (pid {held.holder}); "
                "wait for it, or write to another --output"
            ) from None
        except OSError as exc:  # a directory, a FIFO, no permission: said, never a traceback
            raise OutputError(f"{output}: cannot be written ({exc.strerror or exc})") from exc
        yield


@contextlib.contextmanager
def signals_stop() -> Iterator[threading.Event]:
    """The scope of a run's calls: nothing they start outlives it (process.guarded), and
    SIGINT or SIGTERM stops it (see _signals)."""
    with process.guarded(lambda line: print(line, file=sys.stderr)), _signals() as stop:
        yield stop


@contextlib.contextmanager
def _signals() -> Iterator[threading.Event]:
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
        raise Stopped(
            "stopped by " + ("SIGTERM" if terminated else "Ctrl-C") + ": no new call started, "
            "calls in flight were ended",
            exitcodes.TERMINATED if terminated else exitcodes.INTERRUPTED,
        )


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


def _run_all(
    request: RunRequest,
    pending: list[tuple[dict[str, Any], int, str]],
    store: Store,
    budget: Budget,
    summary: RunSummary,
    progress: Progress,
    stop: threading.Event,
) -> None:
    lock = threading.Lock()

    def work(task: tuple[dict[str, Any], int, str]) -> None:
        case, trial, prompt = task
        row, failed = _one_call(request, case, trial, prompt, budget, stop)
        if row is None:  # nothing more may start: the budget, the cap, or a stop
            return
        store.append(row)
        budget.row_written()
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


def _one_call(
    request: RunRequest, case: dict[str, Any], trial: int, prompt: str, budget: Budget, stop: threading.Event
) -> tuple[dict[str, Any] | None, int]:
    started = time.monotonic()
    cost: float | None
    if request.cache is not None:  # a hit: the answer as first paid for, charged nothing now
        from .cache import cached_row

        row, digest = cached_row(request.cache, request.runner, request.condition, case["id"], trial, prompt)
        if row is not None:
            held = budget.reserve(stop, cached=True)  # FREE: a hit reserves nothing and is charged nothing
            if held is not None:
                budget.release(held)
            return row, 0
    if request.runner.builtin:
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


def call_with_retries(
    request: CallPolicy, prompt: str, budget: Budget, stop: threading.Event
) -> tuple[tuple[str, Any, float | None], int] | None:
    """A response, None when nothing more may start, or RunnerFailed after the last retry.

    Every reservation ends in exactly one of record, charge or release: a call
    that started and did not report its cost readably is charged what it held.
    """
    runner = request.runner
    last = ""
    for attempt in range(request.retries + 1):
        if attempt and stop.wait(min(request.backoff * 2 ** (attempt - 1), 30.0)):
            return None
        held = budget.reserve(stop)
        if held is None:
            return None
        ending, cost = "charge", None  # what ends the reservation, unless the call says otherwise
        try:
            argv, stdin_text = runner.invocation(prompt, held.told)
            outcome = process.call(
                argv,
                stdin_text=stdin_text,
                timeout=request.timeout,
                max_output=request.max_output_bytes,
                stop=stop,
            )
            if not outcome.started:
                ending = "release"
                if outcome.ended == "unsent":  # no retry can send it
                    raise RunnerFailed(f"runner {runner.name!r}: {outcome.err}")
                last = _failure(outcome, request)
                continue
            if outcome.ended == "stop":
                return None
            if outcome.code != 0:
                last = _failure(outcome, request)
                cost = _reported_cost(outcome.out, runner.response_format)
                ending = "charge" if cost is None else "record"  # a failure that says what it cost
                continue
            if outcome.out_not_utf8_at is not None:  # the reference's strict decoding raises here
                last = f"output is not UTF-8 (byte {outcome.out_not_utf8_at + 1} of stdout)\n{_tail(outcome.out)}"
                continue  # charged its reservation: the CLI may have spent it
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
            ending = "record"
            return (text, usage, cost), attempt
        finally:
            if ending == "record":
                budget.record(held, cost)
            elif ending == "release":
                budget.release(held)
            else:
                budget.charge(held)
    raise RunnerFailed(
        f"runner {runner.name!r} failed after {request.retries + 1} attempts (command: {runner.shown()}): {last}"
    )


def _reported_cost(output: str, response_format: str) -> float | None:
    """The cost a failed call still reported (claude prints it with is_error), else None."""
    try:
        return parse(output, response_format)[2]
    except ResponseUnreadable:
        return None


def _failure(outcome: process.Outcome, request: CallPolicy) -> str:
    if outcome.ended == "timeout":
        what = f"timed out after {request.timeout} s (its process group was ended)"
    elif outcome.ended == "output":
        what = f"printed more than {request.max_output_bytes:,} bytes (--max-output-bytes); it was ended"
    else:
        what = f"exit code {outcome.code}"
    tail = outcome.err or outcome.out
    return what + (f"; last output:\n{_tail(tail)}" if tail.strip() else "")


TAIL_CHARS = 4000  # what a message (and a void row) keeps of a CLI's output


def _tail(text: str, lines: int = 12) -> str:
    """The last lines of a CLI's output, cut to a few kB: a 16 MiB line must not be stored
    in every row it voids. What was cut is said, with the whole output's size."""
    tail = "\n".join(text.strip().splitlines()[-lines:])
    if len(tail) <= TAIL_CHARS:
        return tail
    size = len(text.encode("utf-8", "surrogatepass"))
    return f"[output of {size:,} bytes; its last {TAIL_CHARS:,} characters follow] {tail[-TAIL_CHARS:]}"
