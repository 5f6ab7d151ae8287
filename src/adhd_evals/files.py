"""Reading files that may not be files: bounded, regular only, walks that cannot loop.

A FIFO would block a read forever, /dev/zero would fill memory, a 2 GB file
would be read whole before its refusal, and two symlinks to `.` make a
naive walk exponential. Every reader and walker goes through here.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

DEFAULT_MAX_BYTES = 256 * 1024 * 1024
_limit = DEFAULT_MAX_BYTES


def set_max_bytes(limit: int) -> None:
    """The size past which a file is refused unread (`--max-bytes`)."""
    global _limit
    _limit = limit


def max_bytes() -> int:
    return _limit


class NotAFile(OSError):
    """A path that must not be read: not a regular file, or past the size limit."""


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def check_readable(path: Path) -> int:
    """The file's size; raises NotAFile for what must not be read."""
    info = path.stat()  # follows a symlink to what it names
    if not stat.S_ISREG(info.st_mode):
        raise NotAFile(f"it is {_kind(info.st_mode)}, not a regular file")
    if info.st_size > _limit:
        raise NotAFile(f"it is {info.st_size:,} bytes, past the limit of {_limit:,} (--max-bytes)")
    return info.st_size


def _open_checked(path: str | Path) -> tuple[int, int]:
    """A descriptor of the file and its size, refused unread when it must not be read. The
    checks are made on the opened descriptor (a FIFO swapped in after a stat cannot slip
    through), and the open itself cannot block (O_NONBLOCK)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotAFile(f"it is {_kind(info.st_mode)}, not a regular file")
        if info.st_size > _limit:
            raise NotAFile(f"it is {info.st_size:,} bytes, past the limit of {_limit:,} (--max-bytes)")
    except BaseException:
        os.close(fd)
        raise
    return fd, info.st_size


def open_limited(path: Path) -> BinaryIO:
    """The file opened for reading, refused unread when it must not be read (see
    _open_checked); O_NONBLOCK is cleared once it is known to be a regular file."""
    fd, _ = _open_checked(path)
    try:
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_limited(path: str | Path) -> bytes:
    """The whole file, refused rather than read when it is not a bounded regular file.
    The only door for reading a whole file: every reader of a path a user names uses it.

    The read asks for the size the file has, not for the limit: a buffered read of the
    limit allocates that much (256 MiB by default) for every file, which made reading a
    tree of 500 small files several times slower than reading them plainly. A file longer
    than its size said (procfs, or one growing) reads on, still bounded by the limit."""
    fd, size = _open_checked(path)
    try:
        data = _read_up_to(fd, size + 1)
        if len(data) > size:
            data += _read_up_to(fd, _limit + 1 - len(data))
    finally:
        os.close(fd)
    if len(data) > _limit:  # it grew while we read it
        raise NotAFile(f"it grew past the limit of {_limit:,} bytes (--max-bytes) while being read")
    return data


def _read_up_to(fd: int, wanted: int) -> bytes:
    """Up to `wanted` bytes, fewer only at the end of the file (a read may return less)."""
    chunks = []
    while wanted > 0:
        chunk = os.read(fd, wanted)
        if not chunk:
            break
        chunks.append(chunk)
        wanted -= len(chunk)
    return b"".join(chunks)


def read_text_limited(path: Path) -> str:
    """read_limited as UTF-8 text with universal newlines, exactly as `Path.read_text` gives it
    (a skill file's CRLF reaches the prompt as the reference reads it). UnicodeDecodeError
    (a ValueError) for bytes that are not UTF-8."""
    return read_limited(path).decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def walk(root: Path, skip: Iterable[str] = ()) -> list[Path]:
    """Regular files under `root`, sorted; directories named in `skip` are not entered.

    Symlinks met inside the walk are not followed: what one points to inside
    the root is reached directly, and what lies outside it is not the walk's
    (so two links to `.` cost nothing, and no link leads out). A resolved-path
    set guards against a folder reached twice all the same (bind mounts).
    """
    skipped = set(skip)
    try:
        top = root.stat()
    except OSError:
        return []
    seen = {(top.st_dev, top.st_ino)}  # a folder is its device and inode, whatever its path
    found: list[str] = []
    pending = [str(root)]
    while pending:
        folder = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_symlink():
                    continue
                if entry.is_dir(follow_symlinks=False) and entry.name not in skipped:
                    info = entry.stat(follow_symlinks=False)
                    if (info.st_dev, info.st_ino) not in seen:
                        seen.add((info.st_dev, info.st_ino))
                        pending.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    found.append(entry.path)
            except OSError:  # vanished while we looked
                continue
    return sorted(map(Path, found))


class Held(OSError):
    """Another process holds the file's lock; `holder` is its pid, or "unknown"."""

    def __init__(self, path: Path, holder: str) -> None:
        super().__init__(f"{path} is locked by pid {holder}")
        self.holder = holder


@contextlib.contextmanager
def only_writer(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on the file itself, created when missing.

    The lock is the file's, not its name's: `flock` locks the open file, which
    the kernel knows by device and inode, so a symlink or a hard link to the
    same file meets the same lock (a lock file beside each name would not).
    """
    # non-blocking: a FIFO named as the output must be refused, not wait for a writer
    fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotAFile(f"it is {_kind(mode)}, not a regular file")
        _take(fd, path)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def not_being_written(path: Path) -> Iterator[None]:
    """Held while a whole file is renamed over `path`: raises Held when a run holds the lock
    `only_writer` takes, since a file a run appends to, replaced under it, takes the run's later
    rows with it to no name. A path that is missing or cannot be opened has no writer to wait
    for (the write itself then says what is wrong); nothing is created."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        fd = -1
    try:
        if fd >= 0 and stat.S_ISREG(os.fstat(fd).st_mode):
            _take(fd, path)
        yield
    finally:
        if fd >= 0:
            os.close(fd)


def _take(fd: int, path: Path) -> None:
    """The exclusive lock on the open file, at once, or Held naming who has it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise Held(path, _holder(os.fstat(fd))) from None


def _holder(info: os.stat_result) -> str:
    """The pid holding a flock on this device and inode, from /proc/locks (Linux)."""
    wanted = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return "unknown"
    for line in lines:
        fields = line.split()
        if len(fields) > 5 and fields[1] == "FLOCK" and fields[-3] == wanted and "->" not in fields:
            return fields[-4]
    return "unknown"
