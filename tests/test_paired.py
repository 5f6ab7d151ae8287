"""The paired statistics behind `score`'s decision: exact tests worked by hand, the bootstrap
against an exact enumeration of its own distribution, and the decision's error rates."""

from __future__ import annotations

import math
import random
from collections.abc import Hashable
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.runs.inference import paired as stats


def test_sign_test_six_of_six() -> None:
    """6 cases better, none worse: P(X <= 0) for X ~ Bin(6, 1/2) is 1/64; two-sided 2/64 = 0.03125."""
    assert stats.sign_test(6, 0) == stats.SignTest(6, 0, 0.03125)
    assert stats.sign_test(0, 6).p == 0.03125  # the same test read the other way


def test_sign_test_five_of_five() -> None:
    """5 of 5: 2 * (1/32) = 0.0625, above 0.05: five cases alone can never be significant."""
    assert stats.sign_test(5, 0).p == 0.0625


def test_sign_test_is_capped_at_one() -> None:
    """3 vs 3: P(X <= 3) for Bin(6, 1/2) = (1+6+15+20)/64 = 42/64; doubled 84/64 > 1, so 1.
    No case differing: nothing to test, p = 1."""
    assert stats.sign_test(3, 3).p == 1.0
    assert stats.sign_test(0, 0).p == 1.0


def test_sign_test_two_of_ten() -> None:
    """8 vs 2: P(X <= 2) for Bin(10, 1/2) = (1 + 10 + 45)/1024 = 56/1024; two-sided 112/1024 = 0.109375."""
    assert stats.sign_test(8, 2).p == 0.109375


def test_mcnemar_seven_against_one() -> None:
    """7 checks pass only under the candidate, 1 only under baseline (concordant pairs do not count):
    2 * P(X <= 1) for X ~ Bin(8, 1/2) = 2 * (1 + 8)/256 = 18/256 = 0.0703125."""
    assert stats.mcnemar(7, 1) == {"candidate_only": 7, "baseline_only": 1, "p": 0.0703125}


def test_pass_hat_k_of_two_passes_in_three_trials_is_zero() -> None:
    """A check passing 2 of 3 trials: pass^3 = C(2,3)/C(3,3) = 0/1 = 0 (not every trial passes);
    pass@3 = 1 - C(1,3)/C(3,3) = 1 - 0 = 1; pass@1 = 1 - C(1,1)/C(3,1) = 2/3; pass^2 = C(2,2)/C(3,2) = 1/3."""
    assert stats.pass_hat(3, 3, 2) == 0
    assert stats.pass_at(3, 3, 2) == 1
    assert stats.pass_at(1, 3, 2) == Fraction(2, 3)
    assert stats.pass_hat(2, 3, 2) == Fraction(1, 3)


def test_reliability_per_condition_and_mcnemar_on_every_trial_passing() -> None:
    """Two checks, three trials. Baseline: x passes 2/3, y 3/3. Candidate: x 3/3, y 0/3.
    k = 3. Baseline pass@3 = (1 + 1)/2 = 1, pass^3 = (0 + 1)/2 = 0.5; candidate pass@3 = (1 + 0)/2 = 0.5,
    pass^3 = (1 + 0)/2 = 0.5. Discordant on pass^3: x (candidate only), y (baseline only): p = 1."""
    outcomes = {
        ("baseline", "x"): "ppf",
        ("baseline", "y"): "ppp",
        ("candidate", "x"): "ppp",
        ("candidate", "y"): "fff",
    }
    rows = [
        {
            "case_id": "c",
            "criterion": check,
            "condition": condition,
            "trial": t + 1,
            "status": "pass" if mark == "p" else "fail",
        }
        for (condition, check), marks in outcomes.items()
        for t, mark in enumerate(marks)
    ]
    found = stats.reliability(rows)
    figures, test = stats.reliability_parts(found)
    assert (
        figures["baseline"]["k"],
        figures["baseline"]["pass_at_k"],
        figures["baseline"]["pass_hat_k"],
    ) == (
        3,
        1,
        0.5,
    )
    assert (figures["candidate"]["pass_at_k"], figures["candidate"]["pass_hat_k"]) == (0.5, 0.5)
    assert list(found) == ["baseline", "candidate", "mcnemar"]  # as score --json writes them
    assert found["mcnemar"] == test == {"checks": 2, "candidate_only": 1, "baseline_only": 1, "p": 1.0}


@pytest.mark.parametrize(
    ("p", "df", "table"),
    [
        (0.975, 1, 12.706),
        (0.975, 5, 2.571),
        (0.975, 13, 2.160),
        (0.8, 13, 0.870),
        (0.975, 29, 2.045),
        (0.975, 1000, 1.962),
    ],
)
def test_t_quantiles_match_the_printed_table(p: float, df: int, table: float) -> None:
    """Student's t quantiles as every statistics table prints them (three decimals)."""
    assert stats.t_quantile(p, df) == pytest.approx(table, abs=5e-4)


def test_smallest_detectable_difference_for_the_reference_catalog() -> None:
    """14 cases, spread 0.8: (t(.975, 13) + t(.80, 13)) * 0.8 / sqrt(14) = (2.1604 + 0.8702) * 0.8 / 3.7417
    = 0.648: a 0.1 margin is far below what 14 cases can see."""
    assert stats.detectable(0.8, 14) == pytest.approx(0.648, abs=1e-3)
    assert stats.detectable(0.8, 1) is None


def test_cases_needed_is_the_smallest_that_detects() -> None:
    """Spread 0.5, effect 0.5: n = 9 gives (2.306 + 0.889)/3 = 1.065 > 1 (not enough), n = 10 gives
    (2.262 + 0.883)/3.162 = 0.995 <= 1: 10 cases."""
    assert stats.cases_needed(0.5, 0.5) == 10
    assert stats.cases_needed(0.5, 0.0) is None


def test_deltas_are_exact_so_equal_decimals_tie() -> None:
    """Case a: candidate 1.1 and 2.2 (sum 3.3), baseline 1.3 and 2.0 (sum 3.3): Δ is exactly 0, though in
    floats 1.1 + 2.2 = 3.3000000000000003. Case b: Δ = 4 - 3 = 1. So one case up, none down, one tie."""
    values: dict[tuple[Hashable, str, Hashable], stats.Number] = {
        ("a", "candidate", 1): 1.1,
        ("a", "candidate", 2): 2.2,
        ("a", "baseline", 1): 1.3,
        ("a", "baseline", 2): 2.0,
        ("b", "candidate", 1): 4,
        ("b", "baseline", 1): 3,
    }
    assert 1.1 + 2.2 != 1.3 + 2.0  # the float trap this test is about
    found = stats.paired(values)
    assert (found.n, found.sign.n_plus, found.sign.n_minus, found.mean) == (2, 1, 0, Fraction(1, 2))


def test_a_case_without_both_conditions_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="cases without both baseline and candidate: lonely"):
        stats.paired({("lonely", "candidate", 1): 3, ("b", "candidate", 1): 4, ("b", "baseline", 1): 3})


def _exact_quantiles(values: list[int], tail: float) -> tuple[Fraction, Fraction]:
    """The bootstrap distribution of the mean enumerated exactly: every multiset of n draws from the
    n values, weighted by its multinomial probability n!/(prod c_i!)/n^n; the `tail` and `1 - tail`
    quantiles as the MC interval takes them (the first sum whose cumulative probability passes)."""
    n = len(values)
    weights: dict[int, Fraction] = {}
    for counts in _compositions(n, n):
        ways = math.factorial(n)
        for c in counts:
            ways //= math.factorial(c)
        total = sum(c * v for c, v in zip(counts, values, strict=True))
        weights[total] = weights.get(total, Fraction(0)) + Fraction(ways, n**n)
    cumulative, ordered = Fraction(0), []
    for total in sorted(weights):
        cumulative += weights[total]
        ordered.append((total, cumulative))

    def quantile(q: float) -> Fraction:
        return Fraction(next(total for total, cum in ordered if cum >= q), n)

    return quantile(tail), quantile(1 - tail)


def _compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    if parts == 1:
        return [(total,)]
    return [(first, *rest) for first in range(total + 1) for rest in _compositions(total - first, parts - 1)]


UNITS = [-3, -1, 0, 2, 2, 5, 9]


def test_the_exact_bootstrap_interval_is_the_enumerated_one() -> None:
    """Seven cases with Δ (in units) -3, -1, 0, 2, 2, 5, 9: few enough that `interval` counts every resample
    (by convolution) instead of drawing. Its ends must be exactly the quantiles of the bootstrap distribution
    enumerated here another way (every multiset of 7 draws with its multinomial probability)."""
    tail = stats.expanded_tail(7)
    # Hesterberg's widening: t(.975, 6) = 2.447, * sqrt(7/6) = 2.643, tail = 1 - Phi(2.643) = 0.0041
    assert tail == pytest.approx(0.0041, abs=2e-4)
    assert stats.interval(stats.Series(list("abcdefg"), UNITS, 1)) == (*_exact_quantiles(UNITS, tail), True)


@pytest.mark.parametrize("few", [64, 0], ids=["counts-resampled", "cases-resampled"])
def test_the_resampled_interval_matches_the_exact_bootstrap_distribution(
    few: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same seven cases, drawn (10,000 seeded resamples) as a large catalog would be: each end must sit
    between the exact distribution's quantiles at tail -/+ 0.005 (the Monte Carlo error of a quantile near
    0.4% from 10,000 draws is about 0.0006: many of those either side). Both ways of drawing (counts of
    distinct values, or cases) are checked against the same enumeration."""
    monkeypatch.setattr(stats, "_EXACT_WORK", 0)
    monkeypatch.setattr(stats, "_FEW_VALUES", few)
    series = stats.Series(list("abcdefg"), UNITS, 1)
    tail = stats.expanded_tail(7)
    found = stats.interval(series)
    assert found is not None
    low, high, exactly = found
    assert not exactly
    inner_low, inner_high = _exact_quantiles(UNITS, tail + 0.005)
    outer_low, outer_high = _exact_quantiles(UNITS, max(tail - 0.005, 1e-9))
    assert outer_low <= low <= inner_low
    assert inner_high <= high <= outer_high
    assert stats.interval(series) == found  # seeded: the same interval every time


def test_an_interval_needs_two_cases() -> None:
    assert stats.interval(stats.Series(["a"], [3], 1)) is None
    found = stats.paired({("a", "candidate", 1): 4, ("a", "baseline", 1): 3})
    assert (found.low, found.high, found.mde) == (None, None, None)


def _null_set(rng: random.Random, cases: int, trials: int) -> list[list[int]]:
    """Per case, the 2 x trials weighted-score-like marks of both conditions, from one distribution."""
    out = []
    for _ in range(cases):
        centre = rng.randint(1, 5)
        out.append([min(5, max(1, centre + rng.choice((-1, 0, 0, 1)))) for _ in range(2 * trials)])
    return out


def _better(marks: list[list[int]], trials: int, seed: int) -> bool:
    values: dict[tuple[Hashable, str, Hashable], stats.Number] = {}
    for case, row in enumerate(marks):
        for t, mark in enumerate(row):
            values[(case, "baseline" if t < trials else "candidate", t % trials)] = mark
    found = stats.paired(values, seed=seed, resamples=2_000)
    return found.low is not None and found.low > 0


@pytest.mark.long
def test_permuting_labels_within_cases_rarely_says_better() -> None:
    """A null data set (both conditions drawn alike, 30 cases x 3 trials): shuffling each case's six marks
    between the conditions keeps the null true. `better` (the interval's lower end above 0) is a one-sided
    2.5% error at the 95% level: in 500 permutations it must come out at most ~5% of the time (25).
    The bootstrap uses 2,000 resamples here to keep the test fast; the property is the method's."""
    rng = random.Random(19)
    marks = _null_set(rng, 30, 3)
    hits = 0
    for permutation in range(500):
        shuffled = [rng.sample(row, len(row)) for row in marks]
        hits += _better(shuffled, 3, permutation)
    assert hits <= 25


@pytest.mark.long
def test_a_real_one_point_shift_on_30_cases_is_better_in_nearly_every_seed() -> None:
    """30 cases x 3 trials, the candidate's marks 1 point above the baseline's draw (capped at 5, so the
    true shift is a little under 1): `better` in at least 95 of 100 seeds."""
    hits = 0
    for seed in range(100):
        rng = random.Random(1000 + seed)
        marks = []
        for _ in range(30):
            centre = rng.randint(1, 4)
            base = [max(1, centre + rng.choice((-1, 0, 0, 1))) for _ in range(3)]
            marks.append(base + [min(5, max(1, centre + 1 + rng.choice((-1, 0, 0, 1)))) for _ in range(3)])
        hits += _better(marks, 3, seed)
    assert hits >= 95


def test_compositions_enumerate_every_multiset() -> None:
    """C(2n - 1, n) multisets of n draws from n values: 3 values -> C(5, 3) = 10; probabilities sum to 1."""
    assert len(_compositions(3, 3)) == 10
    total = sum(
        Fraction(math.factorial(3) // math.prod(math.factorial(c) for c in counts), 27)
        for counts in _compositions(3, 3)
    )
    assert total == 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-6, 6), min_size=2, max_size=6))
def test_the_exact_interval_is_the_enumerated_one_for_any_small_catalog(units: list[int]) -> None:
    """For any 2 to 6 cases, the exact interval's ends are the enumerated bootstrap distribution's quantiles,
    and they hold the mean: low <= mean <= high."""
    series = stats.Series(list(range(len(units))), units, 1)
    found = stats.interval(series)
    assert found == (*_exact_quantiles(units, stats.expanded_tail(len(units))), True)
    assert found[0] <= Fraction(sum(units), len(units)) <= found[1]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-6, 6), min_size=2, max_size=12), st.integers(-5, 5))
def test_shifting_every_case_shifts_the_interval(units: list[int], shift: int) -> None:
    """Adding the same amount to every case's Δ moves the interval by exactly that amount."""
    before = stats.interval(stats.Series(list(range(len(units))), units, 1))
    after = stats.interval(stats.Series(list(range(len(units))), [u + shift for u in units], 1))
    assert before is not None and after is not None
    assert (after[0] - before[0], after[1] - before[1]) == (Fraction(shift), Fraction(shift))
