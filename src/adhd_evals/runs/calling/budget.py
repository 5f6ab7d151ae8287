"""The money of a command's calls: what each call reserves before it starts, and what it is then
recorded, charged or released, shared by the workers of one (condition, runner).

A call starts only with its share of the budget reserved; a runner with a `budget_flag` is told
at most that share, so what calls may spend never sums past `--budget-usd`. Reservations are
written to the ledger beside the output (store.py) before their calls start, so a run that is
killed and resumed still counts what its calls may have spent.
"""

# No `from __future__ import annotations`: a NamedTuple's (and a TypedDict's) string annotations are
# compiled one by one into ForwardRefs on every run's start-up (docs/startup.md); the few names
# only type checkers import stay quoted.
import math
import threading
from typing import NamedTuple, Protocol

from ... import exitcodes
from ...errors import Stopped, UsageError
from ...text import plural, usd
from .config import Runner
from .store import Ledger, Store
from .watchdog import POLL_S


class BudgetPolicy(Protocol):
    """What the budget reads of a command's request (policy.CallPolicy adds what a call reads)."""

    @property
    def runner(self) -> Runner: ...
    @property
    def jobs(self) -> int: ...
    @property
    def budget_usd(self) -> float: ...
    @property
    def allow_unmetered(self) -> bool: ...
    @property
    def max_calls(self) -> int | None: ...
    @property
    def assume_call_usd(self) -> float | None: ...  # None: the runner config's, if it has one


def finite(value: float | None, *, positive: bool) -> bool:
    """Whether an amount given is a number (not NaN nor infinite) above 0, or at least 0."""
    return value is not None and math.isfinite(value) and (value > 0 if positive else value >= 0)


class Reservation(NamedTuple):
    """Money held for one call: `usd` is charged when its cost stays unknown; `told` is what
    the CLI is told through its budget flag (None when it has none). A NamedTuple, not a
    dataclass: dataclasses imports inspect, about 8 ms of run's and judge's start-up."""

    usd: float
    told: float | None = None
    ticket: str | None = None  # its line in the ledger, when there is one


FREE = Reservation(0.0)  # a call that costs this run nothing (a cached answer)


def floor(policy: BudgetPolicy) -> float | None:
    """The least a call without a budget flag reserves: --assume-call-usd, else the runner
    config's `assume_call_usd`; refused when missing where calls would share the budget blind."""
    runner = policy.runner
    given = policy.assume_call_usd
    value = given if given is not None else runner.assume_call_usd
    if value is not None and not finite(value, positive=True):
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
                self._changed.wait(timeout=POLL_S)
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
        if held is FREE:  # a cached answer: never counted, nothing to wait on (its lock cost a hit)
            return
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


def open_budget(policy: BudgetPolicy, store: Store, ledger: Ledger, scope: tuple[str, str]) -> Budget:
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


def charged_line(amount: float, calls: int) -> str:
    """The summary's line for calls whose cost stayed unknown ("" when there were none)."""
    if not calls:
        return ""
    return (
        f"Of that, {usd(amount)} for {plural(calls, 'call')} that failed, timed out or printed unreadable "
        "output after starting: charged the reservation: cost unknown."
    )
