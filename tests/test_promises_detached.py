"""Issue 35: a grandchild that clears its environment, calls `setsid` and `cd /` carries nothing to
say which call it belongs to, but it is still a descendant of adhd-evals (its subreaper): every stop
ends it — SIGINT, SIGTERM, and for SIGKILL of adhd-evals, the watchdog, which remembers every
descendant it saw appear (by pid and start time)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from adhd_evals.runs.calling import watchdog

pytestmark = pytest.mark.skipif(not watchdog.LINUX, reason="/proc, subreaper and death signals are Linux's")

DETACHING_CLI = """
import os, subprocess, sys, time
marker = sys.argv[1]
# the attack's third kind: an empty environment, a session of its own, the root as its folder
subprocess.Popen(
    ["/usr/bin/env", "-i", sys.executable, "-S", "-c",
     "import os, time; os.setsid(); os.chdir('/'); time.sleep(3600)", marker],
    cwd="/",
)
time.sleep(0.5)  # the grandchild has left the call's group before the call ends
time.sleep(float(sys.argv[2]))
print('{"result": "ok", "total_cost_usd": 0.01}')
"""


def marked(marker: str) -> list[int]:
    """Live processes whose command line carries the marker (zombies have none)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _until(done: Callable[[], bool], seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.05)
    return done()


def _start(work: Path, marker: str, sleep: str) -> subprocess.Popen[str]:
    (work / "cases.jsonl").write_text(
        "".join(
            json.dumps({"id": f"c{n}", "category": "c", "prompt": f"Q{n}", "risk": "low", "criteria": ["x"]})
            + "\n"
            for n in range(2)
        )
    )
    (work / "cli.py").write_text(DETACHING_CLI)
    command = [sys.executable, "-S", str(work / "cli.py"), marker, sleep]
    spec = {"command": command, "response_format": "claude-json", "prompt_via": "stdin"}
    (work / "runners.json").write_text(json.dumps({"detach": spec}))
    argv = ["run", "--runner", "detach", "--runner-config", str(work / "runners.json"), "--condition"]
    argv += ["baseline", "--cases", str(work / "cases.jsonl"), "--output", str(work / "out.jsonl")]
    argv += ["--trials", "1", "--assume-call-usd", "0.05"]
    return subprocess.Popen(
        [sys.executable, "-m", "adhd_evals", *argv],
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "TMPDIR": str(work)},
    )


@pytest.mark.long
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_detached_grandchildren(tmp_path: Path, sig: int, code: int) -> None:
    """Before: 20 of 20 such grandchildren survived SIGTERM/SIGINT."""
    marker = f"adhd-evals-detached-{os.getpid()}-{sig}"
    runner = _start(tmp_path, marker, "30")
    assert _until(lambda: len(marked(marker)) == 2), "the call and its detached grandchild"
    runner.send_signal(sig)
    _, err = runner.communicate(timeout=30)
    assert runner.returncode == code, err
    assert _until(lambda: marked(marker) == [], 5), marked(marker)


@pytest.mark.long
def test_a_finished_run_leaves_no_detached_grandchild(tmp_path: Path) -> None:
    """The calls answer at once; their grandchildren, detached, outlive them until the run ends."""
    marker = f"adhd-evals-detached-{os.getpid()}-done"
    runner = _start(tmp_path, marker, "0")
    _, err = runner.communicate(timeout=60)
    assert runner.returncode == 0, err
    assert _until(lambda: marked(marker) == [], 5), marked(marker)


@pytest.mark.long
def test_a_sigkilled_run_leaves_no_detached_grandchild(tmp_path: Path) -> None:
    """SIGKILL of adhd-evals's whole group: the call dies with it (its death signal); the detached
    grandchild, in a session of its own, is ended by the watchdog, which saw it appear."""
    marker = f"adhd-evals-detached-{os.getpid()}-kill"
    runner = _start(tmp_path, marker, "30")
    assert _until(lambda: len(marked(marker)) == 2)
    time.sleep(0.5)  # the watchdog looks every 0.2 s
    os.killpg(runner.pid, signal.SIGKILL)
    runner.wait()
    assert _until(lambda: marked(marker) == [], 10), marked(marker)


def _idle(pid: int) -> bool:
    """Asleep at most of ten looks 0.1 s apart: past its start, waiting in its loop. Not at every
    look: each of its own looks scans /proc, and under coverage beside a busy suite a scan can
    take most of a 0.1 s gap (CI once saw no five quiet looks in a row in 60 s). Starting early
    can only make the test fail, never pass wrongly: the child must still be ended."""
    asleep = 0
    for _ in range(10):
        fields = watchdog._stat(pid)
        if fields is None:
            return False
        asleep += fields[0] == "S"
        time.sleep(0.1)
    return asleep >= 6


@pytest.mark.long
def test_the_watchdog_ends_what_it_saw_appear_once_its_owner_dies(tmp_path: Path) -> None:
    """The watchdog's own loop, run where coverage sees it: an owner (a Python that starts a child
    with no tag, in a session of its own) is watched; the owner is SIGKILLed and its pipe closes
    without a goodbye; the child the watchdog noted (by pid and start time) is ended."""
    marker = f"adhd-evals-watched-{os.getpid()}"
    owner = subprocess.Popen(
        [sys.executable, "-S", "-c",
         "import subprocess, sys, time; subprocess.Popen([sys.executable, '-S', '-c', 'import time; time.sleep(3600)',"
         " sys.argv[1]], start_new_session=True); time.sleep(3600)", marker],
        env={},
    )  # fmt: skip
    assert _until(lambda: len(marked(marker)) == 2)
    who = f"{owner.pid}-{watchdog.start_time(owner.pid)}"
    watcher = subprocess.Popen(
        [sys.executable, "-c", "import sys; from adhd_evals.runs.calling import watchdog; watchdog._watch_over(*sys.argv[1:])",
         who, str(tmp_path), ""],
        stdin=subprocess.PIPE,
    )  # fmt: skip
    assert _until(lambda: _idle(watcher.pid), 60)  # started (under coverage, slowly), now waiting
    time.sleep(3 * watchdog.WATCH_S)  # it looks every WATCH_S: it has seen the child
    owner.kill()
    owner.wait()
    assert watcher.stdin is not None
    watcher.stdin.close()  # the pipe closes without a goodbye, as when its owner dies
    assert watcher.wait(timeout=30) == 0
    assert _until(lambda: marked(marker) == [], 5), marked(marker)


def test_a_noted_process_whose_pid_was_reused_is_left_alone() -> None:
    """_end_seen ends a pid only while it is the process noted: a wrong start time spares it."""
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        watchdog._end_seen({(sleeper.pid, watchdog.start_time(sleeper.pid) + 1)})
        time.sleep(0.1)
        assert sleeper.poll() is None
        watchdog._end_seen({(sleeper.pid, watchdog.start_time(sleeper.pid))})
        assert sleeper.wait(timeout=5) == -signal.SIGKILL
    finally:
        sleeper.kill()
        sleeper.wait()
