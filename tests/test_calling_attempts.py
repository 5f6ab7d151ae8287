"""calls.Session.call's attempts that never answer: a prompt no process can be sent (released at
once, never retried) and an answer that is not UTF-8 (charged, then retried). Each attempt's
reservation ends in exactly one way, so the budget's counts say which one it took."""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from adhd_evals.errors import RunnerFailed
from adhd_evals.runs.calling import calls
from adhd_evals.runs.calling.config import Runner
from adhd_evals.runs.calling.policy import only_writer
from adhd_evals.runs.calling.store import Store

# exits 0 having printed "ab", a byte UTF-8 never uses (0xFF), then "cd"
NOT_UTF8 = Runner("bad", (sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'ab\\xffcd')"), "text")


@dataclass(frozen=True)
class Policy:
    """An unmetered run (the text format reports no cost), capped at 5 calls."""

    runner: Runner
    retries: int
    jobs: int = 1
    backoff: float = 0.0
    timeout: float | None = 30.0
    max_output_bytes: int = 1 << 20
    budget_usd: float = 1.0
    allow_unmetered: bool = True
    max_calls: int | None = 5
    assume_call_usd: float | None = None


@contextlib.contextmanager
def _session(tmp_path: Path, policy: Policy) -> Iterator[calls.Session]:
    output = tmp_path / "out.jsonl"
    with (
        only_writer(output),
        contextlib.closing(Store.open(output)) as store,
        calls.open_session(policy, store, ("", policy.runner.name), io.StringIO()) as session,
    ):
        yield session


def test_a_prompt_that_cannot_be_sent_is_released_and_not_retried(tmp_path: Path) -> None:
    """ "a\\ud800b": its lone surrogate is character 2 (0-based 1), U+D800, so the message is the
    one process.call gives, behind the runner's name. With 2 retries allowed, nothing is tried
    again: the one reservation was released, so the call count is back to 0 and nothing is spent
    or charged."""
    with _session(tmp_path, Policy(NOT_UTF8, retries=2)) as session:
        expected = (
            "runner 'bad': the prompt holds a lone surrogate (U+D800 at character 2), which UTF-8 "
            "cannot carry; nothing was sent"
        )
        with pytest.raises(RunnerFailed, match=f"^{re.escape(expected)}$"):
            session.call("a\ud800b")
        budget = session.budget
        assert (budget.calls, budget.in_flight, budget.spent, budget.charged_calls) == (0, 0, 0.0, 0)


def test_an_answer_that_is_not_utf8_is_charged_and_retried(tmp_path: Path) -> None:
    """stdout b"ab\\xffcd": the first byte that is not UTF-8 is 0-based byte 2, said as "byte 3";
    the tail shows it replaced (U+FFFD). retries=1: two attempts, each charged (a call counted
    and never given back), then the failure after 2 attempts with the last one's words."""
    with _session(tmp_path, Policy(NOT_UTF8, retries=1)) as session:
        with pytest.raises(RunnerFailed) as failed:
            session.call("Q")
        message = str(failed.value)
        assert message.startswith("runner 'bad' failed after 2 attempts (command: ")
        assert message.endswith("): output is not UTF-8 (byte 3 of stdout)\nab\ufffdcd")
        assert (session.budget.calls, session.budget.in_flight) == (2, 0)
