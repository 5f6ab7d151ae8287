"""The threads a command's calls run on: the pool that hands out tasks, the stop that a failure,
SIGINT or SIGTERM sets, and the progress the workers report.

A stop starts nothing new and ends in-flight calls with their process groups (see process.py);
the main thread only waits, so a signal is handled at once.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TextIO, TypeVar

from ... import exitcodes
from ...errors import Stopped
from ...text import usd
from . import process
from .watchdog import POLL_S


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

    def steps(self, labels: Sequence[str], spent: float) -> None:
        """Rows written together (cached answers, a chunk per write): the lines `step` prints
        for each, in one write when they are plain lines (a write per line was a syscall a row)."""
        if self.tty:
            for label in labels:
                self.step(label, spent)
            return
        shown = usd(spent)
        with self._lock:
            lines = []
            for label in labels:
                self.done += 1
                lines.append(f"{label} ({self.done}/{self.total}, {shown})\n")
            self.stream.write("".join(lines))
            self.stream.flush()


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

    # The handler runs in the main thread between two of its bytecodes, perhaps inside
    # stop.wait holding the stop's lock: setting the stop there would wait for itself. It
    # only writes a byte (no lock); a thread of its own sets the stop.
    wake, woken = os.pipe()
    os.set_blocking(woken, False)
    setter = threading.Thread(target=_set_when_woken, args=(wake, stop), daemon=True)
    setter.start()

    def handle(signum: int, frame: object) -> None:
        received.append(signum)
        with contextlib.suppress(BlockingIOError):  # a full pipe already holds a wake-up
            os.write(woken, b"!")

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        os.close(woken)  # the setter reads the end of the pipe and leaves
        setter.join()
        os.close(wake)
    if received:
        terminated = received[0] == signal.SIGTERM
        raise Stopped(
            "stopped by " + ("SIGTERM" if terminated else "Ctrl-C") + ": no new call started, "
            "calls in flight were ended",
            exitcodes.TERMINATED if terminated else exitcodes.INTERRUPTED,
        )


def _set_when_woken(wake: int, stop: threading.Event) -> None:
    """Set the stop at each byte a signal handler writes, until the pipe is closed."""
    while os.read(wake, 512):
        stop.set()


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
            thread.join(POLL_S * 4)
    if failures:
        raise failures[0]
