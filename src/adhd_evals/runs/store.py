"""The responses file: resumable, appended one whole line at a time.

A run killed mid-write can leave a torn last line. Opening the store
repairs it (the partial row is cut off and reported; its case simply runs
again), so a row is never duplicated and never lost.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import jsonl
from ..errors import InputInvalid

Key = tuple[str, int, str, str]


@dataclass
class Store:
    path: Path
    done: set[Key] = field(default_factory=set)
    spent: dict[tuple[str, str], float] = field(default_factory=dict)  # (condition, runner) -> USD
    repaired_bytes: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _fd: int = -1

    @classmethod
    def open(cls, path: Path) -> Store:
        store = cls(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        store.repaired_bytes = _repair_torn_tail(path)
        store._read_existing()
        store._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        return store

    def _read_existing(self) -> None:
        if not self.path.exists():
            return
        problems = []
        with self.path.open("rb") as stream:
            for number, raw in enumerate(stream, start=1):
                if not raw.strip():
                    continue
                try:
                    row = json.loads(raw)
                except ValueError:
                    problems.append(
                        f"{self.path}:{number}: not a JSON line; fix or remove it before resuming"
                    )
                    continue
                self._count(row)
        if problems:
            raise InputInvalid(problems)

    def _count(self, row: Any) -> None:
        if not isinstance(row, dict):
            return
        case_id, trial, condition, runner = (row.get(k) for k in ("case_id", "trial", "condition", "runner"))
        if (
            isinstance(case_id, str)
            and type(trial) is int
            and isinstance(condition, str)
            and isinstance(runner, str)
        ):
            self.done.add((case_id, trial, condition, runner))
        cost = row.get("cost_usd")
        if row.get("cached") is True:  # a cache hit's cost was paid by an earlier run, not this file's
            return
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            budget_key = (str(row.get("condition")), str(row.get("runner")))
            self.spent[budget_key] = self.spent.get(budget_key, 0.0) + float(cost)

    def append(self, row: dict[str, Any]) -> None:
        """One whole line per write(2) on an O_APPEND descriptor: never interleaved."""
        data = (jsonl.line(row) + "\n").encode("utf-8")
        with self._lock:
            written = os.write(self._fd, data)
            while written < len(data):  # a short write is rare on a regular file; finish it
                written += os.write(self._fd, data[written:])
            self._count(row)

    def close(self) -> None:
        if self._fd >= 0:
            os.fsync(self._fd)
            os.close(self._fd)
            self._fd = -1


def _repair_torn_tail(path: Path) -> int:
    """Cut a torn last line (a killed writer's); returns bytes removed. A last line that is a
    whole row but lacks its newline is kept and the newline added."""
    if not path.exists() or path.stat().st_size == 0:
        return 0
    with path.open("rb+") as stream:
        size = stream.seek(0, os.SEEK_END)
        stream.seek(max(0, size - 1))
        if stream.read(1) == b"\n":
            return 0
        keep = size
        step = 65536
        while keep > 0:  # find the last newline, reading backwards
            start = max(0, keep - step)
            stream.seek(start)
            chunk = stream.read(keep - start)
            at = chunk.rfind(b"\n")
            if at >= 0:
                keep = start + at + 1
                break
            keep = start
        stream.seek(keep)
        if _whole_row(stream.read(size - keep)):  # complete, only its newline is missing (as the
            stream.seek(size)  # reference writes a row, then a newline): keep it, add the newline
            stream.write(b"\n")
            return 0
        stream.truncate(keep)
        return size - keep


def _whole_row(data: bytes) -> bool:
    try:
        return isinstance(json.loads(data), dict)
    except (ValueError, RecursionError):
        return False
