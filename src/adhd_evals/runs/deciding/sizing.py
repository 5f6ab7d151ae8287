"""`adhd-evals plan --from-scores`: size a suite from a run's spread before paying for more.

The variance of a case's Δ has two parts: how much cases differ (τ², which
more trials do not shrink) and how much trials of one case differ (σ², shrunk
by averaging k trials in each of two conditions): Var(Δ) = τ² + 2σ²/k. Both
are estimated from the scores given; the answer is the cases a planned number
of trials would need for each effect, at 80% power and 5% two-sided.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from statistics import NormalDist, fmean, variance

from ...text import plural
from ...text import table as text_table
from ..inference import paired as stats
from ..rows import ScoreRow
from ..rubric import WEIGHTS, Metric
from .decision import per_case

LADDER = (0.05, 0.1, 0.2, 0.3, 0.5, 1.0)


def spreads(grouped: Mapping[str, list[ScoreRow]], weights: dict[Metric, float]) -> dict[str, float]:
    """cases, trials (mean per case), sd of the weighted Δ, within-case trial sd, between-case sd."""
    series = per_case(grouped, weights)[0]["weighted_score"]
    deltas = [u / series.scale for u in series.units]
    sd = math.sqrt(variance(deltas)) if len(deltas) > 1 else 0.0
    trials: dict[tuple[str, str], list[float]] = defaultdict(list)
    for condition in ("baseline", "candidate"):
        for row in grouped[condition]:
            trials[(condition, row["case_id"])].append(sum(float(row[m]) * w for m, w in weights.items()))
    within = [variance(v) for v in trials.values() if len(v) > 1]
    sigma2 = fmean(within) if within else 0.0
    k = fmean(len(v) for v in trials.values())
    tau2 = max(0.0, sd**2 - 2 * sigma2 / k)
    return {
        "cases": float(len(deltas)),
        "trials": k,
        "sd": sd,
        "within": math.sqrt(sigma2),
        "between": math.sqrt(tau2),
        "mean": float(sum(series.units)) / (series.scale * len(deltas)) if deltas else 0.0,
    }


def sd_with(found: dict[str, float], trials: float) -> float:
    """The spread of Δ a run with `trials` trials per case would likely show."""
    return math.sqrt(found["between"] ** 2 + 2 * found["within"] ** 2 / trials)


def plan_lines(path: Path, key: Path | None, trials: int, effects: list[float]) -> list[str]:
    from . import score as scoring

    read = scoring.read_rows(path)
    rows: Sequence[Mapping[str, object]] = read  # as read; grouped_rows checks them
    if key is not None:
        rows = scoring.apply_key(read, scoring.read_key(key))
    grouped = scoring.grouped_rows(rows, dict(WEIGHTS))[0]
    found = spreads(grouped, dict(WEIGHTS))
    planned, observed = sd_with(found, trials), found["sd"]
    lines = [
        f"From {path}: {plural(int(found['cases']), 'case')}, {found['trials']:g} trials each on average; "
        f"weighted Δ per case: mean {found['mean']:+.2f}, spread (sd) {observed:.2f}.",
        f"Trials of one case differ by sd {found['within']:.2f}; cases differ by sd {found['between']:.2f} "
        "(more trials shrink only the first).",
        f"With {plural(trials, 'trial')} per case, the spread of Δ would be about {planned:.2f}.",
    ]
    rows_ = [
        [
            "effect (weighted Δ)",
            f"cases needed, {trials} trials",
            f"cases needed, {found['trials']:g} trials",
            f"likely range, {trials} trials",
        ]
    ]
    low, high = sd_bounds(int(found["cases"]))
    for effect in effects or LADDER:
        if not effect > 0 or not math.isfinite(effect):
            from ...errors import UsageError

            raise UsageError(f"--effect must be a positive number, not {effect:g}")
        rows_.append(
            [
                f"{effect:g}",
                _needed(planned, effect),
                _needed(observed, effect),
                _range(planned, effect, low, high),
            ]
        )
    lines += text_table(rows_)
    lines.append(
        f"The range: the cases needed were the spread at either end of its 95% interval from the pilot's "
        f"{plural(int(found['cases']), 'case')} (chi-square, Wilson-Hilferty); a small pilot knows its spread "
        "only roughly."
    )
    mde = stats.detectable(planned, int(found["cases"]))
    if mde is not None:
        lines.append(
            f"With the {plural(int(found['cases']), 'case')} you have and {plural(trials, 'trial')}: the smallest "
            f"detectable Δ is about {mde:.2f} (80% power, 5% two-sided)."
        )
    return lines


def chi2_quantile(p: float, df: int) -> float:
    """The p quantile of chi-square with df degrees of freedom, by Wilson and Hilferty's cube-root
    normal approximation (within about 1% from 5 degrees of freedom; 0 where it fails, at 1 or 2)."""
    z = NormalDist().inv_cdf(p)
    base = 1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))
    return df * max(0.0, base) ** 3


def sd_bounds(cases: int) -> tuple[float, float]:
    """The factors that take an observed sd of Δ from `cases` cases to the ends of its 95% interval:
    sqrt((n-1) / χ²(0.975)) and sqrt((n-1) / χ²(0.025)) (inf where the lower quantile is 0)."""
    if cases < 2:
        return 0.0, math.inf
    df = cases - 1
    upper = chi2_quantile(0.025, df)
    return math.sqrt(df / chi2_quantile(0.975, df)), (math.sqrt(df / upper) if upper > 0 else math.inf)


def _range(sd: float, effect: float, low: float, high: float) -> str:
    fewest = stats.cases_needed(sd * low, effect)
    most = stats.cases_needed(sd * high, effect) if math.isfinite(high) else None
    if fewest is None:
        return "-"
    return f"{fewest:,}-{most:,}" if most is not None else f"{fewest:,} or more"


def _needed(sd: float, effect: float) -> str:
    needed = stats.cases_needed(sd, effect)
    return "-" if needed is None else f"{needed:,}"
