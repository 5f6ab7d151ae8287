"""Paired statistics for a release decision: the case is the unit.

Per case, Δ = the candidate's mean over its trials minus the baseline's. Over
the cases: the mean Δ, a 95% interval for it (an expanded percentile bootstrap
over cases, seeded), the exact two-sided sign test on the cases whose Δ is not
zero, and the smallest Δ this many cases could detect at 80% power. Check
outcomes get pass@k, pass^k and the exact McNemar test.

Recorded values are taken exactly: a score is the decimal that was written
(the shortest one that reads back as the same float), and every Δ is held as
an integer over one common denominator, so "Δ is zero", "the interval's lower
end is above 0" and the reference gate's "within 0.1" are decided without
float rounding. numpy is imported only when an interval is computed.

`paired(values)` is the entry for other features: it takes one number per
(case, condition, trial) (a score, a criterion's 0/1 verdict) and returns the
same analysis `score` prints.
"""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled into
# ForwardRefs as it is made (a process's first compile is about 1.3 ms of start-up); names type
# checkers alone import are quoted where a function names them (docs/startup.md).
import functools
import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from fractions import Fraction
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, NamedTuple, TypeGuard

if TYPE_CHECKING:
    import numpy as np

    from ..rows import AnalysisJson, McNemarTest, Method
    from ..summaries import CheckReliability, ConditionReliability, McNemarChecks, Reliability

LEVEL = 0.95
POWER = 0.80
RESAMPLES = 10_000
SEED = 0
METHOD = "expanded percentile bootstrap over cases"
# numpy's float64 adds integers exactly below this; past it the sums are only close
_EXACT_SUMS = 2**53
# at most this many distinct Δ values: resample their counts (a multinomial) rather than the cases
_FEW_VALUES = 64
# below this much work (an upper bound; about 0.1 s of Python, less than importing numpy) the
# bootstrap distribution is computed exactly
_EXACT_WORK = 1_000_000
_MOST_CASES = 1e12  # cases_needed answers None past this
# below this many cases with Δ ≠ 0, or this many distinct bootstrap values, an interval alone is not
# evidence of better: the exact sign test must agree (issue 30: at 2 to 4 cases the percentile
# interval, which never reaches below the smallest case's Δ, said better 5-25% of the time by chance)
FEW_DIFFERING = 6
SUPPORT = 20

Number = int | float | Fraction


def exact(value: Number) -> Fraction:
    """A recorded number as the decimal that was written (3.7 is 37/10, not the nearest binary)."""
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    if not math.isfinite(value):
        raise ValueError(f"{value!r} is not a finite number")
    return Fraction(repr(value))


class Units:
    """Each distinct value as an integer over one common denominator, so sums stay exact."""

    def __init__(self, values: Iterable[Number]) -> None:
        exacts = {value: exact(value) for value in set(values)}
        self.scale = math.lcm(1, *(f.denominator for f in exacts.values()))
        self.of = {value: int(f * self.scale) for value, f in exacts.items()}


class Series(NamedTuple):
    """One quantity's per-case Δ, exactly: case i's Δ is units[i] / scale."""

    cases: list[Hashable]
    units: list[int]
    scale: int

    @classmethod
    def from_fractions(
        cls, cases: list[Hashable], numerators: list[int], denominators: list[int]
    ) -> "Series":
        scale = math.lcm(1, *set(denominators))
        units = [n * (scale // d) for n, d in zip(numerators, denominators, strict=True)]
        return cls(cases, units, scale)


class SignTest(NamedTuple):
    n_plus: int
    n_minus: int
    p: float


class Analysis(NamedTuple):
    """One quantity's paired comparison; `low` and `high` are exact (None below two cases)."""

    n: int
    mean: Fraction
    sd: float
    low: Fraction | None
    high: Fraction | None
    sign: SignTest
    mde: float | None
    needed: int | None  # cases likely needed to detect the observed mean Δ (None: no such Δ)
    exactly: bool = False  # the bootstrap distribution computed exactly, not drawn
    # how many distinct values the bootstrap distribution of the mean takes (at least this many;
    # None: not a bootstrap). Below SUPPORT its percentiles are too coarse to decide on their own.
    support: int | None = None

    def json(self) -> "AnalysisJson":
        ci = None if self.low is None or self.high is None else [float(self.low), float(self.high)]
        return {
            "n": self.n,
            "mean_delta": float(self.mean),
            "sd": self.sd,
            "ci": ci,
            "bootstrap": "exact" if self.exactly else "resampled",
            "sign_test": {"n_plus": self.sign.n_plus, "n_minus": self.sign.n_minus, "p": self.sign.p},
            "mde": self.mde,
            "cases_needed": self.needed,
        }


def method(seed: int = SEED, resamples: int = RESAMPLES) -> "Method":
    return {
        "interval": METHOD,
        "level": LEVEL,
        "resamples": resamples,
        "seed": seed,
        "power": POWER,
        "exact": "where cheap, every resample is counted (the exact bootstrap distribution) instead of drawing",
        "sign_test": "exact two-sided binomial on cases with Δ ≠ 0",
    }


# ---- exact tests -----------------------------------------------------------------------


def sign_test(n_plus: int, n_minus: int) -> SignTest:
    """Exact two-sided sign test: 2 · P(X ≤ min(n+, n−)) for X ~ Binomial(n+ + n−, 1/2), at most 1."""
    n = n_plus + n_minus
    tail, term = 0, 1
    for k in range(min(n_plus, n_minus) + 1):
        tail += term
        term = term * (n - k) // (k + 1)
    return SignTest(n_plus, n_minus, float(min(Fraction(1), Fraction(2 * tail, 2**n))))


def mcnemar(wins: int, losses: int) -> "McNemarTest":
    """Exact McNemar test: the discordant pairs only, a sign test on them."""
    test = sign_test(wins, losses)
    return {"candidate_only": wins, "baseline_only": losses, "p": test.p}


# ---- Student's t, from its closed form for whole degrees of freedom -------------------


def _t_within(t: float, df: int) -> float:
    """P(|T| ≤ t) for Student's t with `df` degrees of freedom (Abramowitz & Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2:
        term, total = math.cos(theta), 0.0
        for j in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c2 * (2 * j) / (2 * j + 1)
        return min(1.0, 2 / math.pi * (theta + s * total)) if df > 1 else 2 / math.pi * theta
    term, total = 1.0, 0.0
    for j in range(1, df // 2 + 1):
        total += term
        term *= c2 * (2 * j - 1) / (2 * j)
    return min(1.0, s * total)


@functools.lru_cache(maxsize=1024)  # a bisection of ~80 CDF sums: every analysis asks the same few again
def t_quantile(p: float, df: int) -> float:
    """The `p` quantile (p > 0.5) of Student's t; past 200 degrees of freedom the
    Cornish-Fisher expansion (closer than 1e-6 there), below it bisection on the exact CDF."""
    z = NormalDist().inv_cdf(p)
    if df > 200:
        return (
            z
            + (z**3 + z) / (4 * df)
            + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
        )
    low, high = 0.0, 1.0
    while _t_within(high, df) < 2 * p - 1:
        high *= 2
    for _ in range(80):
        mid = (low + high) / 2
        step = (mid, high) if _t_within(mid, df) < 2 * p - 1 else (low, mid)
        # A step is a function of (low, high) alone, so one that changes nothing would change
        # nothing again: the 80 steps would end here. Reached in 53-58 steps for the quantiles a
        # report asks (a quarter of its CDF sums saved); a quantile near 0 takes all 80.
        if step == (low, high):
            break
        low, high = step
    return (low + high) / 2


# ---- power ------------------------------------------------------------------------------


def detectable(sd: float, n: int) -> float | None:
    """The smallest mean Δ that n cases detect with 80% power (two-sided 5%), given the spread."""
    if n < 2:
        return None
    df = n - 1
    return (t_quantile(1 - (1 - LEVEL) / 2, df) + t_quantile(POWER, df)) * sd / math.sqrt(n)


def cases_needed(sd: float, effect: float) -> int | None:
    """How many cases would likely detect a mean Δ of `effect` (80% power), given the spread
    (None for no effect, or one needing more than 10^12 cases)."""
    if effect <= 0 or not math.isfinite(effect):
        return None
    if sd == 0:
        return 2
    z = NormalDist().inv_cdf(1 - (1 - LEVEL) / 2) + NormalDist().inv_cdf(POWER)
    normal = (z * sd / effect) ** 2
    if not normal < _MOST_CASES:  # an effect this small next to the spread: no suite will show it
        return None
    n = max(2, math.ceil(normal))  # the normal answer, then the t correction upward
    while (found := detectable(sd, n)) is not None and found > effect:
        n += 1
    return n


# ---- the bootstrap ----------------------------------------------------------------------


def expanded_tail(n: int) -> float:
    """The tail probability whose percentile interval is as wide, for normal data, as the t
    interval (Hesterberg 2015): the plain percentile bootstrap is too narrow on few cases."""
    t = t_quantile(1 - (1 - LEVEL) / 2, n - 1)
    return 1 - NormalDist().cdf(math.sqrt(n / (n - 1)) * t)


def _resample_sums(values: "np.ndarray[Any, Any]", resamples: int, seed: int) -> "np.ndarray[Any, Any]":
    """Sums of `resamples` draws of len(values) cases with replacement."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = len(values)
    distinct, counts = np.unique(values, return_counts=True)
    if len(distinct) <= _FEW_VALUES:  # the same distribution: how many of each value a resample holds
        return np.asarray(rng.multinomial(n, counts / n, size=resamples) @ distinct, dtype=np.float64)
    sums = np.empty(resamples)
    chunk = max(1, 2_000_000 // n)  # a chunk of indices stays near 16 MB
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        sums[start : start + size] = values[rng.integers(0, n, size=(size, n))].sum(axis=1)
    return sums


def exact_quantiles(units: list[int], tail: float) -> tuple[int, int]:
    """The bootstrap distribution of the sum of n draws, exactly (every possible resample with its
    probability), by convolving the cases' distribution n times; its `tail` and `1 - tail` quantiles
    (the smallest sum whose cumulative probability reaches each), as the resampled interval takes them."""
    n = len(units)
    step = {value: count / n for value, count in Counter(units).items()}
    sums = {0: 1.0}
    for _ in range(n):
        grown: dict[int, float] = defaultdict(float)
        for total, p in sums.items():
            for value, q in step.items():
                grown[total + value] += p * q
        sums = grown
    cumulative, low, high = 0.0, None, None
    for total in sorted(sums):
        cumulative += sums[total]
        if low is None and cumulative >= tail:
            low = total
        if cumulative >= 1 - tail:
            high = total
            break
    last = max(sums)
    return (last if low is None else low), (last if high is None else high)


def _cheap(units: list[int]) -> bool:
    """Whether the exact distribution costs less than drawing (and importing numpy for it): about
    n steps, each over the sums reached so far (at most n * range) times the distinct values."""
    n, span, distinct = len(units), max(units) - min(units), len(set(units))
    return n * n * (span + 1) * distinct <= _EXACT_WORK


def interval(
    series: Series, *, resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[Fraction, Fraction, bool] | None:
    """The 95% interval for the mean Δ, exact in the series' units (None below two cases), and
    whether the bootstrap distribution was computed exactly (True) or drawn (`resamples`, `seed`)."""
    n = len(series.units)
    if n < 2:
        return None
    tail = expanded_tail(n)
    scale = n * series.scale
    largest = max(abs(u) for u in series.units)
    exact_sums = largest * n < _EXACT_SUMS
    if exact_sums and _cheap(series.units):
        low, high = exact_quantiles(series.units, tail)
        return Fraction(low, scale), Fraction(high, scale), True
    import numpy as np

    values = np.array(
        series.units if exact_sums else [u / series.scale for u in series.units], dtype=np.float64
    )
    sums = np.sort(_resample_sums(values, resamples, seed))
    low_at = min(resamples - 1, math.floor(resamples * tail))
    high_at = max(0, math.ceil(resamples * (1 - tail)) - 1)
    if exact_sums:
        return Fraction(int(sums[low_at]), scale), Fraction(int(sums[high_at]), scale), False
    return Fraction(float(sums[low_at]) / n), Fraction(float(sums[high_at]) / n), False


def bootstrap_support(units: list[int]) -> int:
    """How many distinct sums n draws (with replacement) from these n values can make, or a lower
    bound once that reaches SUPPORT: n draws from d distinct integers make at least n·(d − 1) + 1
    distinct sums (every sumset of integers grows by at least |A| − 1 per summand), so the exact
    count is needed only below that, where it is small."""
    values, n = set(units), len(units)
    bound = n * (len(values) - 1) + 1
    if bound >= SUPPORT:
        return bound
    sums = {0}
    for _ in range(n):
        sums = {total + value for total in sums for value in values}
    return len(sums)


def analyse(series: Series, *, resamples: int = RESAMPLES, seed: int = SEED) -> Analysis:
    n, units, scale = len(series.units), series.units, series.scale
    mean = Fraction(sum(units), n * scale) if n else Fraction(0)
    sd = 0.0
    if n > 1:
        centred = [u / scale - float(mean) for u in units]
        sd = math.sqrt(math.fsum(c * c for c in centred) / (n - 1))
    bounds = interval(series, resamples=resamples, seed=seed)
    sign = sign_test(sum(u > 0 for u in units), sum(u < 0 for u in units))
    low, high, exactly = bounds if bounds is not None else (None, None, False)
    needed = cases_needed(sd, abs(float(mean))) if n > 1 else None
    support = bootstrap_support(units) if n else 0
    return Analysis(n, mean, sd, low, high, sign, detectable(sd, n), needed, exactly, support)


# ---- the entry for other features -------------------------------------------------------


def paired(
    values: Mapping[tuple[Hashable, str, Hashable], Number],
    *,
    baseline: str = "baseline",
    candidate: str = "candidate",
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Analysis:
    """The paired analysis of one number per (case, condition, trial): Δ per case is the
    candidate's mean over its trials minus the baseline's. A case missing either condition is
    refused by name (ValueError): it cannot be paired."""
    units = Units(values.values())
    sums: dict[Hashable, dict[str, list[int]]] = defaultdict(lambda: {baseline: [0, 0], candidate: [0, 0]})
    for (case, condition, _trial), value in values.items():
        if condition in (baseline, candidate):
            total = sums[case][condition]
            total[0] += units.of[value]
            total[1] += 1
    unpaired = sorted(str(case) for case, s in sums.items() if not s[baseline][1] or not s[candidate][1])
    if unpaired:
        raise ValueError(f"cases without both {baseline} and {candidate}: {', '.join(unpaired)}")
    cases = sorted(sums, key=str)
    numerators, denominators = [], []
    for case in cases:
        (cand, kc), (base, kb) = sums[case][candidate], sums[case][baseline]
        numerators.append(cand * kb - base * kc)
        denominators.append(units.scale * kc * kb)
    return analyse(Series.from_fractions(cases, numerators, denominators), resamples=resamples, seed=seed)


# ---- check outcomes over trials -----------------------------------------------------------


def pass_at(k: int, trials: int, passed: int) -> Fraction:
    """pass@k: the chance that at least one of k trials drawn from these passes."""
    return 1 - Fraction(math.comb(trials - passed, k), math.comb(trials, k))


def pass_hat(k: int, trials: int, passed: int) -> Fraction:
    """pass^k: the chance that every one of k trials drawn from these passes."""
    return Fraction(math.comb(passed, k), math.comb(trials, k))


def reliability(results: Sequence[Mapping[str, object]]) -> "Reliability":
    """Per condition and check ((case, criterion)): pass@k and pass^k over its trials, k the
    fewest trials any check has; the exact McNemar test on the checks whose pass^k outcome
    (every trial passes) differs between baseline and candidate. Unwritten and errored
    results are not passes."""
    tally: dict[str, dict[tuple[str, str], list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for row in results:
        check = (str(row.get("case_id")), str(row.get("criterion", row.get("check"))))
        counts = tally[str(row["condition"])][check]
        counts[0] += 1
        counts[1] += row["status"] == "pass"
    found: Reliability = {}
    for condition, checks in sorted(tally.items()):
        k = min(trials for trials, _ in checks.values())
        rows: list[CheckReliability] = [
            {
                "case_id": case,
                "criterion": criterion,
                "trials": trials,
                "passed": passed,
                "pass_at_k": float(pass_at(k, trials, passed)),
                "pass_hat_k": float(pass_hat(k, trials, passed)),
            }
            for (case, criterion), (trials, passed) in sorted(checks.items())
        ]
        found[condition] = {
            "k": k,
            "checks": len(rows),
            "pass_at_k": math.fsum(r["pass_at_k"] for r in rows) / len(rows),
            "pass_hat_k": math.fsum(r["pass_hat_k"] for r in rows) / len(rows),
            "per_check": rows,
        }
    if "baseline" in tally and "candidate" in tally:
        base, cand = tally["baseline"], tally["candidate"]
        shared = set(base) & set(cand)
        every = {c: (cand[c][1] == cand[c][0], base[c][1] == base[c][0]) for c in shared}
        wins = sum(c and not b for c, b in every.values())
        losses = sum(b and not c for c, b in every.values())
        found["mcnemar"] = {"checks": len(shared), **mcnemar(wins, losses)}
    return found


def reliability_parts(found: "Reliability") -> "tuple[dict[str, ConditionReliability], McNemarChecks | None]":
    """The conditions' figures and the McNemar test apart (the key "mcnemar" is the test's)."""
    conditions = {name: value for name, value in found.items() if _is_condition(value)}
    test = found.get("mcnemar")
    return conditions, (test if test is not None and _is_mcnemar(test) else None)


def _is_condition(value: "ConditionReliability | McNemarChecks") -> "TypeGuard[ConditionReliability]":
    return "per_check" in value


def _is_mcnemar(value: "ConditionReliability | McNemarChecks") -> "TypeGuard[McNemarChecks]":
    return "candidate_only" in value
