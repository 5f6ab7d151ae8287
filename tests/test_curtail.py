"""Deterministic curtailment of a paired run: stop once the sign test's verdict cannot change."""

from __future__ import annotations

import random
from math import comb

from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.runs.curtail import certain, sign_verdict, stopping_point


def _verdict_by_hand(n_plus: int, n_minus: int) -> str:
    """The sign test's verdict from its definition: p = 2 · P(X ≤ min) for X ~ Bin(n+ + n−, 1/2),
    decided at p < 1/20 (the comparison kept in integers: 2 · tail · 20 < 2^n)."""
    n = n_plus + n_minus
    tail = sum(comb(n, i) for i in range(min(n_plus, n_minus) + 1))
    if n_plus == n_minus or not 40 * tail < 2**n:
        return "inconclusive"
    return "better" if n_plus > n_minus else "worse"


def test_first_8_of_30_favour_the_candidate() -> None:
    """30 cases; the first 8 all favour the candidate, and so does every later one.

    After 8 up, 22 remain: all 22 up gives 30 up, 0 down (p = 2/2^30): better; all 22 down gives
    8 up, 22 down, p = 2 · P(X ≤ 8) = 2 · 8,656,937 / 2^30 = 0.0161: worse. So the remaining 22
    CAN change the verdict there (the issue's wording reads as if they could not: no two-sided
    5% sign test over 30 cases is settled by 8), and the run goes on.

    After k up with 30 − k to come, the verdict is certain when even all of the rest down leaves
    it better: k > 30 − k and 2 · P(X ≤ 30 − k) < 0.05, X ~ Bin(30, 1/2).
      k = 20: 2 · P(X ≤ 10) = 2 · 53,009,102 / 2^30 = 0.0987: not yet.
      k = 21: 2 · P(X ≤ 9)  = 2 · 22,964,087 / 2^30 = 0.0428 < 0.05: better, whatever the 9 do.
    So it stops after 21 cases: the first point where the remaining 9 cannot change the verdict.
    """
    assert certain(8, 0, 22) is None
    assert (sign_verdict(30, 0), sign_verdict(8, 22)) == ("better", "worse")
    assert certain(20, 0, 10) is None
    assert certain(21, 0, 9) == "better"
    assert stopping_point([1] * 30) == 21
    assert stopping_point([1] * 8 + [1] * 22) == 21


def test_the_8_then_ties_stop_when_one_case_is_left() -> None:
    """8 up, then ties (Δ = 0, counted in neither): with r to come, all r down gives 8 up, r down.
    r = 2: 2 · P(Bin(10) ≤ 2) = 2 · 56/1024 = 0.109: not better, so not certain.
    r = 1: 2 · P(Bin(9) ≤ 1) = 2 · 10/512 = 0.039: better either way: it stops after 29 of 30."""
    assert stopping_point([1] * 8 + [0] * 22) == 29


def test_an_even_split_stops_once_nothing_can_reach_5_percent() -> None:
    """Alternating up and down for 20 cases, then 10 up. After 2k cases (k, k) with 30 − 2k to
    come, all of them up gives (30 − k, k), better while 2 · P(Bin(30) ≤ k) < 0.05, i.e. k ≤ 9
    (k = 9: 0.0428; k = 10: 0.0987). At k = 10 neither extreme decides (each p = 0.0987):
    inconclusive whatever the last 10 do, so it stops after 20. Run to the end it is 20 up, 10
    down: p = 0.0987, inconclusive: the same verdict."""
    signs = [1, -1] * 10 + [1] * 10
    assert certain(10, 9, 11) is None and certain(10, 10, 10) == "inconclusive"
    assert stopping_point(signs) == 20
    assert sign_verdict(20, 10) == "inconclusive"


def test_five_cases_or_fewer_never_reach_5_percent() -> None:
    """With n ≤ 5 the smallest p is 2/2^5 = 0.0625: the verdict is inconclusive before any call;
    with 6, all up gives 2/64 = 0.031: better is possible, so it runs."""
    assert [stopping_point([1] * n) for n in range(6)] == [0] * 6
    assert certain(0, 0, 6) is None


def test_down_is_decided_as_up_is() -> None:
    assert stopping_point([-1] * 30) == 21
    assert certain(0, 21, 9) == "worse"


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 14), st.integers(0, 14), st.integers(0, 12))
def test_two_extremes_decide_every_completion(n_plus: int, n_minus: int, remaining: int) -> None:
    """certain() looks at two completions (all up, all down); by hand, every completion (a up, b
    down, the rest ties) with the verdict computed from the sign test's definition."""
    verdicts = {
        _verdict_by_hand(n_plus + a, n_minus + b)
        for a in range(remaining + 1)
        for b in range(remaining - a + 1)
    }
    expected = verdicts.pop() if len(verdicts) == 1 else None
    assert certain(n_plus, n_minus, remaining) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([-1, 0, 1]), max_size=40))
def test_a_curtailed_run_says_what_the_completed_run_says(signs: list[int]) -> None:
    """The verdict of the cases that ran before the stop equals the verdict of all of them."""
    ran = signs[: stopping_point(signs)]
    curtailed = sign_verdict(ran.count(1), ran.count(-1))
    assert curtailed == sign_verdict(signs.count(1), signs.count(-1))
    assert curtailed == _verdict_by_hand(signs.count(1), signs.count(-1))


def test_under_the_null_curtailing_says_better_no_more_often() -> None:
    """2,000 runs of 30 cases with no effect (each case up or down with probability 0.45, a tie
    0.1), seeds 0 to 1999: the curtailed gate says `better` no more often than the full sign
    test (here exactly as often: the verdicts are equal run by run), and the curtailed runs
    leave cases unrun."""
    curtailed_better = full_better = unrun = 0
    for seed in range(2000):
        draw = random.Random(seed)
        signs = [draw.choices([1, -1, 0], weights=[45, 45, 10])[0] for _ in range(30)]
        stop = stopping_point(signs)
        ran = signs[:stop]
        curtailed_better += sign_verdict(ran.count(1), ran.count(-1)) == "better"
        full_better += sign_verdict(signs.count(1), signs.count(-1)) == "better"
        unrun += 30 - stop
    assert curtailed_better <= full_better
    assert curtailed_better == full_better
    assert full_better < 2000 * 0.05  # the two-sided test's one side: at most 2.5% in expectation
    assert unrun > 0
