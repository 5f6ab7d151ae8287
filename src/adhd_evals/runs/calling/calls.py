"""Model calls, one driver for `run` and `judge`: retries, the session of a command's calls, and
the rows the workers write (what a command asks of its calls and the output lock: policy.py).

Each command keeps what is its own: its request type, the tasks it builds, the work one task
does and the row it writes. Everything between (money and processes) is in calling/, once:
- a call starts only with its share of the budget reserved (budget.py);
- a stop (a fatal failure, the budget, Ctrl-C, SIGTERM) starts nothing new and
  ends in-flight calls with their process groups (workers.py, process.py);
- one writer per output file (an advisory lock naming the holder's pid; policy.py).

A command calls `policy.only_writer(output)`, opens its rows (`Store`), builds its tasks, then
`with open_session(request, store, scope) as session:` and `drive(tasks, work, session)`;
with no task to call, `idle.budget` instead (no call machinery imported).
"""

# No `from __future__ import annotations`: a NamedTuple's (and a TypedDict's) string annotations are
# compiled one by one into ForwardRefs on every run's start-up (docs/startup.md); the few names
# only type checkers import stay quoted.
import contextlib
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TextIO

from ...errors import RunnerFailed
from . import process
from .budget import Budget, Reservation, open_budget
from .policy import CallPolicy
from .responses import ResponseUnreadable, parse
from .store import Ledger, Store
from .traces import read as read_trace
from .watchdog import owner
from .workers import Progress, Task, pool, signals_stop

if TYPE_CHECKING:
    from .traces import Trace


class Unmetered(RunnerFailed):
    """A CLI reported no cost while the run is metered: a configuration problem, always fatal."""


class Answer(NamedTuple):
    """A model CLI's answer to one prompt, and how many attempts failed before it."""

    text: str
    usage: Any
    cost: float | None
    failed_attempts: int
    trace: "Trace | None" = None  # the tool calls and files, when the response format records them


class Done(NamedTuple):
    """What one task's work made: the row to write, its progress line, its failed attempts."""

    row: Mapping[str, object]
    label: str
    failed_attempts: int = 0


class Driven:
    """What `drive` did: rows written, failed attempts, and why it stopped short (if it did).
    A plain class, not a dataclass: dataclasses imports inspect, about 8 ms of run's and judge's start-up."""

    def __init__(self) -> None:
        self.written = 0
        self.failed_attempts = 0
        self.stopped_for_budget = False
        self.stopped_for_calls = False


# How an attempt's reservation ends: recorded with the cost on its row, recorded with the
# cost a failed call reported ("failed"), charged (cost unknown) or released (nothing ran).
Ending = Literal["record", "failed", "charge", "release"]


class _Tried(NamedTuple):
    """One attempt's end: how its reservation ends, its cost, and its answer or why it failed
    (failure None and no answer: a stop); `unsent` when no retry could send it."""

    ending: Ending
    cost: float | None = None
    answer: Answer | None = None
    failure: str | None = None
    unsent: bool = False


class Session:
    """One command's calls: its request's policy, its rows, the budget its workers share, the
    stop (set by a failure, Ctrl-C or SIGTERM) and where progress goes. A plain class, not a
    dataclass: dataclasses imports inspect, about 8 ms of run's and judge's start-up."""

    def __init__(
        self, policy: CallPolicy, store: Store, budget: Budget, stop: threading.Event, stream: TextIO
    ) -> None:
        self.policy = policy
        self.store = store
        self.budget = budget
        self.stop = stop
        self.stream = stream

    def call(self, prompt: str) -> Answer | None:
        """The CLI's answer, None when nothing more may start, or RunnerFailed after the last
        retry (Unmetered at once: no retry makes a CLI report its cost).

        Every reservation ends in exactly one of record, charge or release: a call
        that started and did not report its cost readably is charged what it held.
        """
        policy = self.policy
        last = ""
        for attempt in range(policy.retries + 1):
            if attempt and self.stop.wait(min(policy.backoff * 2 ** (attempt - 1), 30.0)):
                return None
            held = self.budget.reserve(self.stop)
            if held is None:
                return None
            tried = _Tried("charge")  # what ends the reservation if the attempt raises
            try:
                tried = self._attempt(prompt, held, attempt)
            finally:
                self._settle(held, tried)
            if tried.unsent:  # no retry can send it
                raise RunnerFailed(f"runner {policy.runner.name!r}: {tried.failure}")
            if tried.failure is None:
                return tried.answer  # None: stopped
            last = tried.failure
        raise RunnerFailed(
            f"runner {policy.runner.name!r} failed after {policy.retries + 1} attempts "
            f"(command: {policy.runner.shown()}): {last}"
        )

    def _attempt(self, prompt: str, held: Reservation, attempt: int) -> _Tried:
        """One attempt of a call whose reservation is held: how it ends, and what it gave."""
        policy = self.policy
        argv, stdin_text = policy.runner.invocation(prompt, held.told)
        outcome = process.call(
            argv,
            stdin_text=stdin_text,
            timeout=policy.timeout,
            max_output=policy.max_output_bytes,
            stop=self.stop,
        )
        if not outcome.started:  # no process ran: nothing can have been spent
            if outcome.ended == "unsent":
                return _Tried("release", failure=outcome.err, unsent=True)
            return _Tried("release", failure=_failure(outcome, policy))
        if outcome.ended == "stop":
            return _Tried("charge")
        if outcome.code != 0:
            cost = _reported_cost(outcome.out, policy.runner.response_format)
            # a failure that says what it cost is recorded; one that does not is charged
            return _Tried("charge" if cost is None else "failed", cost, failure=_failure(outcome, policy))
        return self._answer(outcome, attempt)

    def _answer(self, outcome: process.Outcome, attempt: int) -> _Tried:
        """A call that exited 0: its answer read, or why it cannot be (charged its reservation:
        the CLI may have spent it)."""
        policy, runner = self.policy, self.policy.runner
        if outcome.out_not_utf8_at is not None:  # the reference's strict decoding raises here
            return _Tried(
                "charge",
                failure=f"output is not UTF-8 (byte {outcome.out_not_utf8_at + 1} of stdout)\n{_tail(outcome.out)}",
            )
        try:
            text, usage, cost = parse(outcome.out, runner.response_format)
        except ResponseUnreadable as exc:
            return _Tried("charge", failure=f"{exc}\n{_tail(outcome.out)}")
        if cost is None and not policy.allow_unmetered:
            raise Unmetered(
                f"runner {runner.name!r} ({runner.shown()}) did not report dollar cost; rerun with "
                "--allow-unmetered only when the provider has a separate hard spending cap"
            )
        trace = read_trace(outcome.out, runner.response_format)
        return _Tried("record", cost, Answer(text, usage, cost, attempt, trace))

    def _settle(self, held: Reservation, tried: _Tried) -> None:
        """End the attempt's reservation the way the attempt said."""
        if tried.ending in ("record", "failed"):  # "failed": its cost is on no row
            self.budget.record(held, tried.cost, on_row=tried.ending == "record")
        elif tried.ending == "release":
            self.budget.release(held)
        else:
            self.budget.charge(held)

    def hit(self) -> None:
        """A cached answer: FREE, reserved and released as any call's reservation is."""
        held = self.budget.reserve(self.stop, cached=True)
        if held is not None:
            self.budget.release(held)

    def write(self, row: Mapping[str, object]) -> None:
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
    ledger = Ledger.beside(store.path, owner())
    try:
        budget = open_budget(policy, store, ledger, scope)
        with signals_stop() as stop:
            yield Session(policy, store, budget, stop, stream or sys.stderr)
        budget.raise_if_overspent()
    finally:
        ledger.close()


def drive(
    tasks: Sequence[Task],
    work: Callable[[Task], Done | None],
    session: Session,
    *,
    ready: Callable[[Task], Done | None] | None = None,
) -> Driven:
    """`work` over the tasks on the policy's `jobs` threads, each Done row written as it comes;
    a task whose work returns None started nothing (the budget, the cap or a stop). The first
    exception stops the rest (nothing new starts) and is raised once every thread is done.
    `ready`: a task's row when it needs no call (a cached answer), else None; the leading
    tasks it answers are written first, on this thread, in their order (see _serve_ready)."""
    total = len(tasks)
    progress = Progress(total, session.stream)
    session.budget.planned = total
    driven = Driven()
    if ready is not None:
        tasks = tasks[_serve_ready(tasks, ready, session, driven, progress) :]
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
        incomplete = driven.written < total
        driven.stopped_for_budget = incomplete and session.budget.exhausted()
        driven.stopped_for_calls = incomplete and session.budget.capped()
    return driven


READY_CHUNK = 256  # rows of ready answers per write(2): whole lines, a stop seen between chunks


def _serve_ready(
    tasks: Sequence[Task],
    ready: Callable[[Task], Done | None],
    session: Session,
    driven: Driven,
    progress: Progress,
) -> int:
    """Write the rows of the leading tasks `ready` answers, a chunk of whole lines per write,
    in task order (as one job writes them); returns how many were served. It stops at the first
    task that needs a call (the pool takes it from there) or at a stop. Nothing here waits or
    spends: a thread, a lock and a write per row cost a cached run more than its answers."""
    served = 0
    while served < len(tasks) and not session.stop.is_set():
        chunk: list[Done] = []
        for task in tasks[served : served + READY_CHUNK]:
            done = ready(task)
            if done is None:
                break
            chunk.append(done)
        if chunk:
            session.store.append_all([done.row for done in chunk])
        served += len(chunk)
        driven.written += len(chunk)
        progress.steps([done.label for done in chunk], session.budget.spent)
        if len(chunk) < READY_CHUNK:
            break
    return served


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
