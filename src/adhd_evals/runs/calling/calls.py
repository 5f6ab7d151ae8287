"""Model calls, one driver for `run` and `judge`: the budget, the pool, retries, signals, the
output lock and progress.

Each command keeps what is its own: its request type, the tasks it builds, the work one task
does and the row it writes. Everything between (money and processes) is here, once:
- a call starts only with its share of the budget reserved; a runner with a
  `budget_flag` is told at most that share, so what calls may spend never sums
  past `--budget-usd`;
- a stop (a fatal failure, the budget, Ctrl-C, SIGTERM) starts nothing new and
  ends in-flight calls with their process groups (see process.py);
- one writer per output file (an advisory lock naming the holder's pid).

A command calls `only_writer(output)`, opens its rows (`Store`), builds its tasks, then
`with open_session(request, store, scope) as session:` and `drive(tasks, work, session)`.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TextIO, TypeVar

from ... import exitcodes, files
from ...errors import Busy, OutputError, RunnerFailed, Stopped, UsageError
from ...text import plural, usd
from . import process
from .config import Runner
from .responses import ResponseUnreadable, parse
from .store import Ledger, Store
from .traces import Trace
from .traces import read as read_trace


class CallPolicy(Protocol):
    """What the driver reads of a command's request: the fields a RunRequest and a
    JudgeRequest both have. Each command keeps its own request type."""

    @property
    def runner(self) -> Runner: ...
    @property
    def jobs(self) -> int: ...
    @property
    def retries(self) -> int: ...
    @property
    def backoff(self) -> float: ...
    @property
    def timeout(self) -> float | None: ...
    @property
    def max_output_bytes(self) -> int: ...
    @property
    def budget_usd(self) -> float: ...
    @property
    def allow_unmetered(self) -> bool: ...
    @property
    def max_calls(self) -> int | None: ...
    @property
    def assume_call_usd(self) -> float | None: ...  # None: the runner config's, if it has one


class Unmetered(RunnerFailed):
    """A CLI reported no cost while the run is metered: a configuration problem, always fatal."""


# `run` checks its counts, --trials with them, in these words before check_limits runs (the
# words run_evals.py users know); a command without --trials (judge) hears only of its own.
COUNTS = "--trials and --jobs must be at least 1, --retries at least 0"
CALL_COUNTS = "--jobs must be at least 1, --retries at least 0"


def _finite(value: float | None, *, positive: bool) -> bool:
    return value is not None and math.isfinite(value) and (value > 0 if positive else value >= 0)


def check_amounts(policy: CallPolicy) -> None:
    """The amounts a command's calls are given: money and seconds."""
    if not _finite(policy.budget_usd, positive=True):
        raise UsageError("--budget-usd must be a number greater than 0")
    if not _finite(policy.backoff, positive=False):
        raise UsageError("--backoff must be a number of seconds, 0 or more")
    if policy.timeout is not None and not _finite(policy.timeout, positive=True):
        raise UsageError("--timeout must be a number of seconds greater than 0")


def check_limits(policy: CallPolicy) -> None:
    """The counts and caps of a command's calls, and whether its runner can be budgeted."""
    if policy.jobs < 1 or policy.retries < 0:
        raise UsageError(CALL_COUNTS)
    if policy.max_output_bytes < 1 or (policy.max_calls is not None and policy.max_calls < 1):
        raise UsageError("--max-output-bytes and --max-calls must be at least 1")
    if policy.max_output_bytes > process.MAX_OUTPUT_LIMIT:  # it is read into memory whole
        raise UsageError(f"--max-output-bytes must be at most {process.MAX_OUTPUT_LIMIT:,} (1 GiB)")
    floor(policy)
    if not policy.runner.metered and not policy.allow_unmetered:
        raise UsageError(
            f"the {policy.runner.response_format!r} response format never reports dollar "
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


def floor(policy: CallPolicy) -> float | None:
    """The least a call without a budget flag reserves: --assume-call-usd, else the runner
    config's `assume_call_usd`; refused when missing where calls would share the budget blind."""
    runner = policy.runner
    given = policy.assume_call_usd
    value = given if given is not None else runner.assume_call_usd
    if value is not None and not _finite(value, positive=True):
        raise UsageError("--assume-call-usd must be a number of dollars greater than 0")
    blind = runner.metered and not runner.budget_flag and not runner.builtin
    if value is None and blind and policy.jobs > 1:
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
    among the calls that may still start, and the CLI is told that share; no
    call starts with less left than the dearest call so far has cost (a CLI that
    ignores a small share is not given one).
    Without one, a call reserves the dearest cost seen so far and at least the
    floor (`--assume-call-usd`); with no floor (allowed at --jobs 1 only) a call
    runs alone and holds all that is left. Either way calls start one at a time
    and widen by one call for each call that came back within what it held (up to
    `--jobs`): a CLI that ignores its flag, or costs more than the floor, is caught
    on its first call, and rising costs on a few, not on eight at once. A call that costs more than it held has broken the accounting:
    nothing more starts, and `overspent` says who. A call whose cost stays unknown
    is charged what can be known (`unknown_cost`), never more than it held.
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
        self.window = 1  # calls that may be in flight: one more per call that came back within its hold
        self.planned = 1  # the calls the run plans: the budget's even share is limit / planned
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
            if self.in_flight >= self.window or (self.dearest or 0.0) > free:
                return (
                    None  # widened one call per call within its share; never less left than a call has cost
                )
            told = free / (self.jobs - self.in_flight)
            return (told if self.metered else 0.0), told
        if not self.metered:
            return 0.0, None  # nothing to count: --max-calls bounds the run
        if self.in_flight >= self.window:
            return None  # widened only by calls that came back within what they held
        if self.floor is None:
            return (free, None) if self.in_flight == 0 else None
        need = max(self.dearest or 0.0, self.floor)
        return (need, None) if need <= free else None

    def record(self, held: Reservation, cost: float | None, *, on_row: bool = True) -> None:
        """The call reported its cost (None: an unmetered run, which counts calls instead).
        `on_row=False`: a failed attempt's, which no row will carry, so the ledger keeps it
        for the runs that resume this one."""
        with self._changed:
            self._end(held)
            if cost is not None:
                self.spent += cost
                self.dearest = max(self.dearest or 0.0, cost)
                if self.metered and cost > held.usd + 1e-9 and held is not FREE:
                    self.overspent = self.overspent or self._overspend(cost, held)
                else:
                    self.window = min(self.window + 1, self.jobs)
        if held.ticket is None:
            return
        if not on_row:
            self._settle(held.ticket, cost or 0.0)
        elif self.confirm_rows:  # settled once its row is written: a kill in between overcounts
            self._pending().append((held.ticket, cost or 0.0))
        else:
            self._settle(held.ticket, 0.0)

    def row_written(self) -> None:
        """The calling thread's row is on disk: its reservations are settled (the cost is on it)."""
        tickets = self._pending()
        while tickets:
            self._settle(tickets.pop()[0], 0.0)

    def row_lost(self) -> None:
        """The calling thread's row was not written (a failure after its call was paid): its
        reservations are settled charging what the calls cost, so the ledger still counts it."""
        tickets = self._pending()
        while tickets:
            self._settle(*tickets.pop())

    def charge(self, held: Reservation) -> None:
        """The call started and its cost is unknown: it is charged what can be known of it."""
        with self._changed:
            self._end(held)
            usd = self.unknown_cost(held)
            self.spent += usd
            self.charged += usd
            self.charged_calls += usd > 0
        if held.ticket is not None:
            self._settle(held.ticket, usd)

    def unknown_cost(self, held: Reservation) -> float:
        """What a call whose cost stayed unknown is charged: the dearest cost this runner was
        seen to cost, else the floor (`--assume-call-usd`), else the budget's even share per
        planned call; never more than it held. Not the whole of what it held: a flag handing
        a lone call all that is left must not make one failure end the run (issue 35)."""
        if self.dearest is not None:
            known = self.dearest
        elif self.floor is not None:
            known = self.floor
        else:
            known = self.limit / max(self.planned, 1)
        return min(known, held.usd)

    def release(self, held: Reservation) -> None:
        """The call never started: nothing can have been spent."""
        with self._changed:
            self._end(held)
            if held is not FREE:  # FREE (a cached answer) was never counted as a call
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

    def _pending(self) -> list[tuple[str, float]]:
        if not hasattr(self._unwritten, "tickets"):
            self._unwritten.tickets = []
        tickets: list[tuple[str, float]] = self._unwritten.tickets
        return tickets

    def _overspend(self, cost: float, held: Reservation) -> str:
        what = (
            f"it was told {usd(held.told)} through its budget flag"
            if held.told is not None
            else f"{usd(held.usd)} was reserved for it (the dearest call so far, at least --assume-call-usd)"
        )
        return (
            f"runner {self.runner!r} spent {usd(cost)} on one call where {what}; no call started after "
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


def open_budget(policy: CallPolicy, store: Store, ledger: Ledger, scope: tuple[str, str]) -> Budget:
    """The budget of one (condition, runner) — of one runner, any condition, when the scope's
    condition is "" (a judge's) — from what its rows recorded and its ledger charged."""
    runner = policy.runner
    mine = [key for key in store.spent if key == scope or (scope[0] == "" and key[1] == scope[1])]
    budget = Budget(
        policy.budget_usd,
        sum(store.spent[key] for key in mine),
        policy.jobs,
        bool(runner.budget_flag),
        policy.max_calls if policy.allow_unmetered else None,
        floor=floor(policy),
        metered=not policy.allow_unmetered or runner.metered,
        runner=runner.name,
        ledger=ledger,
        scope=scope,
        charged=ledger.charged.get(scope, 0.0),
        confirm_rows=True,
    )
    budget.dearest = max((store.dearest.get(key, 0.0) for key in mine), default=None)  # earlier runs' too
    return budget


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
                    f"failures {self.failures}  {usd(spent)}  {rate:.1f}/s "
                )
                if self.done == self.total:
                    self.stream.write("\n")
            else:
                self.stream.write(f"{label} ({self.done}/{self.total}, {usd(spent)})\n")
            self.stream.flush()


def charged_line(amount: float, calls: int) -> str:
    """The summary's line for calls whose cost stayed unknown ("" when there were none)."""
    if not calls:
        return ""
    return (
        f"Of that, {usd(amount)} for {plural(calls, 'call')} that failed, timed out or printed unreadable "
        "output after starting: charged the reservation: cost unknown."
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


def pool(jobs: int, tasks: Sequence[Task], work: Callable[[Task], object], stop: threading.Event) -> None:
    """Run `work` over the tasks on `jobs` threads, each taking the next task when it is free;
    the first failure sets the stop before anything else can start, and is raised once every
    thread is done. The main thread only waits, free for signals: an executor's future per
    task, scanned whole five times a second, cost a 10,000-task run of cache hits more CPU
    than its tasks (the scan holds the GIL the workers need)."""
    failures: list[BaseException] = []
    taken = itertools.count()
    taking = threading.Lock()

    def worker() -> None:
        while not stop.is_set():
            with taking:
                at = next(taken)
            if at >= len(tasks):
                return
            try:
                work(tasks[at])
            except BaseException as exc:
                stop.set()
                failures.append(exc)
                return

    threads = [threading.Thread(target=worker) for _ in range(min(jobs, len(tasks)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        while thread.is_alive():
            thread.join(process.POLL_S * 4)
    if failures:
        raise failures[0]


class Answer(NamedTuple):
    """A model CLI's answer to one prompt, and how many attempts failed before it."""

    text: str
    usage: Any
    cost: float | None
    failed_attempts: int
    trace: Trace | None = None  # the tool calls and files, when the response format records them


class Done(NamedTuple):
    """What one task's work made: the row to write, its progress line, its failed attempts."""

    row: dict[str, Any]
    label: str
    failed_attempts: int = 0


@dataclass
class Driven:
    """What `drive` did: rows written, failed attempts, and why it stopped short (if it did)."""

    written: int = 0
    failed_attempts: int = 0
    stopped_for_budget: bool = False
    stopped_for_calls: bool = False


@dataclass
class Session:
    """One command's calls: its request's policy, its rows, the budget its workers share, the
    stop (set by a failure, Ctrl-C or SIGTERM) and where progress goes."""

    policy: CallPolicy
    store: Store
    budget: Budget
    stop: threading.Event
    stream: TextIO

    def call(self, prompt: str) -> Answer | None:
        """The CLI's answer, None when nothing more may start, or RunnerFailed after the last
        retry (Unmetered at once: no retry makes a CLI report its cost).

        Every reservation ends in exactly one of record, charge or release: a call
        that started and did not report its cost readably is charged what it held.
        """
        policy, budget = self.policy, self.budget
        runner = policy.runner
        last = ""
        for attempt in range(policy.retries + 1):
            if attempt and self.stop.wait(min(policy.backoff * 2 ** (attempt - 1), 30.0)):
                return None
            held = budget.reserve(self.stop)
            if held is None:
                return None
            ending, cost = "charge", None  # what ends the reservation, unless the call says otherwise
            try:
                argv, stdin_text = runner.invocation(prompt, held.told)
                outcome = process.call(
                    argv,
                    stdin_text=stdin_text,
                    timeout=policy.timeout,
                    max_output=policy.max_output_bytes,
                    stop=self.stop,
                )
                if not outcome.started:
                    ending = "release"
                    if outcome.ended == "unsent":  # no retry can send it
                        raise RunnerFailed(f"runner {runner.name!r}: {outcome.err}")
                    last = _failure(outcome, policy)
                    continue
                if outcome.ended == "stop":
                    return None
                if outcome.code != 0:
                    last = _failure(outcome, policy)
                    cost = _reported_cost(outcome.out, runner.response_format)
                    ending = "charge" if cost is None else "failed"  # a failure that says what it cost
                    continue
                if outcome.out_not_utf8_at is not None:  # the reference's strict decoding raises here
                    last = f"output is not UTF-8 (byte {outcome.out_not_utf8_at + 1} of stdout)\n{_tail(outcome.out)}"
                    continue  # charged its reservation: the CLI may have spent it
                try:
                    text, usage, cost = parse(outcome.out, runner.response_format)
                except ResponseUnreadable as exc:
                    last = f"{exc}\n{_tail(outcome.out)}"
                    continue
                if cost is None and not policy.allow_unmetered:
                    raise Unmetered(
                        f"runner {runner.name!r} ({runner.shown()}) did not report dollar cost; rerun with "
                        "--allow-unmetered only when the provider has a separate hard spending cap"
                    )
                ending = "record"
                return Answer(text, usage, cost, attempt, read_trace(outcome.out, runner.response_format))
            finally:
                if ending in ("record", "failed"):
                    budget.record(held, cost, on_row=ending == "record")
                elif ending == "release":
                    budget.release(held)
                else:
                    budget.charge(held)
        raise RunnerFailed(
            f"runner {runner.name!r} failed after {policy.retries + 1} attempts (command: {runner.shown()}): {last}"
        )

    def hit(self) -> None:
        """A cached answer: FREE, reserved and released as any call's reservation is."""
        held = self.budget.reserve(self.stop, cached=True)
        if held is not None:
            self.budget.release(held)

    def write(self, row: dict[str, Any]) -> None:
        """The row on disk, and then the reservations of the calls that made it settled."""
        self.store.append(row)
        self.budget.row_written()


@contextlib.contextmanager
def open_session(
    policy: CallPolicy, store: Store, scope: tuple[str, str], stream: TextIO | None = None
) -> Iterator[Session]:
    """The calls of one command into `store` (opened under `only_writer`): its ledger and the
    budget of `scope` opened, nothing started inside outliving it, SIGINT and SIGTERM a
    stop (Stopped, 130 or 143, on the way out), then Stopped (the budget's code) for a call
    that cost more than it held."""
    ledger = Ledger.beside(store.path, process.owner())
    try:
        budget = open_budget(policy, store, ledger, scope)
        with signals_stop() as stop:
            yield Session(policy, store, budget, stop, stream or sys.stderr)
        budget.raise_if_overspent()
    finally:
        ledger.close()


def drive(tasks: Sequence[Task], work: Callable[[Task], Done | None], session: Session) -> Driven:
    """`work` over the tasks on the policy's `jobs` threads, each Done row written as it comes;
    a task whose work returns None started nothing (the budget, the cap or a stop). The first
    exception stops the rest (nothing new starts) and is raised once every thread is done."""
    progress = Progress(len(tasks), session.stream)
    session.budget.planned = len(tasks)
    driven = Driven()
    lock = threading.Lock()

    def one(task: Task) -> None:
        try:
            done = work(task)
            if done is None:
                return
            session.write(done.row)
        except BaseException:  # whatever failed after a call was paid, the ledger keeps its cost
            session.budget.row_lost()
            raise
        with lock:
            driven.written += 1
            driven.failed_attempts += done.failed_attempts
        progress.step(done.label, session.budget.spent, failed_attempts=done.failed_attempts)

    try:
        pool(session.policy.jobs, tasks, one, session.stop)
    finally:
        incomplete = driven.written < len(tasks)
        driven.stopped_for_budget = incomplete and session.budget.exhausted()
        driven.stopped_for_calls = incomplete and session.budget.capped()
    return driven


def _reported_cost(output: str, response_format: str) -> float | None:
    """The cost a failed call still reported (claude prints it with is_error), else None."""
    try:
        return parse(output, response_format)[2]
    except ResponseUnreadable:
        return None


def _failure(outcome: process.Outcome, policy: CallPolicy) -> str:
    if outcome.ended == "timeout":
        what = f"timed out after {policy.timeout} s (its process group was ended)"
    elif outcome.ended == "output":
        what = f"printed more than {policy.max_output_bytes:,} bytes (--max-output-bytes); it was ended"
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
