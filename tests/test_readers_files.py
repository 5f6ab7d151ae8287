"""read_limited asks for the size a file has, and still reads a file that is longer than
its size said (procfs reports 0 bytes) whole, bounded by the limit."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from adhd_evals.files import DEFAULT_MAX_BYTES, NotAFile, read_limited, set_max_bytes


@pytest.fixture(autouse=True)
def _default_limit() -> Iterator[None]:
    yield
    set_max_bytes(DEFAULT_MAX_BYTES)


def test_a_file_that_says_it_is_empty_but_is_not_is_read_whole() -> None:
    """/proc/self/cmdline says it holds 0 bytes and reads as this process's arguments (fixed
    for its life): read whole, the same bytes a plain read gives, not the one byte its size
    (0) plus one asks for first."""
    cmdline = Path("/proc/self/cmdline")
    if not cmdline.exists():
        pytest.skip("no procfs")
    assert cmdline.stat().st_size == 0
    expected = cmdline.read_bytes()
    assert len(expected) > 1
    assert read_limited(cmdline) == expected


def test_a_file_is_read_whole_at_its_size(tmp_path: Path) -> None:
    """A regular file of 100,000 bytes: its bytes, neither fewer nor more."""
    path = tmp_path / "data.bin"
    data = os.urandom(100_000)
    path.write_bytes(data)
    assert read_limited(path) == data


def test_a_file_at_the_limit_is_read_and_one_past_it_is_refused(tmp_path: Path) -> None:
    """The limit is inclusive: 10 bytes under a limit of 10 are read, 11 are refused unread."""
    set_max_bytes(10)
    at = tmp_path / "at.txt"
    at.write_bytes(b"0123456789")
    assert read_limited(at) == b"0123456789"
    past = tmp_path / "past.txt"
    past.write_bytes(b"0123456789a")
    with pytest.raises(NotAFile, match=r"it is 11 bytes, past the limit of 10 \(--max-bytes\)"):
        read_limited(past)


def test_a_fifo_is_refused_unread(tmp_path: Path) -> None:
    """A named pipe would block a read forever: refused by its kind, the open not blocking."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(NotAFile, match=r"it is a FIFO \(named pipe\), not a regular file"):
        read_limited(fifo)
