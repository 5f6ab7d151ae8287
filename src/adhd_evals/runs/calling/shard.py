"""Shards: which plan rows a worker of an index/total scheduler runs, and the seal on its rows.

A case belongs to shard K of N by a stable hash of its id (the first eight
bytes of its SHA-256, modulo N, plus one), so every trial and condition of a
case land in one shard and a pair is never split across machines. K counts
from 1, as GitLab's CI_NODE_INDEX does. `--shard auto` reads the index from
the scheduler running the process (see `from_environment`).

A shard's output keeps the reference's row format, plus one key a reader
ignores: each row's `seal`, a SHA-256 over the catalog's hash and the row's
line as written, so merge names a row edited since, or a shard whose record
was moved onto another catalog. What merge needs to prove the shards belong
together is a sidecar file beside it, `<output>.shard.json` (sidecar.py).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Final, Protocol

from ...errors import UsageError

if TYPE_CHECKING:
    from pathlib import Path

SIDECAR_SUFFIX = ".shard.json"  # a shard's record, beside its output (sidecar.py)
# A judge's record, beside its output (judging/admission.py's): named here, below the judge, so
# merge can see whether a shard is a judge's without importing the judge's modules.
JUDGE_RECORD_SUFFIX = ".judge.json"
SEAL_KEY = "seal"
_SEAL_TAIL = b', "seal": "'  # how `jsonl.line` writes the last key of a sealed row


class _Hash(Protocol):
    """A running SHA-256 (hashlib's object): what `_seal_prefix` gives, copied per row."""

    def copy(self) -> _Hash: ...
    def update(self, data: bytes, /) -> None: ...
    def hexdigest(self) -> str: ...


_PREFIXES: dict[str, _Hash] = {}  # catalog hash -> a SHA-256 fed the seal's first part


def sidecar_path(output: Path) -> Path:
    """Where a shard's record sits beside its output. Here, not in sidecar.py, so that opening an
    output (Store.open) asks whether one is there without importing the record's reader."""
    return output.with_name(output.name + SIDECAR_SUFFIX)


def ids_sha256(ids: Iterable[str]) -> str:
    """The digest of a list of case ids, in order (a plan's, or a slice's): each id followed by a
    newline, hashed as one text (joined at C speed: a shard digests every id of the catalog)."""
    text = "".join(f"{case_id}\n" for case_id in ids)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def seal(catalog_sha256: str, line: bytes) -> str:
    """A row's seal: SHA-256 over the catalog's hash, a newline, and the row's line as written
    without its seal (UTF-8, no newline)."""
    digest = _seal_prefix(catalog_sha256).copy()
    digest.update(line)
    return digest.hexdigest()


def _seal_prefix(catalog_sha256: str) -> _Hash:
    """A SHA-256 fed the first part of every seal of a catalog (its hash and a newline): a copy
    of it per row, not the two joined into a new string per row. Not to be updated itself."""
    prefix = _PREFIXES.get(catalog_sha256)
    if prefix is None:
        prefix = _PREFIXES[catalog_sha256] = hashlib.sha256(catalog_sha256.encode("ascii", "replace") + b"\n")
    return prefix


def sealed(catalog_sha256: str, line: bytes) -> bytes:
    """The row's line with its seal as the last key (`line` is one JSON object)."""
    return line[:-1] + _SEAL_TAIL + seal(catalog_sha256, line).encode() + b'"}'


def seal_holds(catalog_sha256: str, raw: bytes) -> bool:
    """Whether a line read back is a sealed row exactly as written for this catalog (`opener`)."""
    return opener(catalog_sha256)(raw) is not None


def opener(catalog_sha256: str) -> Callable[[bytes], bytes | None]:
    """For merge's loop, the catalog's part of the hash bound once: a line read back, as an
    unsharded run writes it (its seal taken off, its leading blanks kept, a newline at its end)
    when it is a sealed row exactly as written for this catalog, else None. The seal's tail is
    looked for where the last 77 bytes begin (no later tail can start inside 64 hex digits and
    '"}'), and the seal those bytes carry must be the one its line makes."""
    prefix, tail = _seal_prefix(catalog_sha256), len(_SEAL_TAIL)
    written = tail + 64 + 3  # the tail, 64 hex digits and '"}\n': the end of every line a shard writes

    def opened(raw: bytes) -> bytes | None:
        at = len(raw) - written
        if at > 0 and raw[-3:] == b'"}\n' and raw[:1] == b"{" and raw[at : at + tail] == _SEAL_TAIL:
            body = raw[:at]  # a line as a shard writes it (nothing to strip): its seal checked in place
            digest = prefix.copy()
            digest.update(body)
            digest.update(b"}")
            return body + b"}\n" if digest.hexdigest().encode("ascii") == raw[at + tail : -3] else None
        line = raw.strip()
        at = len(line) - tail - 66
        if at < 0 or line[at : at + tail] != _SEAL_TAIL or line[-2:] != b'"}':
            return None
        digest = prefix.copy()
        digest.update(line[:at])
        digest.update(b"}")
        if digest.hexdigest().encode("ascii") != line[at + tail : -2]:
            return None
        if raw[:1] != line[:1]:  # leading blanks (rare): kept, as the line was written
            at += len(raw) - len(raw.lstrip())
        return raw[:at] + b"}\n"

    return opened


class Shard:
    """Shard `index` (1-based) of `count`, a value: equal and hashed by both numbers."""

    # A plain class, not a frozen dataclass: importing dataclasses (and inspect with it) cost
    # about 8 ms of every `run` start-up. (A NamedTuple cannot name a field index or count.)
    __slots__ = ("count", "index")

    def __init__(self, index: int, count: int) -> None:
        self.index: Final = index
        self.count: Final = count

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Shard):
            return NotImplemented
        return (self.index, self.count) == (other.index, other.count)

    def __hash__(self) -> int:
        return hash((self.index, self.count))

    def __repr__(self) -> str:
        return f"Shard(index={self.index!r}, count={self.count!r})"

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, case_id: str) -> bool:
        return shard_of(case_id, self.count) == self.index

    def places(self, ids: Iterable[str]) -> list[int]:
        """The places (0-based, in order) of the ids this shard holds: `holds` over a catalog's
        every id, without a call per id (a shard's plan needs all 10,000 of a 10,000-case catalog)."""
        sha256, count, remainder = hashlib.sha256, self.count, self.index - 1
        return [
            at
            for at, case_id in enumerate(ids)
            if int.from_bytes(sha256(case_id.encode("utf-8", "surrogatepass")).digest()[:8], "big") % count
            == remainder
        ]


def shard_of(case_id: str, count: int) -> int:
    """The 1-based shard of a case id: stable across runs, machines and Python versions."""
    digest = hashlib.sha256(case_id.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def parse(spec: str, *, count: int | None = None, env: Mapping[str, str] | None = None) -> Shard:
    """`K/N` (1 <= K <= N), or `auto` from the scheduler's environment."""
    if spec == "auto":
        return from_environment(os.environ if env is None else env, count)
    index, slash, total = spec.partition("/")
    if not slash or not index.isdigit() or not total.isdigit():
        raise UsageError(f"--shard must be K/N (for example 2/4) or auto, not {spec!r}")
    return _checked(int(index), int(total), f"--shard {spec}", count)


def _checked(index: int, total: int, where: str, count: int | None) -> Shard:
    if total < 1 or not 1 <= index <= total:
        raise UsageError(f"{where}: the shard index counts from 1 to the shard count (K/N with 1 <= K <= N)")
    if count is not None and count != total:
        raise UsageError(f"{where} says {total} shards but --shard-count says {count}")
    return Shard(index, total)


SCHEDULERS = (
    ("GitLab (CI_NODE_INDEX, 1-based)", "CI_NODE_INDEX"),
    ("Kubernetes Indexed Job (JOB_COMPLETION_INDEX, 0-based)", "JOB_COMPLETION_INDEX"),
    ("Slurm array (SLURM_ARRAY_TASK_ID)", "SLURM_ARRAY_TASK_ID"),
)


def from_environment(env: Mapping[str, str], count: int | None) -> Shard:
    """The shard a scheduler gave this process. Exactly one scheduler's variables must be set:
    two would mean guessing which one is running us."""
    present = [name for name, variable in SCHEDULERS if variable in env]
    if not present:
        raise UsageError(
            "--shard auto found no scheduler: set by GitLab (CI_NODE_INDEX, CI_NODE_TOTAL), "
            "a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with --shard-count N) or a Slurm "
            "array (SLURM_ARRAY_TASK_ID); elsewhere pass --shard K/N"
        )
    if len(present) > 1:
        raise UsageError(
            f"--shard auto found more than one scheduler ({'; '.join(present)}): pass --shard K/N"
        )
    if "CI_NODE_INDEX" in env:
        return _checked(
            _int(env, "CI_NODE_INDEX"), _int(env, "CI_NODE_TOTAL"), "GitLab's CI_NODE_INDEX", count
        )
    if "JOB_COMPLETION_INDEX" in env:
        if count is None:
            raise UsageError(
                "JOB_COMPLETION_INDEX does not carry the shard count: pass --shard-count N "
                "(the Job's completions)"
            )
        return _checked(_int(env, "JOB_COMPLETION_INDEX") + 1, count, "JOB_COMPLETION_INDEX (0-based)", None)
    return _slurm(env, count)


def _slurm(env: Mapping[str, str], count: int | None) -> Shard:
    """Slurm numbers tasks as the --array spec says (0-3, 1-4, 0-15:4, ...). A task's shard is
    its place in the array: (ID - MIN) / STEP + 1, for an evenly spaced array of COUNT tasks."""
    task, low = _int(env, "SLURM_ARRAY_TASK_ID"), _int(env, "SLURM_ARRAY_TASK_MIN")
    total, high = _int(env, "SLURM_ARRAY_TASK_COUNT"), _int(env, "SLURM_ARRAY_TASK_MAX")
    step = _int(env, "SLURM_ARRAY_TASK_STEP") if "SLURM_ARRAY_TASK_STEP" in env else 1
    even = step >= 1 and (task - low) % step == 0 and high == low + (total - 1) * step
    if not even:
        raise UsageError(
            f"the Slurm array (tasks {low}-{high}, step {step}, {total} tasks) is not evenly "
            "spaced, so a task's shard cannot be told: use --array=0-(N-1), or pass "
            "--shard $((SLURM_ARRAY_TASK_ID + 1))/N"
        )
    return _checked((task - low) // step + 1, total, f"SLURM_ARRAY_TASK_ID {task}", count)


def _int(env: Mapping[str, str], name: str) -> int:
    value = env.get(name, "")
    if not value.strip().isdigit():
        shown = f"{value!r}" if name in env else "unset"
        raise UsageError(f"--shard auto: {name} is {shown}, not a whole number")
    return int(value)


def budget(per_shard: float | None, total: float | None, shard: Shard | None, default: float) -> float:
    """A shard's budget: --budget-usd as given, or --shard-budget-total divided evenly."""
    if total is None:
        return default if per_shard is None else per_shard
    if per_shard is not None:
        raise UsageError("--budget-usd and --shard-budget-total both set the budget: pass one")
    if shard is None:
        raise UsageError("--shard-budget-total divides a budget among shards: pass --shard too")
    return total / shard.count
