"""Issue 38 item 1: Student's t quantile (score's and report's power figures) stops its bisection
at the first step that changes nothing, and gives exactly the 80-step bisection's value, bit for
bit, so no figure a summary prints moves.

The reference below is the rule as the docstring of `t_quantile` states it, written out: double
the bracket's top until the CDF passes, then 80 halvings.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.runs.inference import paired


def _eighty_halvings(p: float, df: int) -> float:
    low, high = 0.0, 1.0
    while paired._t_within(high, df) < 2 * p - 1:
        high *= 2
    for _ in range(80):
        mid = (low + high) / 2
        low, high = (mid, high) if paired._t_within(mid, df) < 2 * p - 1 else (low, mid)
    return (low + high) / 2


@settings(max_examples=60, deadline=None)
@given(p=st.floats(min_value=0.5001, max_value=0.9999), df=st.integers(min_value=1, max_value=200))
def test_the_quantile_is_the_eighty_step_bisection_s(p: float, df: int) -> None:
    assert paired.t_quantile.__wrapped__(p, df) == _eighty_halvings(p, df)


@pytest.mark.parametrize(("p", "df"), [(0.975, 1), (0.975, 2), (0.8, 2), (0.975, 9), (0.8, 200)])
def test_the_quantiles_a_report_asks(p: float, df: int) -> None:
    """The two-sided 95% level and 80% power at the degrees of freedom a small suite has."""
    assert paired.t_quantile.__wrapped__(p, df) == _eighty_halvings(p, df)


def test_a_quantile_near_zero_takes_all_eighty_steps() -> None:
    """p = 0.5 + 1e-12 at one degree of freedom: P(|T| <= t) = 2/pi atan(t), so t is about
    pi * 1e-12, whose last bit (about 2^-91) lies more than 80 halvings below the bracket [0, 1]:
    the 80 steps end before one changes nothing, and the value is still theirs."""
    assert paired.t_quantile.__wrapped__(0.5 + 1e-12, 1) == _eighty_halvings(0.5 + 1e-12, 1)
