"""The response cache: pay once per answer.

An entry is keyed on everything that decides a response: the runner's
command and config as run (response format and prompt placement included),
the exact prompt bytes sent (a candidate's skill file and the condition's
wrapping are inside them), the trial index and the case id, so three trials
stay three answers, two cases sharing a prompt stay two independent answers,
and a changed SKILL.md misses while the unchanged baseline hits.
The budget share told to a budget flag is not in the key: it caps spend, it
does not decide the answer.

Entries are files `DIR/v1/ab/<sha256>.json`, each written to a temporary
sibling and renamed into place: a reader sees a whole entry or none, and
runs sharing the folder read and write it at once. A reader also checks the
entry names its own key and that its content matches the digest it carries,
with a cost that is dollars (a damaged, edited or foreign file is a miss with
a warning, never served, and `cache stats` counts it).
"""

# No `from __future__ import annotations`: a NamedTuple's (and a TypedDict's) string annotations are
# compiled one by one into ForwardRefs on every run's start-up (docs/startup.md); the few names
# only type checkers import stay quoted.
import contextlib
import functools
import hashlib
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from ... import exitcodes
from ...errors import ScaleRefused
from ...files import read_limited
from .config import Runner
from .home import default_dir as default_dir  # the cache's folder: its home is home.py
from .responses import is_dollars

if TYPE_CHECKING:
    from ..rows import ResponseRow

CacheAction = Literal["stats", "prune"]  # what the cache command does
LAYOUT = "v2"  # v2: the case id in the key, a digest of each entry's content
TEMP_MARK = ".tmp-"
_KILL_AT = "ADHD_EVALS_TEST_KILL_AT"  # tests kill a writer halfway through an entry


def key(runner: Runner, prompt: str, trial: int, *, case_id: str) -> str:
    """The entry's key: a SHA-256 over the runner as run, the case, the trial and the prompt's
    bytes. The runner's part is the JSON list `[layout, command, response_format, budget_flag,
    prompt_via, name or null, trial, case_id]` (json.dumps, ASCII), then a NUL, then the prompt."""
    made = f"{_runner_part(runner)}, {trial}, {_ASCII(case_id)}]"  # json.dumps of the whole list
    digest = hashlib.sha256(made.encode())
    digest.update(b"\0")
    digest.update(prompt.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


_ASCII: Any = json.encoder.encode_basestring_ascii  # json.dumps(text, ensure_ascii=True), at C speed


@functools.lru_cache(maxsize=16)
def _runner_part(runner: Runner) -> str:
    """The key's JSON list up to its trial, without the closing bracket: the same for every
    row a runner answers, so made once (10,000 cache hits made it 10,000 times)."""
    made = json.dumps(
        [
            LAYOUT,
            list(runner.command),
            runner.response_format,
            runner.budget_flag,
            runner.prompt_via,
            # the built-in stub has no command: its name is what runs
            runner.name if not runner.command else None,
        ],
        ensure_ascii=True,
    )
    return made[:-1]


class Hit(NamedTuple):
    """A cached answer, as its entry holds it. A NamedTuple, not a dataclass: dataclasses imports inspect, about 8 ms of run's and judge's start-up."""

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
        self.damaged = 0  # entries of a wanted key not served: edited, torn, or a cost not dollars
        self._lock = threading.Lock()
        self._entries = os.fspath(self.entries)

    @classmethod
    def open(cls, root: Path, *, refresh: bool = False) -> "Cache":
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
        return Path(self._file(digest))

    def _file(self, digest: str) -> str:
        """The entry's path as text: a hit opens it by name, no Path built (a Path made and
        turned back into text cost a hit about 5 us, a tenth of its read)."""
        return f"{self._entries}/{digest[:2]}/{digest}.json"

    def get(self, digest: str) -> Hit | None:
        """The entry, or None: absent, refreshed, or not a whole entry of this key."""
        if self.refresh:
            return None
        try:
            entry = json.loads(read_limited(self._file(digest)))  # a FIFO planted here cannot block a run
        except FileNotFoundError:
            return None
        except (OSError, ValueError, RecursionError):
            entry = None
        hit = _hit(entry, digest)
        with self._lock:
            if hit is None:
                self.damaged += 1
            else:
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
            "sha256": _content(digest, hit),
        }
        if hit.trace is not None:
            entry["trace"] = hit.trace
        data = json.dumps(entry, ensure_ascii=True).encode()  # a lone surrogate as its JSON escape
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

    def store(self, digest: str, row: "ResponseRow") -> None:
        """Keep a row a call just paid for."""
        self.put(
            digest, Hit(row["response"], row["usage"], row["cost_usd"], row["elapsed_s"], row.get("trace"))
        )


def cached_row(
    cache: Cache, runner: Runner, condition: str, case_id: str, trial: int, prompt: str
) -> "tuple[ResponseRow | None, str]":
    """The row a hit writes (`cached: true`, the original cost and time kept, charged nothing
    now), or None on a miss; and the key, for storing what the call returns."""
    digest = key(runner, prompt, trial, case_id=case_id)
    hit = cache.get(digest)
    if hit is None:
        return None, digest
    row: ResponseRow = {
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


def _content(digest: str, hit: Hit) -> str:
    """The digest of what an entry serves, over its key and fields as JSON (ASCII, keys sorted)."""
    fields = [digest, hit.response, hit.usage, hit.cost_usd, hit.elapsed_s]
    if hit.trace is not None:  # an entry without a trace keeps the digest it had before traces
        fields.append(hit.trace)
    return hashlib.sha256(_SORTED(fields).encode()).hexdigest()


# json.dumps(value, ensure_ascii=True, sort_keys=True), its encoder built once, not per entry
_SORTED = json.JSONEncoder(ensure_ascii=True, sort_keys=True).encode


def _hit(entry: Any, digest: str | None) -> Hit | None:
    """The entry as served, or None: not this key's (`digest`; None: any key), a field of a type
    no run writes, a cost or time that is not a finite amount 0 or more, or content that does
    not match its digest (edited since it was written)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
        return None
    if digest is not None and entry["key"] != digest:
        return None
    response, usage, cost, elapsed = (
        entry.get("response"),
        entry.get("usage"),
        entry.get("cost_usd"),
        entry.get("elapsed_s"),
    )
    if not isinstance(response, str) or "usage" not in entry:
        return None
    if (cost is not None and not is_dollars(cost)) or not is_dollars(elapsed):
        return None
    trace = entry.get("trace")
    if trace is not None and not isinstance(trace, dict):
        return None
    hit = Hit(response, usage, cost, elapsed, trace)
    return hit if entry.get("sha256") == _content(entry["key"], hit) else None


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


class Stats:
    """What `cache stats` counts, from nothing. A plain class, not a dataclass: dataclasses imports inspect, about 8 ms of run's and judge's start-up."""

    def __init__(self) -> None:
        self.entries = 0
        self.bytes = 0
        self.recorded_cost_usd = 0.0
        self.unmetered = 0
        self.oldest: float | None = None
        self.newest: float | None = None
        self.temporary = 0
        self.damaged = 0  # never served: torn, edited, a cost not dollars, or not a file one may read


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
        hit = _entry(Path(item.path))
        if hit is None:
            found.damaged += 1
        elif hit.cost_usd is None:
            found.unmetered += 1
        else:
            found.recorded_cost_usd += hit.cost_usd
    return found


def _entry(path: Path) -> Hit | None:
    """An entry as a run would serve it, read through the bounded reader (a 5 GB sparse file is
    refused unread), or None."""
    try:
        return _hit(json.loads(read_limited(path)), None)
    except (OSError, ValueError, RecursionError):
        return None


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
    from ...errors import UsageError

    number, unit = text[:-1], text[-1:].lower()
    if unit not in _UNITS or not number.isdigit():
        raise UsageError(
            f"--older-than must be a whole number and a unit (s, m, h, d or w), like 30d; not {text!r}"
        )
    return int(number) * float(_UNITS[unit])


def damaged_line(count: int) -> str:
    """The warning for entries a run did not serve."""
    from ...text import plural

    return (
        f"Warning: {plural(count, 'cache entry', 'cache entries')} not served: their content does not "
        "match their digest, or their cost is not dollars; called again, and replaced."
    )


def stats_lines(root: Path, found: Stats) -> list[str]:
    from datetime import datetime, timezone

    from ...text import plural, usd

    def when(stamp: float | None) -> str:
        return (
            "-"
            if stamp is None
            else datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        )

    lines = [
        f"Cache {root}: {plural(found.entries, 'entry', 'entries')}, {found.bytes:,} bytes.",
        f"They cost {usd(found.recorded_cost_usd)} when they were made"
        + (f" ({found.unmetered} reported no cost)." if found.unmetered else "."),
        f"Oldest {when(found.oldest)}, newest {when(found.newest)}.",
    ]
    if found.damaged:
        lines.append(
            f"{plural(found.damaged, 'damaged entry', 'damaged entries')} (its content does not match its "
            "digest; never served; a run that needs it calls again and replaces it)."
        )
    if found.temporary:
        lines.append(
            f"{plural(found.temporary, 'unfinished entry', 'unfinished entries')} (a writer was "
            "killed; never served; 'cache prune' removes them after an hour)."
        )
    return lines
