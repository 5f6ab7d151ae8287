"""Deterministic curtailment of a paired run: stop once the sign test's verdict cannot change."""

from __future__ import annotations

import random
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.runs.running.curtail import Stop, certain, e_value, sign_verdict
from adhd_evals.runs.running.curtail import stopping_point as stopping


def _ran(signs: list[int]) -> int:
    """How many cases run before the exact curtailment stops."""
    return stopping(signs)[0]


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
    assert _ran([1] * 30) == 21
    assert _ran([1] * 8 + [1] * 22) == 21


def test_the_8_then_ties_stop_when_one_case_is_left() -> None:
    """8 up, then ties (Δ = 0, counted in neither): with r to come, all r down gives 8 up, r down.
    r = 2: 2 · P(Bin(10) ≤ 2) = 2 · 56/1024 = 0.109: not better, so not certain.
    r = 1: 2 · P(Bin(9) ≤ 1) = 2 · 10/512 = 0.039: better either way: it stops after 29 of 30."""
    assert _ran([1] * 8 + [0] * 22) == 29


def test_an_even_split_stops_once_nothing_can_reach_5_percent() -> None:
    """Alternating up and down for 20 cases, then 10 up. After 2k cases (k, k) with 30 − 2k to
    come, all of them up gives (30 − k, k), better while 2 · P(Bin(30) ≤ k) < 0.05, i.e. k ≤ 9
    (k = 9: 0.0428; k = 10: 0.0987). At k = 10 neither extreme decides (each p = 0.0987):
    inconclusive whatever the last 10 do, so it stops after 20. Run to the end it is 20 up, 10
    down: p = 0.0987, inconclusive: the same verdict."""
    signs = [1, -1] * 10 + [1] * 10
    assert certain(10, 9, 11) is None and certain(10, 10, 10) == "inconclusive"
    assert _ran(signs) == 20
    assert sign_verdict(20, 10) == "inconclusive"


def test_five_cases_or_fewer_never_reach_5_percent() -> None:
    """With n ≤ 5 the smallest p is 2/2^5 = 0.0625: the verdict is inconclusive before any call;
    with 6, all up gives 2/64 = 0.031: better is possible, so it runs."""
    assert [_ran([1] * n) for n in range(6)] == [0] * 6
    assert certain(0, 0, 6) is None


def test_down_is_decided_as_up_is() -> None:
    assert _ran([-1] * 30) == 21
    assert certain(0, 21, 9) == "worse"


@pytest.mark.long
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


@pytest.mark.long
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([-1, 0, 1]), max_size=40))
def test_a_curtailed_run_says_what_the_completed_run_says(signs: list[int]) -> None:
    """The verdict of the cases that ran before the stop equals the verdict of all of them."""
    ran = signs[: _ran(signs)]
    curtailed = sign_verdict(ran.count(1), ran.count(-1))
    assert curtailed == sign_verdict(signs.count(1), signs.count(-1))
    assert curtailed == _verdict_by_hand(signs.count(1), signs.count(-1))


@pytest.mark.long
def test_under_the_null_curtailing_says_better_no_more_often() -> None:
    """2,000 runs of 30 cases with no effect (each case up or down with probability 0.45, a tie
    0.1), seeds 0 to 1999: the curtailed gate says `better` no more often than the full sign
    test (here exactly as often: the verdicts are equal run by run), and the curtailed runs
    leave cases unrun."""
    curtailed_better = full_better = unrun = 0
    for seed in range(2000):
        draw = random.Random(seed)
        signs = [draw.choices([1, -1, 0], weights=[45, 45, 10])[0] for _ in range(30)]
        stop = _ran(signs)
        ran = signs[:stop]
        curtailed_better += sign_verdict(ran.count(1), ran.count(-1)) == "better"
        full_better += sign_verdict(signs.count(1), signs.count(-1)) == "better"
        unrun += 30 - stop
    assert curtailed_better <= full_better
    assert curtailed_better == full_better
    assert full_better < 2000 * 0.05  # the two-sided test's one side: at most 2.5% in expectation
    assert unrun > 0


# ---- --anytime: the e-process ------------------------------------------------------------


def test_the_e_process_starts_at_1_and_stops_8_cases_in_when_all_go_up() -> None:
    """E after t ups and no downs = [Σ(1 + λ)^t + Σ(1 − λ)^t] / 18 over λ = 0.1, ..., 0.9.
    t = 7: Σ(1 + λ)^7 = 1.948717 + 3.583181 + 6.274852 + 10.54135 + 17.08594 + 26.84355
    + 41.03387 + 61.222 + 89.38717 = 257.92063, Σ(1 − λ)^7 = 0.808042: E = 258.72867/18 = 14.374.
    t = 8: Σ(1 + λ)^8 = 447.72996, Σ(1 − λ)^8 = 0.677308: E = 448.40727/18 = 24.912 ≥ 20.
    So of 30 cases all favouring the candidate it runs 8 and stops: `better` (the exact sign
    test's curtailment needs 21)."""
    assert e_value(0, 0)[0] == 1 and e_value(0, 0)[1] == "better"
    assert float(e_value(7, 0)[0]) == pytest.approx(14.374, abs=1e-3)
    assert float(e_value(8, 0)[0]) == pytest.approx(24.912, abs=1e-3)
    ran, why = stopping([1] * 30, anytime=True)
    assert ran == 8 and why is not None and (why.verdict, why.rule) == ("better", "e-process")
    assert e_value(0, 8)[1] == "worse" and stopping([-1] * 30, anytime=True)[1] == Stop(
        "worse", "e-process", e_value(0, 8)[0]
    )


def test_without_anytime_the_e_process_is_not_consulted() -> None:
    """Six cases up, down, up, down, ...: after 1 up and 1 down with 4 to come, all 4 up gives 5 up
    1 down, p = 2 · 7/64 = 0.22, and all 4 down the mirror: inconclusive either way, so the sign
    test's curtailment stops after 2. The e-process alone never reaches 20 here (3 up, 3 down at
    most: E stays near 1), so with --anytime all 6 run and nothing stops it."""
    assert stopping([1] * 30) == (21, Stop("better", "sign test"))
    assert stopping([1, -1] * 3) == (2, Stop("inconclusive", "sign test"))
    assert stopping([1, -1] * 3, anytime=True) == (6, None)


@pytest.mark.long
def test_under_the_null_the_e_process_says_better_or_worse_at_most_5_percent_of_the_time() -> None:
    """1,000 runs of 60 cases with no effect (up or down with probability 0.45 each, a tie 0.1),
    seeds 0 to 999: the share of runs the e-process stops on either side stays under α = 0.05
    (Ville's inequality bounds it; a run it never stops is inconclusive)."""
    sided = better = 0
    for seed in range(1000):
        draw = random.Random(seed)
        signs = [draw.choices([1, -1, 0], weights=[45, 45, 10])[0] for _ in range(60)]
        _, why = stopping(signs, anytime=True)
        sided += why is not None
        better += why is not None and why.verdict == "better"
    assert sided < 1000 * 0.05 and better <= sided


def test_with_an_effect_the_e_process_stops_sooner_on_average() -> None:
    """Cases up with probability 0.8, down 0.2, 30 of them, seeds 0 to 199: the e-process runs
    fewer cases on the whole than the sign test's curtailment."""
    anytime = exact = 0
    for seed in range(200):
        draw = random.Random(seed)
        signs = [draw.choices([1, -1], weights=[80, 20])[0] for _ in range(30)]
        anytime += stopping(signs, anytime=True)[0]
        exact += stopping(signs)[0]
    assert anytime < exact
