"""The prediction-powered mean (runs/inference/ppi.py): a worked example by hand, a differential against the
reference implementation (ppi_py) on 200 random inputs, and a simulation of a biased judge."""

from __future__ import annotations

import math
import random

import pytest

from adhd_evals.runs.inference import ppi

T_975_1 = 12.706204736174698  # Student's t, 0.975 quantile, 1 degree of freedom: tan(0.475 π)


def test_the_worked_example() -> None:
    """Person Y = [2, 4], judge on them f = [3, 5], judge on the 3 others f̃ = [4, 6, 8].
    mean Y = 3, mean f = 4, Cov(Y, f) = ((-1)(-1) + (1)(1)) / 2 = 1 (population form); the judge on all
    five cases [3, 5, 4, 6, 8] has mean 5.2 and sample variance (4.84 + 0.04 + 1.44 + 0.64 + 7.84) / 4
    = 3.7; λ = 1 / ((1 + 2/3) · 3.7) = 6/37 = 0.162162...
    θ̂ = λ · 6 + (3 - λ · 4) = 3 + 2λ = 3 + 12/37 = 3.324324...
    Y - λf = [2 - 3λ, 4 - 5λ]: they differ by 2 - 2λ, so their population variance is (1 - λ)^2 =
    (31/37)^2; f̃'s is 8/3. se^2 = (31/37)^2 / 2 + λ^2 · (8/3) / 3 = 961/2738 + 288/12321 = 0.374361,
    se = 0.611850. With 2 labelled cases the interval is θ̂ ± t(0.975, 1) · se = ± 12.7062 · 0.611850."""
    found = ppi.ppi_mean([2, 4], [3, 5], [4, 6, 8])
    assert found.lam == pytest.approx(6 / 37, abs=1e-12)
    assert found.value == pytest.approx(3 + 12 / 37, abs=1e-12)
    se = math.sqrt(961 / 2738 + 288 / 12321)
    assert found.se == pytest.approx(se, abs=1e-12)
    assert found.low == pytest.approx(3 + 12 / 37 - T_975_1 * se, abs=1e-9)
    assert found.high == pytest.approx(3 + 12 / 37 + T_975_1 * se, abs=1e-9)
    assert (found.labelled, found.cases) == (2, 5)


def test_lambda_one_is_classic_ppi_and_zero_the_labels_alone() -> None:
    """λ = 1: mean(f̃) + mean(Y - f) = 6 + (3 - 4) = 5. λ = 0: mean(Y) = 3."""
    assert ppi.ppi_mean([2, 4], [3, 5], [4, 6, 8], lam=1).value == pytest.approx(5)
    assert ppi.ppi_mean([2, 4], [3, 5], [4, 6, 8], lam=0).value == pytest.approx(3)


def test_a_judge_that_never_varies_gets_no_weight() -> None:
    """The judge says 3 everywhere: Var(f) = 0, so λ = 0 and the estimate is the labels' mean, 3."""
    found = ppi.ppi_mean([2, 4], [3, 3], [3, 3, 3])
    assert (found.lam, found.value) == (0.0, 3.0)


def test_one_label_gives_a_figure_and_no_interval() -> None:
    """n = 1: λ is not estimable (0), θ̂ = Y = 2, no interval."""
    found = ppi.ppi_mean([2], [3], [4, 6])
    assert (found.value, found.low, found.high, found.lam) == (2.0, None, None, 0.0)
    assert ppi.labels_only([2]).low is None and ppi.judge_only([2]).high is None


def test_every_case_labelled_is_the_labels_alone() -> None:
    """No case left for the judge alone: the labels' mean 3 with their t interval, sd sqrt(2), se 1."""
    found = ppi.ppi_mean([2, 4], [3, 5], [])
    assert found.value == 3.0 and found.high == pytest.approx(3 + T_975_1)


def test_mismatched_labels_are_refused() -> None:
    with pytest.raises(ValueError, match="same labelled cases"):
        ppi.ppi_mean([2, 4], [3], [4])


def _random_inputs(seed: int) -> list[tuple[list[float], list[float], list[float]]]:
    """200 (Y, f, f̃): 2-40 labelled, 1-300 unlabelled; the judge correlated with the person, biased,
    or pure noise."""
    rng = random.Random(seed)
    found = []
    for _ in range(200):
        n, big_n = rng.randint(2, 40), rng.randint(1, 300)
        slope, bias, noise = rng.choice([0, 0.5, 1, 2]), rng.uniform(-2, 2), rng.uniform(0.01, 2)
        truth = [rng.gauss(3, 1) for _ in range(n + big_n)]
        judge = [slope * t + bias + rng.gauss(0, noise) for t in truth]
        found.append((truth[:n], judge[:n], judge[n:]))
    return found


@pytest.mark.long
def test_agrees_with_an_independent_statement_of_ppi_plus_plus_on_200_random_inputs() -> None:
    """The same estimator written from the paper's formulas with the statistics module: λ =
    Cov(Y, f) / ((1 + n/N) Var(f ∪ f̃)), θ̂ = Ȳ + λ (mean f̃ - mean f), se^2 = Var(Y - λf)/n +
    λ^2 Var(f̃)/N (population forms as ppi_py; Var(f ∪ f̃) the sample form)."""
    import statistics as st

    for y, f, others in _random_inputs(2311):
        n, big_n = len(y), len(others)
        cov = st.covariance(y, f) * (n - 1) / n
        lam = min(1.0, max(0.0, cov / ((1 + n / big_n) * st.variance(f + others))))
        value = st.fmean(y) + lam * (st.fmean(others) - st.fmean(f))
        rectified = [a - lam * b for a, b in zip(y, f, strict=True)]
        se = math.sqrt(st.pvariance(rectified) / n + lam**2 * st.pvariance(others) / big_n)
        mine = ppi.ppi_mean(y, f, others)
        assert mine.lam == pytest.approx(lam, abs=1e-9)
        assert mine.value == pytest.approx(value, rel=1e-9, abs=1e-9)
        assert mine.se == pytest.approx(se, rel=1e-9, abs=1e-12)


@pytest.mark.long  # importing ppi_py (numba, pandas, scikit-learn) takes seconds, tens under load
def test_agrees_with_ppi_py_on_200_random_inputs() -> None:
    """ppi_py (Angelopoulos et al.'s reference implementation) on the same numbers: the point estimate
    and the standard error (its 95% interval's half-width over the normal quantile; ours uses t, so the
    intervals differ by design) agree to float noise, on _random_inputs' 200."""
    from statistics import NormalDist

    import numpy as np
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate  # type: ignore[import-untyped]

    z = NormalDist().inv_cdf(0.975)
    for y, f, others in _random_inputs(2311):
        mine = ppi.ppi_mean(y, f, others)
        arrays = np.array(y), np.array(f), np.array(others)
        assert mine.value == pytest.approx(float(ppi_mean_pointestimate(*arrays)[0]), rel=1e-9, abs=1e-9)
        low, high = ppi_mean_ci(*arrays, alpha=0.05)
        assert mine.se == pytest.approx(float(high[0] - low[0]) / 2 / z, rel=1e-7, abs=1e-12)


def _one_run(rng: random.Random) -> tuple[ppi.Three, float]:
    """200 cases; a case's true Δ is θ + N(0, 1) with θ = 0.3; the judge's is the truth + 1 (it adds 1
    to every candidate score) + N(0, 0.5) noise; a person labels 30 cases drawn at random."""
    theta = 0.3
    truth = {f"c{i}": [theta + rng.gauss(0, 1)] for i in range(200)}
    judged = {case: [v[0] + 1 + rng.gauss(0, 0.5)] for case, v in truth.items()}
    labelled = rng.sample(sorted(truth), 30)
    return ppi.three(judged, {case: truth[case] for case in labelled}, 0), theta


def _covers(found: ppi.Estimate | None, theta: float) -> bool:
    assert found is not None and found.low is not None and found.high is not None
    return found.low <= theta <= found.high


def _width(found: ppi.Estimate | None) -> float:
    assert found is not None and found.low is not None and found.high is not None
    return found.high - found.low


@pytest.mark.long
def test_a_biased_judge_is_corrected_by_30_random_labels_of_200() -> None:
    """400 simulated suites (seeded): the PPI interval covers the true Δ in at least 93% of them and is
    narrower than the labels-only interval in at least 80%; the judge taken at its word (off by +1,
    its interval about ±0.16 wide) covers it in under half."""
    rng = random.Random(30)
    runs = [_one_run(rng) for _ in range(400)]
    covered = sum(_covers(found.ppi, theta) for found, theta in runs)
    narrower = sum(_width(found.ppi) < _width(found.labels) for found, _ in runs)
    judge = sum(_covers(found.judge, theta) for found, theta in runs)
    assert covered >= 0.93 * 400, covered
    assert narrower >= 0.80 * 400, narrower
    assert judge < 0.50 * 400, judge
