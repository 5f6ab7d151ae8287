"""One model-CLI call as a real process group, stoppable at any moment, never outlived.

Each call runs in its own session (its own process group) in an empty
scratch folder, with its output going to files rather than pipes (unnamed
temporary files, outside the folder): memory stays bounded whatever the CLI
prints (past `max_output` the call is ended), and no pipe can deadlock. The call is watched every 50 ms: a timeout, a stop
(fatal failure elsewhere, budget, Ctrl-C, SIGTERM) or too much output ends
it with its whole group — SIGTERM, then SIGKILL after a grace period.

A group is not enough: a grandchild that calls `setsid` leaves it. So every
call carries a tag in its environment (`ADHD_EVALS_CALL=<owner>/<n>`, which
descendants inherit) and, on Linux, adhd-evals is a child subreaper
(`PR_SET_CHILD_SUBREAPER`): an orphaned descendant is reparented to us
rather than to init, so walking our own descendants finds it, and its tag
(or a working folder inside the call's scratch) says which call it belongs
to. The call's leader gets `PR_SET_PDEATHSIG` (SIGKILL), so it dies with a
SIGKILLed adhd-evals; for its descendants a watchdog (watchdog.py run as a
script, in a session of its own) waits on a pipe from us and, when that pipe
closes without a goodbye, ends every process with our tag and removes our
scratch folders. Scratch folders carry their owner's pid and start time, so
the next start also sweeps what a dead owner left (`sweep_stale`). A
descendant with neither tag nor scratch folder (it cleared its environment,
called setsid and `cd /`) is still ours: the scope's end ends every
descendant that was not there when it began, and the watchdog ends those it
saw appear.
"""

# No `from __future__ import annotations`: a NamedTuple's (and a TypedDict's) string annotations are
# compiled one by one into ForwardRefs on every run's start-up (docs/startup.md); the few names
# only type checkers import stay quoted.
import contextlib
import functools
import itertools
import os
import select
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from typing import IO, TYPE_CHECKING, NamedTuple

from . import watchdog
from .watchdog import (
    LINUX,
    POLL_S,
    SCRATCH_PREFIX,
    TAG,
    descendants,
    identified,
    owner,
    reap,
    sweep_stale,
    tagged,
)

if TYPE_CHECKING:  # annotations only
    import subprocess

    from ..types import Ended

# subprocess and ctypes are imported where a call starts a process or sets a process flag: a
# run whose every row is already there, or the built-in stub, starts none (about 3 ms of CPU).

GRACE_S = 2.0
_TAG_BYTES = TAG.encode()
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


class Outcome(NamedTuple):
    """How one call ended. A NamedTuple, not a dataclass: dataclasses imports inspect, about 8 ms of run's and judge's start-up."""

    code: int | None  # None: the call was ended (see `ended`)
    out: str
    err: str
    ended: "Ended" = ""  # "timeout", "stop", "output": why the call was ended; "unsent": never sent
    started: bool = True  # False: no process ran, so nothing can have been spent
    # where stdout stops being UTF-8 (0-based byte), else None; `out` then shows U+FFFD there
    out_not_utf8_at: int | None = None


# --- Linux process control -----------------------------------------------------------------


def _prctl(option: int, value: int) -> bool:
    if not LINUX:
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Orphaned descendants come to us, not to init: a `setsid` grandchild stays findable."""
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


@functools.cache
def _setpriv() -> str | None:
    return shutil.which("setpriv") if LINUX else None


def _dying_with_us(argv: list[str]) -> tuple[list[str], Callable[[], None] | None]:
    """The call's argv and preexec so that its leader gets SIGKILL when adhd-evals dies.

    util-linux's `setpriv --pdeathsig KILL` sets it and execs the CLI: no Python
    runs in the forked child, so calls start as fast as without (a preexec_fn
    forces a full fork and serialises starts: 20 ms a call here). Where setpriv
    is missing, or cannot find the command as Popen would (Popen then names the
    error), a preexec_fn does it."""
    if not LINUX:
        return argv, None
    setpriv = _setpriv()
    relative = os.sep in argv[0] and not os.path.isabs(argv[0])  # Popen resolves it in the scratch folder
    if setpriv and not relative and shutil.which(argv[0]):
        return [setpriv, "--pdeathsig", "KILL", "--", *argv], None
    return argv, _die_with(os.getpid())


def _die_with(parent: int) -> Callable[[], None]:
    """A preexec for the call's leader: SIGKILL when adhd-evals dies (even by SIGKILL)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)  # loaded here: the child must not import anything

    def preexec() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the line above: follow it now
            os._exit(137)

    return preexec


# --- ending what a call left running ----------------------------------------------------------


def end_tagged(tag: str, scratch: str, pids: list[int]) -> list[int]:
    """SIGKILL those of `pids` carrying the tag; reap the ones that became our children."""
    marked = (f"{TAG}={tag}").encode()
    ended = []
    for pid in pids:
        if pid not in _leaders and tagged(pid, marked, scratch):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                ended.append(pid)
    for pid in ended:
        reap(pid)
    return ended


# --- one call --------------------------------------------------------------------------------

_leaders: set[int] = set()  # leaders of calls in flight (Popen waits for them; we never reap them)
_spawning = threading.Lock()
_numbers = itertools.count(1)


def call(
    argv: list[str], *, stdin_text: str | None, timeout: float | None, max_output: int, stop: threading.Event
) -> Outcome:
    """Run one CLI call to its end, or end it; never raises for what the CLI does."""
    import subprocess

    unsendable = _unsendable([*argv, stdin_text or ""])
    if unsendable:
        return Outcome(None, "", unsendable, "unsent", started=False)
    me = owner()
    scratch = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{me}-")  # the CLI sees an empty folder
    tag = f"{me}/{next(_numbers)}/"
    _guard_calls()
    try:
        # its output in unnamed files (O_TMPFILE): none to create, list or remove per call
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            launched, preexec = _dying_with_us(argv)
            try:
                process = subprocess.Popen(
                    launched,
                    cwd=scratch,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,
                    stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
                    env={**os.environb, _TAG_BYTES: tag.encode()},  # bytes: no decoding of each variable
                    preexec_fn=preexec,
                )
                _leaders.add(process.pid)  # (another call's end never takes it: its tag differs)
            except OSError as exc:
                return Outcome(127, "", f"cannot start {argv[0]}: {exc.strerror or exc}", started=False)
            try:
                feeder = _feed(process, stdin_text)
                ended = _watch(process, functools.partial(_written, out, err), timeout, max_output, stop)
                if feeder is not None:
                    feeder.join(timeout=GRACE_S)
            finally:
                _leaders.discard(process.pid)
                if LINUX:
                    end_tagged(tag, f"{scratch}{os.sep}", descendants(os.getpid(), frozenset(_leaders)))
            out_text, not_utf8_at = _text(out, max_output)
            return Outcome(
                None if ended else process.returncode,
                out_text,
                _text(err, max_output)[0],
                ended,
                out_not_utf8_at=not_utf8_at,
            )
    finally:
        _remove(scratch)


def _remove(scratch: str) -> None:
    """The scratch folder, gone: one rmdir when the CLI left it empty, else the whole tree."""
    try:
        os.rmdir(scratch)
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)


def _unsendable(texts: list[str]) -> str:
    """Why the call cannot be made at all: a lone surrogate has no UTF-8 bytes to send."""
    for text in texts:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            return (
                f"the prompt holds a lone surrogate (U+{ord(text[exc.start]):04X} at character "
                f"{exc.start + 1}), which UTF-8 cannot carry; nothing was sent"
            )
    return ""


def _feed(process: "subprocess.Popen[bytes]", text: str | None) -> threading.Thread | None:
    """Write the prompt to stdin from a thread: a CLI that reads slowly cannot block us."""
    if text is None or process.stdin is None:
        return None
    stdin = process.stdin
    data = text.encode("utf-8")  # checked by _unsendable: this cannot fail

    def write() -> None:
        try:
            with contextlib.suppress(OSError):  # the CLI may exit without reading it all
                stdin.write(data)
        finally:  # whatever happens, the CLI sees the end of its input
            with contextlib.suppress(OSError):
                stdin.close()

    feeder = threading.Thread(target=write, daemon=True)
    feeder.start()
    return feeder


def _watch(
    process: "subprocess.Popen[bytes]",
    written: Callable[[], int],
    timeout: float | None,
    max_output: int,
    stop: threading.Event,
) -> "Ended":
    """Wait for the call; end it (and say why) on a timeout, a stop, or too much output.

    The end of a call is seen at once (a polling wait would add up to its sleep
    to every call); every 50 ms the loop looks for a reason to end it early.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    with _exit_waiter(process) as exited:
        while not exited(POLL_S):
            why: Ended = ""
            if stop.is_set():
                why = "stop"
            elif deadline is not None and time.monotonic() > deadline:
                why = "timeout"
            elif written() > max_output:
                why = "output"
            if why:
                end_group(process)
                return why
    process.wait()
    # the CLI is done; what it left running in its group goes with it
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    return "output" if written() > max_output else ""


@contextlib.contextmanager
def _exit_waiter(process: "subprocess.Popen[bytes]") -> Iterator[Callable[[float], bool]]:
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


def end_group(process: "subprocess.Popen[bytes]") -> None:
    """SIGTERM the call's whole process group, then SIGKILL it after the grace period."""
    import subprocess

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


def _written(*streams: IO[bytes]) -> int:
    """What the CLI has written to its output files so far, in bytes."""
    return sum(os.fstat(stream.fileno()).st_size for stream in streams)


def _text(stream: IO[bytes], limit: int) -> tuple[str, int | None]:
    """At most `limit` bytes of an output file, from its start, and never a buffer larger than
    the file (a limit of 10^11 must not ask for 100 GB of memory); with where they stop being
    UTF-8, if they do."""
    stream.seek(0)
    data = stream.read(min(limit, _written(stream)))
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return data.decode("utf-8", errors="replace"), exc.start


# --- a run's calls as one guarded scope --------------------------------------------------------


_guard: "list[subprocess.Popen[bytes] | None]" = []  # the scope's watchdog, once a call has started
_before: set[tuple[int, int]] = set()  # (pid, start time) of our descendants when the scope began
# Scopes open at once (runs called from Python on several threads) share one guard: the first
# sets it up, the last ends what their calls left; one ending earlier would end the others' calls.
_scopes = [0]


@contextlib.contextmanager
def guarded(report: Callable[[str], None]) -> Iterator[None]:
    """Calls made inside never outlive it: stale scratch swept first (named through
    `report`); at the first call, us a subreaper and a watchdog for our SIGKILL; every
    tagged process ended after (by the last of the scopes open at once)."""
    with _spawning:
        _scopes[0] += 1
        if _scopes[0] == 1:
            _open_guard(report)
    try:
        yield
    finally:
        with _spawning:
            _scopes[0] -= 1
            if _scopes[0] == 0:
                _close_guard()


def _open_guard(report: Callable[[str], None]) -> None:
    for line in sweep_stale():
        report(line)
    _guard.clear()
    _before.clear()
    _before.update(identified(descendants(os.getpid())))


def _close_guard() -> None:
    if LINUX and _guard:
        end_tagged(f"{owner()}/", _scratch_root(owner()), descendants(os.getpid()))
        _end_new_descendants(_guard[0])
    _dismiss(_guard[0] if _guard else None)
    _guard.clear()


def _end_new_descendants(watchdog: "subprocess.Popen[bytes] | None") -> None:
    """After the tagged ones: every descendant that was not ours when the scope began — a
    grandchild that cleared its environment, called setsid and left the scratch folder carries
    no tag, but reparented to us (the subreaper) it is still ours to end. The watchdog stays."""
    keep = {watchdog.pid} if watchdog is not None else set()
    for _ in range(3):  # a process forked while we ended its parent is caught on the next pass
        found = identified(descendants(os.getpid(), frozenset(keep))) - _before
        for pid, _started in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        for pid, _started in found:
            reap(pid)
        if not found:
            return


def _guard_calls() -> None:
    """Before the first call: a run with no process (the built-in stub) needs no watchdog."""
    with _spawning:
        if not _guard:
            become_subreaper()
            _guard.append(_start_watchdog())


def _scratch_root(who: str) -> str:
    return os.path.join(tempfile.gettempdir(), f"{SCRATCH_PREFIX}{who}-")


def _start_watchdog() -> "subprocess.Popen[bytes] | None":
    """The watchdog, told our descendants of before the scope (not its to end)."""
    if not LINUX:
        return None
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != TAG}
    known = ",".join(f"{pid}-{started}" for pid, started in sorted(_before))
    with contextlib.suppress(OSError):
        return subprocess.Popen(
            [sys.executable, "-I", "-S", watchdog.__file__, "--watch", owner(), tempfile.gettempdir(), known],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=env,
        )
    return None


def _dismiss(watchdog: "subprocess.Popen[bytes] | None") -> None:
    """Say goodbye (one byte): the watchdog leaves without sweeping."""
    if watchdog is None or watchdog.stdin is None:
        return
    import subprocess

    with contextlib.suppress(OSError):
        watchdog.stdin.write(b"x")
        watchdog.stdin.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        watchdog.wait(timeout=GRACE_S)
