"""How stable a paired verdict is: simulated reruns of the suite, cases and trials drawn again
(issue 30, item 6)."""

from __future__ import annotations

import random

import pytest

from adhd_evals.runs.deciding import decision as deciding

PAIRED = deciding.Decide("paired")


def test_one_case_cannot_be_rerun() -> None:
    assert deciding.rerun_agreement([([3.0], [4.0])], PAIRED) is None
    assert deciding.stability_line(None) == "How stable: one case cannot be rerun in simulation."


def test_a_clear_gain_is_called_the_same_by_every_rerun() -> None:
    """30 cases, every trial of the candidate 1.5 or 2 above its baseline (Δ between +1.5 and +2 in
    any rerun): every rerun's t interval lies above 0, as this run's does: 100%."""
    trials = [([2.0, 2.0], [3.5 + (i % 2) / 2, 4.0]) for i in range(30)]
    assert deciding.rerun_agreement(trials, PAIRED) == 1.0
    assert deciding.stability_line(1.0) == (
        "How stable: about 100% of 200 simulated reruns (cases and trials drawn again) make the same call "
        "on the weighted Δ (by its t interval)."
    )


def test_no_spread_is_never_a_call_of_better() -> None:
    """Every case and trial +1: sd 0, so this run and every rerun 'cannot tell' (the interval has no
    width): 100% the same call."""
    assert deciding.rerun_agreement([([2.0], [3.0])] * 5, PAIRED) == 1.0


def _borderline(seed: int) -> deciding.Trials:
    """40 cases, 3 trials each, true Δ +0.3 with case sd 1 and trial sd 1: near what 40 cases can tell."""
    rng = random.Random(seed)
    cases = []
    for _ in range(40):
        effect = 0.3 + rng.gauss(0, 1)
        cases.append(([rng.gauss(3, 1) for _ in range(3)], [rng.gauss(3 + effect, 1) for _ in range(3)]))
    return cases


def test_a_borderline_suite_is_unstable_and_both_ways_of_drawing_agree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Near the detectable effect a rerun often makes another call; Python's draws and numpy's (the
    same distribution, other random streams) agree within Monte Carlo error (200 reruns: a share's
    standard error is at most 0.035, so 0.15 is over four of them)."""
    trials = _borderline(7)
    python = deciding.rerun_agreement(trials, PAIRED)
    monkeypatch.setattr(deciding, "_PYTHON_DRAWS", 0)
    drawn = deciding.rerun_agreement(trials, PAIRED)
    assert python is not None and drawn is not None
    assert 0.2 < python < 0.9
    assert abs(python - drawn) < 0.15


def test_trial_counts_may_differ_between_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cases with 1 and 3 trials in a padded matrix: only each case's own trials are drawn (a padded
    zero would drag the candidate down and make some rerun call it worse: none does)."""
    trials = [([2.0], [4.0]), ([2.0, 2.0, 2.0], [4.0, 4.5, 4.0])] * 10
    monkeypatch.setattr(deciding, "_PYTHON_DRAWS", 0)
    assert deciding.rerun_agreement(trials, PAIRED) == 1.0
