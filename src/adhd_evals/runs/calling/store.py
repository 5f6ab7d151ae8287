"""The responses file: resumable, appended one whole line at a time; and its ledger.

A run killed mid-write can leave a torn last line. Opening the store
repairs it (the partial row is cut off and reported; its case simply runs
again), so a row is never duplicated and never lost.

Beside it, `<output>.ledger` records every reservation before its call
starts and how it was settled: a call whose cost is unknown (it failed,
timed out or printed unreadable output after it started, or the run was
killed while it ran) is charged its reservation, and the ledger is how a
resumed run still counts that money.
"""

# No `from __future__ import annotations`: a NamedTuple's (and a TypedDict's) string annotations are
# compiled one by one into ForwardRefs on every run's start-up (docs/startup.md); the few names
# only type checkers import stay quoted.
import itertools
import json
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

from ... import jsonl
from ...errors import InputInvalid, OutputError
from ...files import check_readable, open_limited
from .responses import is_dollars
from .shard import sealed, sidecar_path  # bound once: an import statement per row was ~6 us of a shard's row

Key = tuple[str, int, str, str]


class Store:
    """An output's rows: the keys already there, what they cost, and the descriptor new rows are
    appended through (Store.open). A plain class, not a dataclass: dataclasses imports inspect, about 8 ms of run's and judge's start-up."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.done: set[Key] = set()
        self.spent: dict[tuple[str, str], float] = {}  # (condition, runner) -> USD
        self.dearest: dict[tuple[str, str], float] = {}  # the most one row cost
        self.repaired_bytes = 0
        self.seal_with: str | None = None  # a shard output's catalog hash: its rows are sealed (shard.py)
        self._lock = threading.Lock()
        self._fd = -1

    @classmethod
    def open(cls, path: Path) -> "Store":
        store = cls(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        _resumable(path)
        if sidecar_path(path).exists():  # written by `run --shard`/`judge --shard` before its rows
            from .sidecar import read_sidecar  # a shard's output only

            store.seal_with = read_sidecar(sidecar_path(path))["catalog_sha256"]
        store.repaired_bytes = _repair_torn_tail(path)
        store._read_existing()
        store._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        return store

    def _read_existing(self) -> None:
        if not self.path.exists():
            return
        problems = []
        with open_limited(self.path) as stream:
            for number, raw in enumerate(stream, start=1):
                if not raw.strip():
                    continue
                try:  # strictly: json.loads(bytes) would read a lone surrogate's bytes (surrogatepass)
                    text = raw.decode("utf-8-sig")  # a BOM is skipped, as json.loads(bytes) skips it
                except UnicodeDecodeError as exc:  # counted as done, the row would fail score's read
                    at = exc.start + 1 + (3 if raw[:3] == b"\xef\xbb\xbf" else 0)  # the BOM's bytes count
                    problems.append(
                        f"{self.path}:{number}: invalid UTF-8 at byte {at} of the line; fix or remove it "
                        "before resuming"
                    )
                    continue
                try:
                    row = json.loads(text)
                except (ValueError, RecursionError):  # nested past what the reader recurses into
                    problems.append(
                        f"{self.path}:{number}: not a JSON line; fix or remove it before resuming"
                    )
                    continue
                if not isinstance(row, dict):  # as the reference refuses it, not skipped unread
                    problems.append(
                        f"{self.path}:{number}: not a JSON object; fix or remove it before resuming"
                    )
                    continue
                problem = _cost_problem(row)
                if problem:
                    problems.append(f"{self.path}:{number}: {problem}; fix or remove it before resuming")
                    continue
                self._count(row)
        if problems:
            raise InputInvalid(problems)

    def _count(self, row: Any) -> None:
        if not isinstance(row, dict):
            return
        case_id, trial, condition, runner = (
            row.get("case_id"),
            row.get("trial"),
            row.get("condition"),
            row.get("runner"),
        )
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
            self.dearest[budget_key] = max(self.dearest.get(budget_key, 0.0), float(cost))

    def append(self, row: Mapping[str, object]) -> None:
        """One whole line per write(2) on an O_APPEND descriptor: never interleaved."""
        self.append_all([row])

    def append_all(self, rows: Sequence[Mapping[str, object]]) -> None:
        """Whole lines in one write(2): a kill can tear only the last, which opening repairs
        (cached answers are written so, a chunk at a time: a write per row was a tenth of a
        hit's time)."""
        encoded = [self._encoded(row) for row in rows]
        data = b"".join(line for line, _ in encoded)
        with self._lock:
            try:
                self._write(data)
            except OSError as exc:  # a full disk: said as an output error; the ledger keeps the cost
                row = encoded[0][1]
                raise OutputError(
                    f"{self.path}: cannot be written ({exc.strerror or exc}); the row of case "
                    f"{row.get('case_id')} trial {row.get('trial')} is lost, its cost kept in the ledger"
                ) from exc
            for _, row in encoded:
                self._count(row)

    def _encoded(self, row: Mapping[str, object]) -> tuple[bytes, Mapping[str, object]]:
        """The row's line, newline included, and the row as written (its text escaped if need be)."""
        try:
            data = jsonl.line(row).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate a CLI printed: kept escaped, the row says so
            row = jsonl.escaped_row(dict(row))
            data = jsonl.line(row).encode("utf-8")
        if self.seal_with is not None:
            data = sealed(self.seal_with, data)
        return data + b"\n", row

    def _write(self, data: bytes) -> None:
        written = os.write(self._fd, data)
        while written < len(data):  # a short write is rare on a regular file; finish it
            written += os.write(self._fd, data[written:])

    def close(self) -> None:
        if self._fd >= 0:
            os.fsync(self._fd)
            os.close(self._fd)
            self._fd = -1


def _cost_problem(row: Any) -> str:
    """Why a row's cost cannot count toward the budget (NaN would stop it ever stopping)."""
    if not isinstance(row, dict) or row.get("cost_usd") is None:
        return ""
    if is_dollars(row["cost_usd"]):
        return ""
    return f"cost_usd is {json.dumps(row['cost_usd'])}, not a finite number of dollars, 0 or more"


class Reserved(TypedDict):
    """A ledger line written before a call starts: what it holds, and for whom."""

    id: str
    reserve: float
    condition: str
    runner: str


class Settled(TypedDict):
    """A ledger line written once a reservation ends: what it was charged (0: its cost is on a row)."""

    id: str
    charged: float


class Ledger:
    """Reservations written before their calls start, and how each was settled (a plain class,
    not a dataclass: dataclasses imports inspect, about 8 ms of run's and judge's start-up).

    Lines: `{"id", "reserve", "condition", "runner"}` when a call starts, then
    `{"id", "charged"}` when it ends (0 when its cost is on its row). A
    reservation never settled belongs to a run that was killed: it counts as
    charged, since the call may have spent it. A row written just before a kill
    can so be counted twice; never less than was spent.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.charged: dict[tuple[str, str], float] = {}  # (condition, runner) -> USD
        self._lock = threading.Lock()
        self._fd = -1
        self._ids: Iterator[str] = iter(())

    @classmethod
    def beside(cls, output: Path, owner: str) -> "Ledger":
        real = Path(os.path.realpath(output))  # one file, one ledger, whichever symlink names it
        ledger = cls(real.with_name(real.name + ".ledger"))
        ledger._read()
        ledger._ids = (f"{owner}-{n}" for n in itertools.count(1))
        return ledger

    def _read(self) -> None:
        if not os.path.lexists(self.path):  # a symlink loop "does not exist", yet names a file
            return
        open_: dict[str, tuple[tuple[str, str], float]] = {}
        try:
            stream = open_limited(self.path)
        except OSError as exc:  # a FIFO, a sparse 5 GB file, a symlink loop: said, never waited on
            raise OutputError(
                f"{self.path}: the ledger beside the output cannot be read ({exc.strerror or exc}); "
                "it holds what earlier runs were charged: repair or remove it (and the output) first"
            ) from exc
        with stream:
            for raw in stream:
                try:
                    entry = json.loads(raw)
                    if "reserve" in entry:
                        open_[str(entry["id"])] = (
                            (str(entry["condition"]), str(entry["runner"])),
                            _dollars(entry["reserve"]),
                        )
                    elif str(entry["id"]) in open_:
                        scope, _ = open_.pop(str(entry["id"]))
                        self._add(scope, _dollars(entry["charged"]))
                except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
                    continue  # a torn line: a torn reservation's call never started (it is written
                    # first); a torn settlement leaves its reservation open, so charged
        for scope, usd in open_.values():
            self._add(scope, usd)

    def _add(self, scope: tuple[str, str], usd: float) -> None:
        self.charged[scope] = self.charged.get(scope, 0.0) + usd

    def reserve(self, usd: float, condition: str, runner: str) -> str:
        with self._lock:  # workers reserve at once: a generator entered twice raises ValueError
            ticket = str(next(self._ids))
        self._write({"id": ticket, "reserve": usd, "condition": condition, "runner": runner})
        return ticket

    def settle(self, ticket: str, charged: float, scope: tuple[str, str]) -> None:
        self._write({"id": ticket, "charged": charged})
        with self._lock:
            self._add(scope, charged)

    def _write(self, entry: Reserved | Settled) -> None:
        data = ("\n" + jsonl.line(entry) + "\n").encode()  # a leading newline ends a torn line
        with self._lock:
            try:
                if self._fd < 0:  # created at the first reservation: a stub run leaves no ledger
                    self._fd = os.open(
                        self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644
                    )
                os.write(self._fd, data)
            except OSError as exc:  # a full disk: said; a reservation unwritten starts no call
                raise OutputError(
                    f"{self.path}: the ledger beside the output cannot be written ({exc.strerror or exc}); "
                    "no call starts before its reservation is written"
                ) from exc

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _dollars(value: Any) -> float:
    if not is_dollars(value):
        raise ValueError(f"not dollars: {value!r}")
    return float(value)


def _resumable(path: Path) -> None:
    """Refuse, unread, an existing output that is not a bounded regular file (a 5 GB sparse file
    would be read line by line for minutes before any call)."""
    try:
        check_readable(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OutputError(
            f"{path}: cannot be resumed ({exc.strerror or exc}); write to another --output"
        ) from exc


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
