"""Races between two guarded scopes of one process (process.guarded), open at once on two threads.

`run()` and `judge()` are callable from Python, off the main thread too (workers._signals leaves
signals alone there), so two runs may go on at once in one process. Each run's calls are one
guarded scope; the scope's state (its watchdog, the descendants it found at its start) was
module-wide, so the scope that ended first ended what was the other's: every process carrying
this process's call tag, another run's CLI's own children included.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from adhd_evals.runs.calling import process
from adhd_evals.runs.calling.watchdog import LINUX

# A CLI whose answer comes from a child of its own (as a CLI's tool calls run): the child marks
# that it started, works until the test lets it go (20 s at most), and prints the answer;
# killed, the CLI says how.
CHILD = (
    "import pathlib, sys, time; marks = pathlib.Path(sys.argv[1]); (marks / 'started').touch(); "
    "until = time.monotonic() + 20\n"
    "while not (marks / 'go').exists() and time.monotonic() < until: time.sleep(0.01)\n"
    "print('slow')"
)
CLI = (
    "import subprocess, sys; child = subprocess.run([sys.executable, '-c', sys.argv[1], sys.argv[2]], "
    "capture_output=True, text=True); print(child.stdout.strip() or f'child ended by {child.returncode}')"
)


def _call(argv: list[str]) -> process.Outcome:
    return process.call(argv, stdin_text=None, timeout=30.0, max_output=1 << 20, stop=threading.Event())


@pytest.mark.skipif(not LINUX, reason="the call tags and the scope's sweep are Linux's")
def test_a_scope_ending_on_one_thread_leaves_the_calls_of_a_scope_open_on_another(tmp_path: Path) -> None:
    """Scope A (a thread) makes a call whose CLI's child works until B is over: once that
    child has started, scope B (the main thread) opens, makes one quick call and ends. Expected, from
    the promise that a scope ends what *its* calls started: A's call is untouched, so its CLI
    exits 0 with the child's answer "slow"; B's call answers "quick". Without the fix, B's
    end killed A's child (tagged with this process's owner): A answered "child ended by -9"."""
    started = tmp_path / "started"
    found: list[process.Outcome] = []

    def scope_a() -> None:
        with process.guarded(lambda line: None):
            found.append(_call([sys.executable, "-c", CLI, CHILD, str(tmp_path)]))

    a = threading.Thread(target=scope_a)
    a.start()
    try:
        deadline = time.monotonic() + 20
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert started.exists()
        with process.guarded(lambda line: None):
            quick = _call([sys.executable, "-c", "print('quick')"])
    finally:
        (tmp_path / "go").touch()
        a.join()
    assert (quick.code, quick.out) == (0, "quick\n")
    assert [(outcome.code, outcome.out) for outcome in found] == [(0, "slow\n")]
