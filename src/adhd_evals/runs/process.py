"""One model-CLI call as a real process group, stoppable at any moment.

Each call runs in its own session (its own process group) in an empty
scratch folder, with its output going to files rather than pipes: memory
stays bounded whatever the CLI prints (past `max_output` the call is ended),
and no pipe can deadlock. The call is watched every 50 ms: a timeout, a stop
(fatal failure elsewhere, budget, Ctrl-C, SIGTERM) or too much output ends
it with its whole group — SIGTERM, then SIGKILL after a grace period — so no
grandchild outlives it. Scratch and output files are removed in every case.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

POLL_S = 0.05
GRACE_S = 2.0
DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024


@dataclass(frozen=True)
class Outcome:
    code: int | None  # None: the call was ended (see `ended`)
    out: str
    err: str
    ended: str = ""  # "timeout", "stop", "output": why the call was ended


def call(argv: list[str], *, stdin_text: str | None, timeout: float | None, max_output: int,
         stop: threading.Event) -> Outcome:  # fmt: skip
    """Run one CLI call to its end, or end it; never raises for what the CLI does."""
    base = Path(tempfile.mkdtemp(prefix="adhd-evals-run-"))
    scratch, logs = base / "cwd", base  # the CLI sees an empty folder; its output lies beside it
    scratch.mkdir()
    try:
        with (logs / "out").open("wb") as out, (logs / "err").open("wb") as err:
            try:
                process = subprocess.Popen(
                    argv, cwd=scratch, stdout=out, stderr=err, start_new_session=True,
                    stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
                )  # fmt: skip
            except OSError as exc:
                return Outcome(127, "", f"cannot start {argv[0]}: {exc.strerror or exc}")
            feeder = _feed(process, stdin_text)
            ended = _watch(process, logs, timeout, max_output, stop)
            if feeder is not None:
                feeder.join(timeout=GRACE_S)
        return Outcome(None if ended else process.returncode, _read(logs / "out", max_output),
                       _read(logs / "err", max_output), ended)  # fmt: skip
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _feed(process: subprocess.Popen[bytes], text: str | None) -> threading.Thread | None:
    """Write the prompt to stdin from a thread: a CLI that reads slowly cannot block us."""
    if text is None or process.stdin is None:
        return None
    stdin = process.stdin

    def write() -> None:
        with contextlib.suppress(OSError):  # the CLI may exit without reading it all
            stdin.write(text.encode("utf-8"))
        with contextlib.suppress(OSError):
            stdin.close()

    feeder = threading.Thread(target=write, daemon=True)
    feeder.start()
    return feeder


def _watch(process: subprocess.Popen[bytes], logs: Path, timeout: float | None, max_output: int,
           stop: threading.Event) -> str:  # fmt: skip
    """Wait for the call; end it (and say why) on a timeout, a stop, or too much output.

    The end of a call is seen at once (a polling wait would add up to its sleep
    to every call); every 50 ms the loop looks for a reason to end it early.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    with _exit_waiter(process) as exited:
        while not exited(POLL_S):
            why = ""
            if stop.is_set():
                why = "stop"
            elif deadline is not None and time.monotonic() > deadline:
                why = "timeout"
            elif _size(logs / "out") + _size(logs / "err") > max_output:
                why = "output"
            if why:
                end_group(process)
                return why
    process.wait()
    # the CLI is done; what it left running in its group goes with it
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    return "output" if _size(logs / "out") + _size(logs / "err") > max_output else ""


@contextlib.contextmanager
def _exit_waiter(process: subprocess.Popen[bytes]) -> Iterator[Callable[[float], bool]]:
    """A function that waits up to N seconds for the process to exit, woken at its exit:
    a pidfd where Linux has one (no thread), else a thread blocked in wait()."""
    try:
        pidfd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):
        finished = threading.Event()

        def reap() -> None:
            process.wait()
            finished.set()

        threading.Thread(target=reap, daemon=True).start()
        yield finished.wait
        return
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        yield lambda seconds: bool(poller.poll(seconds * 1000))
    finally:
        os.close(pidfd)


def end_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the call's whole process group, then SIGKILL it after the grace period."""
    for sig, wait_s in ((signal.SIGTERM, GRACE_S), (signal.SIGKILL, GRACE_S)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            continue
        # the leader is gone; its group may not be: make sure nothing of it survives
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        return


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _read(path: Path, limit: int) -> str:
    with path.open("rb") as stream:
        return stream.read(limit).decode("utf-8", errors="replace")
