"""No `better` on a handful of cases (issue 30, item 5): the paired gate's calibration under no true
difference, the exact sign test where the bootstrap is too coarse, and a zero-width interval that is
never evidence."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from adhd_evals.runs.deciding import decision as deciding
from adhd_evals.runs.inference import paired as stats

PAIRED = deciding.Decide("paired")
NOTHING = deciding.Evidence([], [], None)


def _verdict(units: list[int], scale: int = 1) -> tuple[str, list[str]]:
    """The paired gate on one quantity's per-case Δ (units / scale), used for weighted, correctness
    and safety alike."""
    found = stats.analyse(stats.Series(list(range(len(units))), units, scale))
    quantities = {"weighted_score": found, "correctness": found, "safety": found}
    return deciding.paired_verdict(quantities, NOTHING, PAIRED)


def test_two_cases_both_up_by_four_are_not_better() -> None:
    """Δ = +4 on both cases: every resample's mean is +4, so the interval is +4..+4 (zero width), and
    only 2 cases differ (sign test p = 2 · (1/2)^2 = 0.5): inconclusive, saying both."""
    verdict, reasons = _verdict([4, 4])
    assert verdict == "inconclusive"
    assert "Weighted Δ +4.00, 95% CI +4.00..+4.00, 2 cases: " + deciding.SAME_MOVE + "." in reasons


def test_every_case_moved_by_the_same_tiny_amount_is_not_evidence() -> None:
    """Eight cases each at Δ = 4e-16 (the same recorded decimal): the interval is 4e-16..4e-16, above
    0 but with no width; 8 cases all up would pass the sign test (p = 2/2^8 = 0.0078), yet the spread
    is unmeasured: inconclusive."""
    tiny = Fraction("4e-16")
    verdict, reasons = _verdict([tiny.numerator] * 8, tiny.denominator)
    assert verdict == "inconclusive"
    assert any(r.endswith(deciding.SAME_MOVE + ".") for r in reasons)


@pytest.mark.parametrize("differing", [1, 2, 3, 4, 5])
def test_fewer_than_six_differing_cases_are_never_better(differing: int) -> None:
    """Five cases at most differ, all up, with different sizes (so the interval has width and lies
    above 0): the exact two-sided sign test's smallest p on 5 cases is 2/2^5 = 0.0625 > 0.05, so
    never better; the reason names the sign test."""
    units = [1 + i for i in range(differing)] + [0] * (8 - differing)
    verdict, reasons = _verdict(units)
    assert verdict == "inconclusive"
    assert any(f"only {differing} case" in r and "exact sign test" in r for r in reasons)


def test_six_cases_all_up_with_a_spread_are_better() -> None:
    """Six cases at +1..+6: the interval lies above 0 (every resample's mean is at least +1), the
    sign test p = 2/2^6 = 0.03125 < 0.05, and the bootstrap takes 6·5 + 1 = 31 ≥ 20 values: better."""
    assert _verdict([1, 2, 3, 4, 5, 6])[0] == "better"


def test_a_coarse_bootstrap_needs_the_sign_test() -> None:
    """Six cases over two distinct values: the bootstrap of their mean takes 6·1 + 1 = 7 distinct
    values (< 20). {+1 x5, +2}: 6 up, sign test p = 2/2^6 = 0.03125: better. {+3 x5, -1}: with k draws
    of +3 a resample sums 4k - 6; the expanded tail at n = 6 is 1 - Φ(sqrt(6/5)·t(0.975, 5) = 2.816) =
    0.0024, and P(k ≤ 1) = (1/6)^6 + 6·(5/6)(1/6)^5 = 0.00066 is under it, so the lower end is 2/6 > 0;
    but 5 up 1 down gives p = 2·(1 + 6)/64 = 0.21875: inconclusive, naming the 7 values."""
    assert stats.bootstrap_support([1, 1, 1, 1, 1, 2]) == 7
    assert _verdict([1, 1, 1, 1, 1, 2])[0] == "better"
    verdict, reasons = _verdict([3, 3, 3, 3, 3, -1])
    assert verdict == "inconclusive"
    assert reasons[0].startswith("Weighted Δ +2.33, 95% CI +0.33..")
    assert "the bootstrap takes only 7 distinct values" in reasons[0] and "p = 0.2188" in reasons[0]


def test_bootstrap_support_counts_distinct_sums_exactly_below_the_bar() -> None:
    """{0, 1, 3} drawn 2 times: sums 0,1,2,3,4,6 = 6 (the bound 2·2 + 1 = 5 is only a floor).
    Twenty draws of {0, 1}: the bound 21 reaches 20, returned as is."""
    assert stats.bootstrap_support([0, 1, 3]) == len(
        {a + b + c for a in (0, 1, 3) for b in (0, 1, 3) for c in (0, 1, 3)}
    )
    assert stats.bootstrap_support([0, 1] * 10) == 21


def _null_rate(n: int, runs: int, rng: random.Random, scale: int = 1) -> float:
    """How often the gate says better when baseline and candidate score alike: each case's Δ is the
    difference of two independent 1-5 scores (symmetric about 0), in units of 1/scale (scale 1 keeps
    the exact bootstrap for small n; 100 sends n > 11 to the resampled one, as a real file's would)."""
    better = 0
    for _ in range(runs):
        units = [scale * (rng.randint(1, 5) - rng.randint(1, 5)) for _ in range(n)]
        better += _verdict(units, scale)[0] == "better"
    return better / runs


@pytest.mark.long
def test_no_true_difference_is_never_better_on_a_handful_of_cases() -> None:
    """n = 2..8, 300 null suites each (seeded): below 6 cases better is impossible (the sign test), at
    6 to 8 it stays at or under 5% (measured on 1,000 suites each: 0.8%, 1.0%, 1.7%)."""
    rng = random.Random(30)
    rates = {n: _null_rate(n, 300, rng) for n in range(2, 9)}
    assert all(rates[n] == 0 for n in range(2, 6)), rates
    assert max(rates.values()) <= 0.05, rates


def _binomial_tail(k: int, runs: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(runs, p), exactly."""
    exact = Fraction(p).limit_denominator(1000)
    return float(sum(math.comb(runs, i) * exact**i * (1 - exact) ** (runs - i) for i in range(k, runs + 1)))


@pytest.mark.long  # about 20,000 paired analyses, most drawing 10,000 resamples
def test_null_calibration_from_2_to_100_cases() -> None:
    """Every n from 2 to 100, 200 null suites each (seeded, resampled as a real file would be): over
    all 19,800 suites `better` at most 5% of the time (its nominal one-sided rate is 2.5%), and at no
    n significantly more than 5% (a one-sided exact binomial p < 0.001 fails it: of 200 suites a true
    5% says better 22 or more times only 0.05% of the time, so the per-n check tolerates noise and
    still catches a leak like the old 12-25% on 2 to 3 cases)."""
    rng = random.Random(100)
    counts = {n: round(_null_rate(n, 200, rng, scale=100) * 200) for n in range(2, 101)}
    assert sum(counts.values()) <= 0.05 * 200 * len(counts), counts
    leaks = {n: k for n, k in counts.items() if _binomial_tail(k, 200, 0.05) < 0.001}
    assert not leaks, leaks
    assert all(counts[n] == 0 for n in range(2, 6)), counts
