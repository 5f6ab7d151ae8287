"""runs/calling/calls.py: the one driver `run` and `judge` share, driven here by fake work functions.

Each test builds a policy of its own type, holding only the fields the driver reads (no
condition, no trials: what a judge's request lacks), so the driver is seen to need nothing
else. Calls that reach a model go to tests/fakes/fake_cli.py, a real process.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.errors import RunnerFailed, Stopped, UsageError
from adhd_evals.runs.calling import calls
from adhd_evals.runs.calling.config import Runner
from adhd_evals.runs.calling.policy import check_amounts, check_limits, only_writer
from adhd_evals.runs.calling.store import Ledger, Store

FAKE = str(Path(__file__).parent / "fakes" / "fake_cli.py")
TEXT = Runner("text", (sys.executable, FAKE), "text")  # reports no cost


@dataclass(frozen=True)
class Policy:
    """The common fields only: a judge's request has no more of them than this."""

    runner: Runner
    jobs: int = 1
    retries: int = 0
    backoff: float = 0.0
    timeout: float | None = None
    max_output_bytes: int = 1 << 20
    budget_usd: float = 1.0
    allow_unmetered: bool = False
    max_calls: int | None = None
    assume_call_usd: float | None = None


def _fake(tmp_path: Path, *flags: str) -> Runner:
    """A claude-json fake CLI that logs each call to calls.jsonl, without a budget flag."""
    command = (sys.executable, FAKE, "--format", "claude-json", "--calls", str(tmp_path / "calls.jsonl"))
    return Runner("fake", (*command, *flags), "claude-json")


def _made(tmp_path: Path) -> int:
    path = tmp_path / "calls.jsonl"
    return len(path.read_text().splitlines()) if path.exists() else 0


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@contextlib.contextmanager
def _session(tmp_path: Path, policy: Policy, stream: io.StringIO | None = None) -> Iterator[calls.Session]:
    """A session on out.jsonl, its rows file opened as a command opens it."""
    output = tmp_path / "out.jsonl"
    with (
        only_writer(output),
        contextlib.closing(Store.open(output)) as store,
        calls.open_session(policy, store, ("", policy.runner.name), stream or io.StringIO()) as session,
    ):
        yield session


def _row(task: int) -> dict[str, Any]:
    return {"case_id": f"c{task}", "trial": 1, "condition": "baseline", "runner": "fake", "cost_usd": None}


def test_a_call_that_fails_once_is_retried_and_its_row_counts_one_failed_attempt(tmp_path: Path) -> None:
    """retries=1, a CLI failing its first call (exit 3, no cost printed) then answering at $0.10.

    Working: no budget flag, floor $0.25 (--assume-call-usd), so each attempt holds
    max(dearest, 0.25) = $0.25. Attempt 1 fails without a cost: charged its $0.25.
    Attempt 2 holds $0.25 (dearest is still unset) and reports $0.10: recorded.
    Spent 0.25 + 0.10 = $0.35, of which $0.25 charged for 1 call; 2 calls made, 1 row
    written with 1 failed attempt, and the progress line says 1/1 at $0.3500.
    """
    state = tmp_path / "state"
    runner = _fake(tmp_path, "--cost", "0.10", "--fail-times", "1", "--state", str(state))
    policy = Policy(runner, retries=1, assume_call_usd=0.25)
    stream = io.StringIO()

    def work(task: int) -> calls.Done | None:
        answer = session.call(f"Q{task}")
        if answer is None:
            return None
        return calls.Done({**_row(task), "cost_usd": answer.cost}, f"task {task}", answer.failed_attempts)

    with _session(tmp_path, policy, stream) as session:
        driven = calls.drive([1], work, session)
    assert (driven.written, driven.failed_attempts) == (1, 1)
    assert not driven.stopped_for_budget and not driven.stopped_for_calls
    assert _made(tmp_path) == 2 and session.budget.calls == 2
    assert session.budget.spent == pytest.approx(0.35)
    assert session.budget.charged == pytest.approx(0.25) and session.budget.charged_calls == 1
    assert [r["cost_usd"] for r in _rows(tmp_path / "out.jsonl")] == [0.10]
    assert stream.getvalue() == "task 1 (1/1, $0.3500)\n"


def test_a_failed_attempt_that_reported_its_cost_still_counts_when_the_run_resumes(tmp_path: Path) -> None:
    """retries=1, a CLI whose first call fails (exit 3) printing what it cost, $0.20, as claude
    prints is_error with total_cost_usd; the retry answers at $0.10.

    Working: attempt 1 holds max(dearest unset, floor 0.25) = $0.25 and reports $0.20: spent
    0.20, dearest 0.20. Attempt 2 holds max(0.20, 0.25) = $0.25, reports $0.10: spent 0.30.
    The row carries $0.10 only; the $0.20 is on no row, so the ledger must keep it: its
    ticket settles at 0.20 (the answered call's at 0, its cost being on the row). A run that
    resumes this file counts 0.10 (rows) + 0.20 (ledger) = $0.30 spent, not $0.10.
    """
    state = tmp_path / "state"
    runner = _fake(
        tmp_path, "--cost", "0.10", "--fail-times", "1", "--state", str(state), "--fail-cost", "0.20"
    )
    policy = Policy(runner, retries=1, assume_call_usd=0.25)

    def work(task: int) -> calls.Done | None:
        answer = session.call(f"Q{task}")
        if answer is None:
            return None
        return calls.Done({**_row(task), "cost_usd": answer.cost}, f"task {task}", answer.failed_attempts)

    with _session(tmp_path, policy) as session:
        calls.drive([1], work, session)
    assert _made(tmp_path) == 2 and session.budget.spent == pytest.approx(0.30)
    assert [r["cost_usd"] for r in _rows(tmp_path / "out.jsonl")] == [0.10]
    with _session(tmp_path, policy) as resumed:
        assert resumed.budget.spent == pytest.approx(0.30)


def test_a_call_that_fails_past_its_retries_raises_and_stops_the_rest(tmp_path: Path) -> None:
    """retries=1, a CLI failing its first 5 calls: task 1 makes 2 attempts (1 + 1 retry), both
    fail, RunnerFailed is raised by drive; tasks 2 and 3 (jobs=1) never call: 2 calls in all."""
    state = tmp_path / "state"
    runner = _fake(tmp_path, "--cost", "0.10", "--fail-times", "5", "--state", str(state))
    policy = Policy(runner, retries=1, assume_call_usd=0.25)

    def work(task: int) -> calls.Done | None:
        answer = session.call(f"Q{task}")
        return None if answer is None else calls.Done(_row(task), f"task {task}")

    with (
        pytest.raises(RunnerFailed, match="failed after 2 attempts"),
        _session(tmp_path, policy) as session,
    ):
        calls.drive([1, 2, 3], work, session)
    assert _made(tmp_path) == 2 and _rows(tmp_path / "out.jsonl") == []


def test_the_budget_stops_the_drive_after_the_calls_it_can_hold(tmp_path: Path) -> None:
    """$1.00, no budget flag, floor $0.40, each call costs $0.40, 5 tasks, jobs=1.

    Working: call 1 holds 0.40 of 1.00 free; spent 0.40. Call 2 holds 0.40 of 0.60; spent
    0.80. Call 3 needs max(dearest 0.40, floor 0.40) = 0.40 > 0.20 free and nothing is in
    flight: no reservation, its work returns None, and so do tasks 4 and 5. 2 rows written,
    2 calls made, stopped for the budget (not for a call cap: there is none).
    """
    runner = _fake(tmp_path, "--cost", "0.40")
    policy = Policy(runner, budget_usd=1.0, assume_call_usd=0.40)

    def work(task: int) -> calls.Done | None:
        answer = session.call(f"Q{task}")
        return None if answer is None else calls.Done(_row(task), f"task {task}")

    with _session(tmp_path, policy) as session:
        driven = calls.drive([1, 2, 3, 4, 5], work, session)
    assert driven.written == 2 and _made(tmp_path) == 2 and session.budget.calls == 2
    assert driven.stopped_for_budget and not driven.stopped_for_calls
    assert session.budget.spent == pytest.approx(0.80)
    assert [r["case_id"] for r in _rows(tmp_path / "out.jsonl")] == ["c1", "c2"]


def test_a_call_cap_stops_the_drive_after_that_many_reservations(tmp_path: Path) -> None:
    """Unmetered (--allow-unmetered), --max-calls 3, 5 tasks whose work only reserves and
    records (no process). Working: reservations 1-3 hold $0 each (nothing to count); the
    4th finds calls == max_calls: None, and so the 5th. 3 rows, stopped for the cap, not
    for the budget (an unmetered run's money never runs out)."""
    policy = Policy(TEXT, allow_unmetered=True, max_calls=3)
    worked: list[int] = []

    def work(task: int) -> calls.Done | None:
        worked.append(task)
        held = session.budget.reserve(session.stop)
        if held is None:
            return None
        session.budget.record(held, None)
        return calls.Done(_row(task), f"task {task}")

    with _session(tmp_path, policy) as session:
        driven = calls.drive([1, 2, 3, 4, 5], work, session)
    assert worked == [1, 2, 3, 4, 5]  # each asked; the last two were refused
    assert driven.written == 3 and session.budget.calls == 3
    assert driven.stopped_for_calls and not driven.stopped_for_budget


def test_a_cache_hit_is_no_call_and_leaves_the_call_cap_whole(tmp_path: Path) -> None:
    """Unmetered, --max-calls 1, 4 tasks: tasks 1 and 2 are cache hits (`session.hit()`), 3 and
    4 reserve and record. Working: a hit reserves FREE and counts no call, so the count is 0
    after both; task 3's reservation makes it 1; task 4 finds 1 == max_calls and gets None.
    3 rows (2 hits, 1 call), 1 call, stopped for the cap. (Releasing FREE used to take one
    off the count per hit: -2 calls after two hits, then 3 calls past a cap of 1.)"""
    policy = Policy(TEXT, allow_unmetered=True, max_calls=1)

    def work(task: int) -> calls.Done | None:
        if task <= 2:
            session.hit()
            return calls.Done(_row(task), f"task {task}")
        held = session.budget.reserve(session.stop)
        if held is None:
            return None
        session.budget.record(held, None)
        return calls.Done(_row(task), f"task {task}")

    with _session(tmp_path, policy) as session:
        driven = calls.drive([1, 2, 3, 4], work, session)
    assert session.budget.calls == 1 and driven.written == 3 and driven.stopped_for_calls


def test_an_exception_in_one_task_stops_the_rest_and_is_raised(tmp_path: Path) -> None:
    """jobs=1, tasks 1-4, task 2's work raises: task 1's row is written, the stop is set
    before task 3 starts, tasks 3 and 4 are never worked, and drive raises task 2's error."""
    worked: list[int] = []

    def work(task: int) -> calls.Done | None:
        worked.append(task)
        if task == 2:
            raise ValueError("task 2 broke")
        return calls.Done(_row(task), f"task {task}")

    with (
        pytest.raises(ValueError, match="task 2 broke"),
        _session(tmp_path, Policy(TEXT, allow_unmetered=True)) as session,
    ):
        calls.drive([1, 2, 3, 4], work, session)
    assert worked == [1, 2] and session.stop.is_set()
    assert [r["case_id"] for r in _rows(tmp_path / "out.jsonl")] == ["c1"]


def test_an_exception_on_one_worker_stops_what_the_other_has_not_started(tmp_path: Path) -> None:
    """jobs=2, tasks 1-6: task 1 waits until task 2 has raised, then returns its row. Working:
    the two workers take tasks 1 and 2; task 2's error sets the stop; the worker freed by it
    and the one freed by task 1 find the stop set, so tasks 3-6 are never worked. 1 row."""
    worked: list[int] = []
    raised = threading.Event()

    def work(task: int) -> calls.Done | None:
        worked.append(task)
        if task == 2:
            raised.set()
            raise ValueError("task 2 broke")
        if task == 1:
            assert raised.wait(10) and session.stop.wait(10)
        return calls.Done(_row(task), f"task {task}")

    policy = Policy(TEXT, jobs=2, allow_unmetered=True)
    with pytest.raises(ValueError, match="task 2 broke"), _session(tmp_path, policy) as session:
        calls.drive([1, 2, 3, 4, 5, 6], work, session)
    assert sorted(worked) == [1, 2]
    assert [r["case_id"] for r in _rows(tmp_path / "out.jsonl")] == ["c1"]


def test_work_that_returns_none_writes_nothing_and_counts_nothing(tmp_path: Path) -> None:
    """Tasks 1-3, task 2's work returns None (nothing more may start for it): rows 1 and 3
    are written, 2 of 3; the money is not why (an unmetered run), nor a cap (none)."""

    def work(task: int) -> calls.Done | None:
        return None if task == 2 else calls.Done(_row(task), f"task {task}")

    with _session(tmp_path, Policy(TEXT, allow_unmetered=True)) as session:
        driven = calls.drive([1, 2, 3], work, session)
    assert driven.written == 2 and not driven.stopped_for_budget and not driven.stopped_for_calls
    assert [r["case_id"] for r in _rows(tmp_path / "out.jsonl")] == ["c1", "c3"]


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGINT, exitcodes.INTERRUPTED), (signal.SIGTERM, exitcodes.TERMINATED)]
)
def test_a_signal_stops_the_drive_and_the_session_ends_with_its_code(
    tmp_path: Path, signum: signal.Signals, code: int
) -> None:
    """jobs=1, tasks 1-3: task 1 sends this process the signal and waits for the stop it sets,
    then returns its row (a call in flight finishes its row). Tasks 2 and 3 are never worked;
    leaving the session raises Stopped with 130 (SIGINT) or 143 (SIGTERM)."""
    worked: list[int] = []

    def work(task: int) -> calls.Done | None:
        worked.append(task)
        os.kill(os.getpid(), signum)
        assert session.stop.wait(10)
        return calls.Done(_row(task), f"task {task}")

    with pytest.raises(Stopped) as stopped, _session(tmp_path, Policy(TEXT, allow_unmetered=True)) as session:
        calls.drive([1, 2, 3], work, session)
    assert stopped.value.exit_code == code and worked == [1]
    assert [r["case_id"] for r in _rows(tmp_path / "out.jsonl")] == ["c1"]


def test_a_call_that_costs_more_than_it_held_stops_the_drive_and_the_session(tmp_path: Path) -> None:
    """Floor $0.25, a CLI that spends $0.50 on its call: held 0.25 < 0.50, so the budget is
    overspent; task 2 gets no reservation; leaving the session raises Stopped with the
    budget's exit code, naming the runner and both sums."""
    runner = _fake(tmp_path, "--cost", "0.50")
    policy = Policy(runner, budget_usd=5.0, assume_call_usd=0.25)

    def work(task: int) -> calls.Done | None:
        answer = session.call(f"Q{task}")
        return None if answer is None else calls.Done(_row(task), f"task {task}")

    spent = r"'fake' spent \$0\.5000 on one call where \$0\.2500 was reserved"
    with pytest.raises(Stopped, match=spent) as stopped, _session(tmp_path, policy) as session:
        driven = calls.drive([1, 2], work, session)
    assert stopped.value.exit_code == exitcodes.BUDGET
    assert driven.written == 1 and _made(tmp_path) == 1


def test_the_shared_checks_take_any_policy_with_the_common_fields() -> None:
    """A policy without condition or trials is checked: --jobs 0 is refused naming --jobs and
    --retries only (judge has no --trials to be told about), an unmetered format without
    --allow-unmetered is refused, a good one passes."""
    with pytest.raises(UsageError, match=r"^--jobs must be at least 1, --retries at least 0$"):
        check_limits(Policy(TEXT, jobs=0, allow_unmetered=True))
    with pytest.raises(UsageError, match="never reports dollar cost"):
        check_limits(Policy(TEXT))
    with pytest.raises(UsageError, match="--budget-usd must be a number greater than 0"):
        check_amounts(Policy(TEXT, budget_usd=float("nan")))
    check_amounts(Policy(TEXT, allow_unmetered=True))
    check_limits(Policy(TEXT, allow_unmetered=True))


def test_the_ledger_gives_each_of_many_workers_its_own_ticket(tmp_path: Path) -> None:
    """Eight workers reserving at once (what `--jobs 8` does): each reservation gets a ticket of
    its own, and none raises. Ticket numbers came from one generator entered by every worker, which
    raised "generator already executing" (an internal error) when two met in it."""
    ledger = Ledger.beside(tmp_path / "out.jsonl", "w")
    errors: list[BaseException] = []
    tickets: list[str] = []
    start = threading.Barrier(8)

    def reserve() -> None:
        start.wait()
        try:
            tickets.extend(ledger.reserve(0.01, "baseline", "r") for _ in range(5000))
        except BaseException as exc:  # whatever it is, the assertion below names it
            errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: a meeting within the minute
    try:
        workers = [threading.Thread(target=reserve) for _ in range(8)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    finally:
        sys.setswitchinterval(interval)
        ledger.close()
    assert errors == []
    assert len(set(tickets)) == 40000
    written = [
        json.loads(line)["id"] for line in (tmp_path / "out.jsonl.ledger").read_text().split("\n") if line
    ]
    assert sorted(written) == sorted(tickets)
