"""`adhd-evals plan --estimate`: the bill and the wait before they come.

For each runner and condition of the plan: the calls, the expected cost
(low / median / high) and the expected wall time at `--jobs N`, from
earlier runs' rows (`--history`). A call is priced from the recorded
`cost_usd` of the same case under the same runner and condition; a case
never run before is priced from every case recorded for that runner and
condition. Low, median and high are the sums over the calls of each call's
lowest, median and highest recorded cost; time is the sum of each call's
median `elapsed_s`, divided by the jobs (calls spread evenly over workers).

Where nothing was recorded the figure is "unknown", never $0. A call the
response cache already answers (`--cache`) costs nothing and takes no time.
Rows that were themselves cache hits are not samples (their cost was paid by
the run that made them, whose row is the sample).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from ...text import plural, table
from .responses import is_dollars

if TYPE_CHECKING:
    from ...catalog import CaseRow

Samples = dict[tuple[str, str, str], list[float]]  # (runner, condition, case id) -> values


@dataclass
class History:
    cost: Samples = field(default_factory=lambda: defaultdict(list))
    elapsed: Samples = field(default_factory=lambda: defaultdict(list))

    def add(self, row: Mapping[str, object]) -> None:
        names = (row.get("runner"), row.get("condition"), row.get("case_id"))
        if row.get("cached") is True or not all(isinstance(n, str) for n in names):
            return
        where = (str(names[0]), str(names[1]), str(names[2]))
        for kind, name in ((self.cost, "cost_usd"), (self.elapsed, "elapsed_s")):
            value = row.get(name)
            if is_dollars(value):  # finite, 0 or more: an Infinity would price every call at inf
                kind[where].append(float(value))


def read_history(paths: Iterable[Path]) -> History:
    from ...catalog import read_object_rows

    history = History()
    for path in paths:
        for row in read_object_rows(path, what="history file"):
            history.add(row)
    return history


class CostSpread(TypedDict):
    """What the planned calls may cost: each case priced at its lowest, median and highest."""

    low: float
    median: float
    high: float


class LineJson(TypedDict):
    """One line of `plan --estimate --json`."""

    runner: str
    condition: str
    calls: int
    cached: int
    cost_usd: CostSpread | None  # None: a call has no recorded cost
    calls_without_recorded_cost: int
    wall_s: float | None  # None: a call has no recorded time


@dataclass
class Line:
    runner: str
    condition: str
    calls: int = 0
    cached: int = 0
    low: float = 0.0
    median: float = 0.0
    high: float = 0.0
    seconds: float = 0.0
    unpriced: int = 0  # calls with no recorded cost: the cost is unknown
    untimed: int = 0

    def as_json(self, jobs: int) -> LineJson:
        cost: CostSpread | None = (
            None if self.unpriced else {"low": self.low, "median": self.median, "high": self.high}
        )
        return {
            "runner": self.runner,
            "condition": self.condition,
            "calls": self.calls,
            "cached": self.cached,
            "cost_usd": cost,
            "calls_without_recorded_cost": self.unpriced,
            "wall_s": None if self.untimed else self.seconds / jobs,
        }


def _spread(values: list[float]) -> tuple[float, float, float]:
    return min(values), statistics.median(values), max(values)


def _pooled(samples: Samples) -> Samples:
    """(runner, condition, "") -> every case's values: the price of a case never run."""
    pooled: Samples = defaultdict(list)
    for (runner, condition, _), values in samples.items():
        pooled[(runner, condition, "")].extend(values)
    return pooled


def estimate(calls: Iterable[tuple[str, str, str, bool]], history: History, free: set[str]) -> list[Line]:
    """Lines per (runner, condition) for planned calls `(runner, condition, case id, cached)`;
    runners in `free` (the built-in stub) cost nothing and take no time whatever was recorded."""
    lines: dict[tuple[str, str], Line] = {}
    pooled_cost, pooled_time = _pooled(history.cost), _pooled(history.elapsed)
    for runner, condition, case_id, cached in calls:
        line = lines.setdefault((runner, condition), Line(runner, condition))
        line.calls += 1
        if cached or runner in free:
            line.cached += cached
            continue
        cost = history.cost.get((runner, condition, case_id)) or pooled_cost.get((runner, condition, ""))
        if cost:
            low, median, high = _spread(cost)
            line.low, line.median, line.high = line.low + low, line.median + median, line.high + high
        else:
            line.unpriced += 1
        took = history.elapsed.get((runner, condition, case_id)) or pooled_time.get((runner, condition, ""))
        if took:
            line.seconds += statistics.median(took)
        else:
            line.untimed += 1
    return list(lines.values())


def forecast(
    cases: list[CaseRow],
    trials: int,
    conditions: list[str],
    *,
    history: list[Path],
    runners: list[str],
    config: Path | None,
    skill: Path | None,
    cache: str | None,
) -> list[Line]:
    """The plan's lines: each runner (given, or named by the history) under each condition."""
    from ...errors import UsageError
    from .config import STUB

    recorded = read_history(history)
    names = runners or sorted(
        {runner for runner, _, _ in recorded.cost} | {r for r, _, _ in recorded.elapsed}
    )
    if not names:
        raise UsageError("plan --estimate: pass --runner NAME (no --history row names one)")
    answered = _answered(cache, config, skill, names) if cache is not None else None
    calls = [
        (name, condition, case["id"], bool(answered and answered(name, condition, case, trial)))
        for name in names
        for condition in conditions
        for trial in range(1, trials + 1)
        for case in cases
    ]
    free = {STUB} & set(names) if config is None else set()  # the built-in stub: free by construction
    return estimate(calls, recorded, free)


def _answered(where: str, config: Path | None, skill: Path | None, names: list[str]) -> Callable[..., bool]:
    """Whether the cache answers (runner, condition, case, trial): the key needs the prompt as sent."""
    from . import cache as caching
    from .config import load_runner
    from .prompts import condition_prompt, skill_text

    store = caching.Cache(Path(where) if where else caching.default_dir())
    runners = {name: load_runner(name, config) for name in names}
    wrapped: dict[str, str | None] = {}

    def answered(name: str, condition: str, case: CaseRow, trial: int) -> bool:
        if condition not in wrapped:
            wrapped[condition] = skill_text(condition, skill)
        prompt = condition_prompt(case["prompt"], wrapped[condition])
        return store.get(caching.key(runners[name], prompt, trial, case_id=case["id"])) is not None

    return answered


def total(lines: list[Line]) -> Line:
    whole = Line("total", "")
    for line in lines:
        whole.calls, whole.cached = whole.calls + line.calls, whole.cached + line.cached
        whole.low, whole.median, whole.high = (
            whole.low + line.low,
            whole.median + line.median,
            whole.high + line.high,
        )
        whole.seconds += line.seconds
        whole.unpriced, whole.untimed = whole.unpriced + line.unpriced, whole.untimed + line.untimed
    return whole


def duration(seconds: float) -> str:
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def report(lines: list[Line], jobs: int) -> list[str]:
    def money(value: float, line: Line) -> str:
        return "unknown" if line.unpriced else f"${value:.4f}"

    header = (
        "runner",
        "condition",
        "calls",
        "cached",
        "cost low",
        "cost median",
        "cost high",
        f"wall time (--jobs {jobs})",
    )
    rows = [header]
    for line in [*lines, total(lines)]:
        rows.append(
            (
                line.runner,
                line.condition,
                str(line.calls),
                str(line.cached),
                money(line.low, line),
                money(line.median, line),
                money(line.high, line),
                "unknown" if line.untimed else duration(line.seconds / jobs),
            )
        )
    out = table(rows)
    for line in lines:
        if line.unpriced:
            out.append(
                f"{line.runner} {line.condition}: {plural(line.unpriced, 'call')} with no recorded cost "
                "(no --history row of this runner and condition): its cost is unknown."
            )
    out.append(
        "Cached calls are free and take no time; wall time assumes the calls spread evenly over the jobs."
    )
    return out
