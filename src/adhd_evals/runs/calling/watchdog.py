"""The watchdog of a run's calls, and what it needs to know of processes (pid, start time,
descendants, call tags), which process.py uses too.

This file is run as a script (`python -I -S watchdog.py --watch OWNER TMP KNOWN`), in a session
of its own, by the first call of a guarded scope (process.guarded): it waits on a pipe from its
owner, noting every descendant of the owner that appears; when the pipe closes without a
goodbye (the owner was SIGKILLed), it ends every process carrying the owner's tag, every
descendant it saw appear, and removes the owner's scratch folders. Run that way it sees no
package: it must import nothing but the standard library (tests/test_calling_watchdog.py).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import re
import sys
import time

# signal, select and shutil are imported where a process is ended, the watchdog waits or a folder
# is removed, and tempfile not at all where it is not loaded yet (temp_dir): a run that starts no
# call and finds nothing stale needs none of them (with shutil's bz2 and lzma and tempfile's
# random, about 8 ms of CPU at start-up).

POLL_S = 0.05
WATCH_S = 0.2  # how often the watchdog notes the owner's descendants
TAG = "ADHD_EVALS_CALL"
SCRATCH_PREFIX = "adhd-evals-run-"
_OWNED = re.compile(re.escape(SCRATCH_PREFIX) + r"(\d+)-(\d+)-")
LINUX = sys.platform.startswith("linux")


# --- who a process is: pid and start time (a pid alone is reused) ---------------------------


def _stat(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields from the state on (field 3 is index 0), or None when gone."""
    try:
        raw = _proc(f"/proc/{pid}/stat")
    except OSError:
        return None
    return raw[raw.rfind(b")") + 2 :].decode("ascii", "replace").split()


def _proc(path: str) -> bytes:
    """A /proc file, whole (its size says 0: read to the end); read on every call, so no pathlib."""
    with open(path, "rb") as stream:
        return stream.read()


def start_time(pid: int) -> int:
    """The process's start time in clock ticks since boot (0 where /proc has none)."""
    fields = _stat(pid)
    return int(fields[19]) if fields and len(fields) > 19 else 0


def owner() -> str:
    """This process as an owner of scratch folders and call tags: "<pid>-<start time>"."""
    return _owner(os.getpid())


@functools.cache
def _owner(pid: int) -> str:
    """Read from /proc once per process (a forked child has another pid, so its own entry)."""
    return f"{pid}-{start_time(pid)}"


def alive(pid: int, started: int) -> bool:
    if LINUX:
        fields = _stat(pid)
        return fields is not None and fields[0] != "Z" and start_time(pid) == started
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --- finding what a call left running -------------------------------------------------------


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        with contextlib.suppress(OSError, ValueError):
            found += [int(p) for p in _proc(f"/proc/{pid}/task/{task}/children").split()]
    return found


def descendants(root: int, skip: frozenset[int] = frozenset()) -> list[int]:
    """Every live descendant of `root` (with us a subreaper, orphans of our calls included),
    but none under `skip` (the leaders of calls still running: theirs to end, not ours)."""
    seen: list[int] = []
    pending = _children(root)
    while pending:
        pid = pending.pop()
        if pid in seen or pid in skip:
            continue
        seen.append(pid)
        pending += _children(pid)
    return seen


def tagged(pid: int, tag: bytes, scratch: str) -> bool:
    """Whether the process carries the tag (an environment entry starting with it) or works
    inside the scratch folder (a CLI that clears its environment still starts there)."""
    try:
        if (b"\0" + _proc(f"/proc/{pid}/environ")).find(b"\0" + tag) >= 0:
            return True
    except OSError:
        pass
    try:
        return (os.readlink(f"/proc/{pid}/cwd") + os.sep).startswith(scratch)
    except OSError:
        return False


def reap(pid: int) -> None:
    """Wait for a process ended that had become our child (an orphan reparented to us, the
    subreaper), so it leaves no zombie; one that is not our child is left to its parent."""
    fields = _stat(pid)
    if fields is None or int(fields[1]) != os.getpid():
        return
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, 0)


def _all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()] if LINUX else []


def identified(pids: list[int]) -> set[tuple[int, int]]:
    """Each process by pid and start time: who it is, even after its pid is reused."""
    return {(pid, start_time(pid)) for pid in pids}


# --- what a dead owner left ------------------------------------------------------------------


def end_owned(who: str, tmp: str) -> list[str]:
    """End every process of a (dead) owner's calls and remove its scratch folders; returns them."""
    import shutil
    import signal

    scratch = os.path.join(tmp, f"{SCRATCH_PREFIX}{who}-")
    marked = (f"{TAG}={who}/").encode()
    for pid in _all_pids():
        if pid != os.getpid() and tagged(pid, marked, scratch):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
    removed = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(tmp):
            if entry.name.startswith(f"{SCRATCH_PREFIX}{who}-") and entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(entry.path)
    return removed


def sweep_stale(tmp: str | None = None) -> list[str]:
    """Scratch folders whose owner is dead (a SIGKILLed run whose watchdog died too): their
    processes ended, the folders removed, each named in a line for the user."""
    tmp = tmp or temp_dir()
    dead: set[tuple[int, int]] = set()
    with contextlib.suppress(OSError):
        for entry in os.scandir(tmp):
            match = _OWNED.match(entry.name)
            if match and not alive(int(match[1]), int(match[2])):
                dead.add((int(match[1]), int(match[2])))
    lines = []
    for pid, started in sorted(dead):
        for path in end_owned(f"{pid}-{started}", tmp):
            lines.append(
                f"Removed {path}: a scratch folder of adhd-evals pid {pid}, which is no longer running."
            )
    return lines


def temp_dir() -> str:
    """The folder tempfile.gettempdir() names, where calls make their scratch folders: tempfile's
    own answer where it is loaded (a program may have set tempfile.tempdir), else found as
    tempfile finds it (default_temp_dir), without importing tempfile."""
    loaded = sys.modules.get("tempfile")
    if loaded is not None:
        return str(loaded.gettempdir())
    return default_temp_dir()


def default_temp_dir() -> str:
    """tempfile's default folder, found its way: the first of TMPDIR, TEMP, TMP (when set), /tmp,
    /var/tmp, /usr/tmp and the working folder (absolute) in which a new file can be made and
    written, trying another name when one exists and the next folder at any other failure; as
    tempfile does, FileNotFoundError when there is none. POSIX's folders: calls are made on
    POSIX alone (docs/exit-codes.md)."""
    candidates = [name for name in (os.getenv(key) for key in ("TMPDIR", "TEMP", "TMP")) if name]
    candidates += ["/tmp", "/var/tmp", "/usr/tmp"]
    try:
        candidates.append(os.getcwd())
    except OSError:
        candidates.append(os.curdir)
    for folder in candidates:
        folder = folder if folder == os.curdir else os.path.abspath(folder)
        if _writable(folder):
            return folder
    raise FileNotFoundError(errno.ENOENT, f"No usable temporary directory found in {candidates}")


_PROBE_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)


def _writable(folder: str) -> bool:
    """Whether a new file can be made and written in `folder` (removed again), by tempfile's test:
    100 names tried while each exists, any other failure a no."""
    for _ in range(100):
        name = os.path.join(folder, f"tmp{os.urandom(6).hex()}")
        try:
            fd = os.open(name, _PROBE_FLAGS, 0o600)
            try:
                try:
                    os.write(fd, b"blat")
                finally:
                    os.close(fd)
            finally:
                os.unlink(name)
            return True
        except FileExistsError:
            continue
        except OSError:
            return False
    return False


def _watch_over(who: str, tmp: str, known: str = "") -> None:
    """The watchdog: wait for the owner's goodbye; without one (it died), clean up after it.
    While it waits it notes every descendant of the owner that was not there at the start (by
    pid and start time): one that cleared its environment and left the scratch folder carries
    no tag, and after a SIGKILL of the owner only this list still names it."""
    import select
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    pid, _, started = who.partition("-")
    before = {tuple(map(int, item.split("-"))) for item in known.split(",") if item}
    seen: set[tuple[int, int]] = set()
    while not select.select([0], [], [], WATCH_S)[0]:
        seen |= identified(descendants(int(pid), frozenset({os.getpid()}))) - before
    if os.read(0, 1):
        return
    seen |= identified(descendants(int(pid), frozenset({os.getpid()}))) - before
    deadline = time.monotonic() + 5
    while alive(int(pid), int(started)) and time.monotonic() < deadline:
        time.sleep(POLL_S)  # the pipe closes as the owner dies; let it finish dying
    for _ in range(3):  # a process forked while we swept is caught on the next pass
        end_owned(who, tmp)
        _end_seen(seen)
        time.sleep(POLL_S)


def _end_seen(seen: set[tuple[int, int]]) -> None:
    """SIGKILL each process noted, if it is still the one noted (its pid not reused)."""
    import signal

    for pid, started in seen:
        if alive(pid, started):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


if __name__ == "__main__" and sys.argv[1:2] == ["--watch"]:
    _watch_over(sys.argv[2], sys.argv[3], *sys.argv[4:5])
