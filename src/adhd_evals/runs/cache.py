"""The response cache: pay once per answer.

An entry is keyed on everything that decides a response: the runner's
command and config as run (response format and prompt placement included),
the exact prompt bytes sent (a candidate's skill file and the condition's
wrapping are inside them), and the trial index, so three trials stay three
answers and a changed SKILL.md misses while the unchanged baseline hits.
The budget share told to a budget flag is not in the key: it caps spend, it
does not decide the answer.

Entries are files `DIR/v1/ab/<sha256>.json`, each written to a temporary
sibling and renamed into place: a reader sees a whole entry or none, and
runs sharing the folder read and write it at once. A reader also checks the
entry names its own key (a damaged or foreign file is a miss, never served).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import exitcodes
from ..errors import ScaleRefused
from ..files import open_limited
from .config import Runner

LAYOUT = "v1"
TEMP_MARK = ".tmp-"
_KILL_AT = "ADHD_EVALS_TEST_KILL_AT"  # tests kill a writer halfway through an entry


def default_dir() -> Path:
    """$XDG_CACHE_HOME/adhd-evals/responses (~/.cache when XDG_CACHE_HOME is unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "adhd-evals" / "responses"


def key(runner: Runner, prompt: str, trial: int) -> str:
    """The entry's key: a SHA-256 over the runner as run, the prompt's bytes and the trial."""
    made = json.dumps(
        [
            LAYOUT,
            list(runner.command),
            runner.response_format,
            runner.budget_flag,
            runner.prompt_via,
            # the built-in stub has no command: its name is what runs
            runner.name if not runner.command else None,
            trial,
        ],
        ensure_ascii=True,
    )
    digest = hashlib.sha256(made.encode())
    digest.update(b"\0")
    digest.update(prompt.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


@dataclass(frozen=True)
class Hit:
    response: str
    usage: Any  # as the CLI reported it: the reference writes any JSON value
    cost_usd: float | None
    elapsed_s: float
    trace: Any = None  # the row's trace (traces.py), when its runner records one


class Cache:
    def __init__(self, root: Path, *, refresh: bool = False) -> None:
        self.root, self.refresh = root, refresh
        self.entries = root / LAYOUT
        self.hits, self.hit_cost = 0, 0.0  # what this run took from the cache, and what it first cost
        self._lock = threading.Lock()

    @classmethod
    def open(cls, root: Path, *, refresh: bool = False) -> Cache:
        try:
            (root / LAYOUT).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ScaleRefused(
                [f"the response cache {root} cannot be used: {exc.strerror or exc}"], exitcodes.CACHE_UNUSABLE
            ) from exc
        if not os.access(root / LAYOUT, os.W_OK | os.X_OK):
            raise ScaleRefused([f"the response cache {root} is not writable"], exitcodes.CACHE_UNUSABLE)
        return cls(root, refresh=refresh)

    def path(self, digest: str) -> Path:
        return self.entries / digest[:2] / f"{digest}.json"

    def get(self, digest: str) -> Hit | None:
        """The entry, or None: absent, refreshed, or not a whole entry of this key."""
        if self.refresh:
            return None
        try:
            with open_limited(self.path(digest)) as stream:  # a FIFO planted here cannot block a run
                entry = json.loads(stream.read())
        except (OSError, ValueError, RecursionError):
            return None
        hit = _hit(entry, digest)
        if hit is not None:
            with self._lock:
                self.hits += 1
                self.hit_cost += hit.cost_usd or 0.0
        return hit

    def put(self, digest: str, hit: Hit) -> None:
        """Write the entry whole, then rename it into place; a cache that cannot be written
        costs the next run a call, never this run its row."""
        entry = {
            "key": digest,
            "stored_at": round(time.time(), 3),
            "response": hit.response,
            "usage": hit.usage,
            "cost_usd": hit.cost_usd,
            "elapsed_s": hit.elapsed_s,
        }
        if hit.trace is not None:
            entry["trace"] = hit.trace
        data = json.dumps(entry, ensure_ascii=False).encode("utf-8", "surrogatepass")
        target = self.path(digest)
        temp = target.with_name(f".{target.name}{TEMP_MARK}{os.getpid()}-{os.urandom(4).hex()}")
        with contextlib.suppress(OSError):
            target.parent.mkdir(exist_ok=True)
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                half = len(data) // 2
                os.write(fd, data[:half])
                if os.environ.get(_KILL_AT) == "cache-entry":
                    import signal

                    os.kill(os.getpid(), signal.SIGKILL)
                os.write(fd, data[half:])
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, target)
        with contextlib.suppress(OSError):
            temp.unlink()

    def store(self, digest: str, row: dict[str, Any]) -> None:
        """Keep a row a call just paid for."""
        self.put(
            digest, Hit(row["response"], row["usage"], row["cost_usd"], row["elapsed_s"], row.get("trace"))
        )


def cached_row(
    cache: Cache, runner: Runner, condition: str, case_id: str, trial: int, prompt: str
) -> tuple[dict[str, Any] | None, str]:
    """The row a hit writes (`cached: true`, the original cost and time kept, charged nothing
    now), or None on a miss; and the key, for storing what the call returns."""
    digest = key(runner, prompt, trial)
    hit = cache.get(digest)
    if hit is None:
        return None, digest
    row = {
        "case_id": case_id,
        "trial": trial,
        "condition": condition,
        "runner": runner.name,
        "response": hit.response,
        "usage": hit.usage,
        "cost_usd": hit.cost_usd,
        "elapsed_s": hit.elapsed_s,
        "cached": True,
    }
    if hit.trace is not None:
        row["trace"] = hit.trace
    return row, digest


def _hit(entry: Any, digest: str) -> Hit | None:
    if not isinstance(entry, dict) or entry.get("key") != digest:
        return None
    response, usage, cost, elapsed = (entry.get(k) for k in ("response", "usage", "cost_usd", "elapsed_s"))
    if not isinstance(response, str) or "usage" not in entry:
        return None
    if cost is not None and (isinstance(cost, bool) or not isinstance(cost, (int, float))):
        return None
    if isinstance(elapsed, bool) or not isinstance(elapsed, (int, float)):
        return None
    trace = entry.get("trace")
    if trace is not None and not isinstance(trace, dict):
        return None
    return Hit(response, usage, cost, elapsed, trace)


# Maintenance: `adhd-evals cache stats`, `adhd-evals cache prune --older-than` -----------------


def _files(root: Path) -> Iterator[os.DirEntry[str]]:
    try:
        folders = list(os.scandir(root / LAYOUT))
    except OSError:
        return
    for folder in folders:
        if folder.is_dir(follow_symlinks=False):
            with contextlib.suppress(OSError):
                yield from (f for f in os.scandir(folder.path) if f.is_file(follow_symlinks=False))


@dataclass
class Stats:
    entries: int = 0
    bytes: int = 0
    recorded_cost_usd: float = 0.0
    unmetered: int = 0
    oldest: float | None = None
    newest: float | None = None
    temporary: int = 0


def stats(root: Path) -> Stats:
    """What the cache holds: entries, bytes, what they cost when they were made, their ages."""
    found = Stats()
    for item in _files(root):
        info = item.stat(follow_symlinks=False)
        if TEMP_MARK in item.name:
            found.temporary += 1
            continue
        found.entries += 1
        found.bytes += info.st_size
        found.oldest = min(found.oldest or info.st_mtime, info.st_mtime)
        found.newest = max(found.newest or info.st_mtime, info.st_mtime)
        with contextlib.suppress(OSError, ValueError):
            cost = json.loads(Path(item.path).read_bytes()).get("cost_usd")
            if isinstance(cost, (int, float)) and not isinstance(cost, bool):
                found.recorded_cost_usd += cost
            else:
                found.unmetered += 1
    return found


TEMP_GRACE_S = 3600.0  # a temporary entry this old belongs to a writer that died


def prune(root: Path, older_than_s: float, *, now: float | None = None) -> tuple[int, int]:
    """Remove entries not written for `older_than_s` seconds, and temporary files a killed
    writer left; returns (entries removed, bytes freed)."""
    now = time.time() if now is None else now
    removed = freed = 0
    for item in _files(root):
        with contextlib.suppress(OSError):
            info = item.stat(follow_symlinks=False)
            age = now - info.st_mtime
            if age > (TEMP_GRACE_S if TEMP_MARK in item.name else older_than_s):
                os.unlink(item.path)
                removed += TEMP_MARK not in item.name
                freed += info.st_size
    return removed, freed


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_age(text: str) -> float:
    """`30d`, `12h`, `90m`, `45s` or `2w` as seconds."""
    from ..errors import UsageError

    number, unit = text[:-1], text[-1:].lower()
    if unit not in _UNITS or not number.isdigit():
        raise UsageError(
            f"--older-than must be a whole number and a unit (s, m, h, d or w), like 30d; not {text!r}"
        )
    return int(number) * float(_UNITS[unit])


def stats_lines(root: Path, found: Stats) -> list[str]:
    from datetime import datetime, timezone

    from ..text import plural

    def when(stamp: float | None) -> str:
        return (
            "-"
            if stamp is None
            else datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        )

    lines = [
        f"Cache {root}: {plural(found.entries, 'entry', 'entries')}, {found.bytes:,} bytes.",
        f"They cost ${found.recorded_cost_usd:.4f} when they were made"
        + (f" ({found.unmetered} reported no cost)." if found.unmetered else "."),
        f"Oldest {when(found.oldest)}, newest {when(found.newest)}.",
    ]
    if found.temporary:
        lines.append(
            f"{plural(found.temporary, 'unfinished entry', 'unfinished entries')} (a writer was "
            "killed; never served; 'cache prune' removes them after an hour)."
        )
    return lines
