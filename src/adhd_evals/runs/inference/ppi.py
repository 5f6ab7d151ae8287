"""Prediction-powered inference: a judge's figures corrected by a person's random sample.

The judge scores every case; a person labels a random sample of the cases
(`blind --label-sample K`). The case is the unit: each case's value is a mean
over its trials (and, for Δ, the candidate's mean minus the baseline's), so
trials and criteria of one case, which move together, count as one
observation. With Y the person's value and f the judge's, on the n labelled
cases, and f̃ the judge's on the N cases nobody labelled (PPI++, Angelopoulos,
Duchi and Zrnic, arXiv 2311.01453, the mean estimator):

    θ̂ = λ · mean(f̃) + mean(Y − λ·f)
    λ = Cov(Y, f) / ((1 + n/N) · Var(f over all n + N cases)), clipped to [0, 1]
    se² = Var(Y − λ·f) / n + λ² · Var(f̃) / N
    95% interval: θ̂ ± t(0.975, n − 1) · se

Cov and the two variances inside se are the population (1/n) forms, Var(f over
all cases) the sample form, as the reference implementation (ppi_py) has
them. λ = 1 is classic PPI, λ = 0 the person's labels alone; the tuned λ makes
the interval, up to sampling noise, never wider than the labels alone. The
interval is valid whatever the judge's quality: a biased judge moves mean(f̃)
and mean(f) alike, and the rectifier mean(Y − λ·f) takes the bias back out; a
noisy judge gets a small λ. It rests on one assumption the tool can check:
the labelled cases are a uniform random sample of the cases (the key records
the seed and the draw, and `score` draws it again). Where ppi_py uses the
normal quantile, this uses Student's t with n − 1 degrees of freedom: with 20
labels the normal one is about 6% too narrow.

Worked example (the figures tests/test_ppi_mean.py checks by hand): person
Y = [2, 4], judge on them f = [3, 5], judge on the others f̃ = [4, 6, 8]. n = 2,
N = 3; mean Y = 3, mean f = 4, Cov(Y, f) = ((−1)(−1) + (1)(1)) / 2 = 1; the
judge over all five cases is [3, 5, 4, 6, 8], mean 5.2, sample variance
14.8 / 4 = 3.7; λ = 1 / ((1 + 2/3) · 3.7) = 0.162162…; mean(f̃) = 6, so
θ̂ = 0.162162 · 6 + (3 − 0.162162 · 4) = 3.324324…
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple, cast

from ...errors import InputInvalid, UsageError
from ...text import plural
from ..rows import KeyRow, LabelSample, ScoreRow, SheetRow
from ..rubric import CONDITIONS, Metric
from .paired import LEVEL, t_quantile

if TYPE_CHECKING:
    from ..summaries import EstimateJson, PpiSection, ThreeJson

METHOD = (
    "prediction-powered inference (PPI++, power-tuned λ) over cases: the judge's mean over the cases "
    "nobody labelled, rectified by person − judge on a random sample of cases"
)


class Estimate(NamedTuple):
    """One figure with its 95% interval (None: fewer than two labelled values, or none at all)."""

    value: float
    low: float | None
    high: float | None
    se: float
    labelled: int  # cases the person labelled that count (the random sample's)
    cases: int  # every case the figure is about
    lam: float  # 1: the judge trusted fully; 0: the person's labels alone

    def json(self) -> EstimateJson:
        ci = None if self.low is None or self.high is None else [self.low, self.high]
        return {
            "estimate": self.value,
            "ci": ci,
            "se": self.se,
            "labelled": self.labelled,
            "cases": self.cases,
            "lambda": self.lam,
        }


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def _variance(values: Sequence[float], ddof: int = 0) -> float:
    centre = _mean(values)
    return math.fsum((v - centre) ** 2 for v in values) / (len(values) - ddof)


def _halfwidth(se: float, n: int) -> float:
    return t_quantile(1 - (1 - LEVEL) / 2, n - 1) * se


def tuned_lambda(person: Sequence[float], judged: Sequence[float], others: Sequence[float]) -> float:
    """PPI++'s variance-minimising λ for a mean, clipped to [0, 1] (0 when the judge never varies:
    it then carries no information about the person's values)."""
    n, big_n = len(person), len(others)
    if n < 2 or not big_n:
        return 0.0
    my, mf = _mean(person), _mean(judged)
    cov = math.fsum((y - my) * (f - mf) for y, f in zip(person, judged, strict=True)) / n
    spread = _variance([*judged, *others], ddof=1)
    if spread == 0:
        return 0.0
    return min(1.0, max(0.0, cov / ((1 + n / big_n) * spread)))


def ppi_mean(
    person: Sequence[float], judged: Sequence[float], others: Sequence[float], *, lam: float | None = None
) -> Estimate:
    """The prediction-powered mean: `person` and `judged` pair up on the labelled cases, `others`
    is the judge on the cases nobody labelled; `lam` None tunes λ (see the module's docstring)."""
    if len(person) != len(judged) or not person:
        raise ValueError("PPI needs the person's and the judge's values on the same labelled cases")
    if not others:  # every case labelled: the person's labels are the whole answer
        return labels_only(person)
    n, big_n = len(person), len(others)
    lam = tuned_lambda(person, judged, others) if lam is None else lam
    rectifier = [y - lam * f for y, f in zip(person, judged, strict=True)]
    value = lam * _mean(others) + _mean(rectifier)
    se = math.sqrt(_variance(rectifier) / n + lam * lam * _variance(others) / big_n)
    if n < 2:
        return Estimate(value, None, None, se, n, n + big_n, lam)
    half = _halfwidth(se, n)
    return Estimate(value, value - half, value + half, se, n, n + big_n, lam)


def labels_only(person: Sequence[float]) -> Estimate:
    """The person's labels alone: their mean, with the t interval of the labelled cases."""
    n = len(person)
    value = _mean(person)
    se = math.sqrt(_variance(person, ddof=1) / n) if n > 1 else 0.0
    if n < 2:
        return Estimate(value, None, None, se, n, n, 0.0)
    half = _halfwidth(se, n)
    return Estimate(value, value - half, value + half, se, n, n, 0.0)


def judge_only(judged: Sequence[float]) -> Estimate:
    """The judge's figure taken at its word: its mean over every case, with the t interval a
    person would get if the judge were right (it covers only sampling noise, never the judge's bias)."""
    n = len(judged)
    value = _mean(judged)
    se = math.sqrt(_variance(judged, ddof=1) / n) if n > 1 else 0.0
    if n < 2:
        return Estimate(value, None, None, se, 0, n, 1.0)
    half = _halfwidth(se, n)
    return Estimate(value, value - half, value + half, se, 0, n, 1.0)


# ---- the random sample ------------------------------------------------------------------

SAMPLE_METHOD = "random.Random(seed).sample(sorted(case ids), K)"


def draw(case_ids: Iterable[str], size: int, seed: int) -> list[str]:
    """K cases uniformly at random, sorted: the same cases for the same ids, K and seed."""
    ids = sorted(set(case_ids))
    if not 1 <= size <= len(ids):
        raise UsageError(
            f"--label-sample must be between 1 and the {plural(len(ids), 'case')} there are, not {size}"
        )
    return sorted(random.Random(seed).sample(ids, size))


def sample_problems(sample: LabelSample, key: Sequence[KeyRow]) -> list[str]:
    """Whether the key's sample is the one its seed draws from its cases (so nobody picked it)."""
    if sample["method"] != SAMPLE_METHOD:
        return [f"the key's label sample was drawn by {sample['method']!r}, not {SAMPLE_METHOD!r}"]
    cases = {row["case_id"] for row in key}
    size = len(sample["case_ids"])
    if not 1 <= size <= len(cases) or draw(cases, size, sample["seed"]) != sorted(sample["case_ids"]):
        return [
            f"the key's label sample is not the {plural(size, 'case')} seed {sample['seed']} draws from its "
            f"{plural(len(cases), 'case')}: it was changed, and labels of chosen cases cannot correct a judge"
        ]
    return []


# ---- case-level values --------------------------------------------------------------------

Values = dict[str, list[float]]  # case -> [weighted score, then each metric], means over its trials


def case_means(rows: Iterable[ScoreRow], weights: Mapping[Metric, float]) -> Values:
    """Each case's mean over its rows: the weighted score, then each metric."""
    sums: dict[str, list[float]] = {}
    metrics = list(weights)
    for row in rows:
        total = sums.get(row["case_id"])
        if total is None:
            total = sums[row["case_id"]] = [0.0] * (len(metrics) + 1)
        for i, metric in enumerate(metrics):
            total[i] += float(row[metric])
        total[-1] += 1
    found: Values = {}
    for case, total in sums.items():
        means = [v / total[-1] for v in total[:-1]]
        found[case] = [math.fsum(w * m for w, m in zip(weights.values(), means, strict=True)), *means]
    return found


def deltas(baseline: Values, candidate: Values) -> Values:
    return {
        case: [c - b for c, b in zip(candidate[case], base, strict=True)]
        for case, base in baseline.items()
        if case in candidate
    }


class Three(NamedTuple):
    """One quantity three ways: the judge at its word, PPI, the person's labels alone."""

    judge: Estimate
    ppi: Estimate | None  # None: no labelled case
    labels: Estimate | None

    def json(self) -> ThreeJson:
        return {
            "judge": self.judge.json(),
            "ppi": None if self.ppi is None else self.ppi.json(),
            "labels": None if self.labels is None else self.labels.json(),
        }


def three(judged: Values, person: Values, index: int) -> Three:
    """Quantity `index` of every case: the judge over all, PPI, the labels alone."""
    labelled = sorted(case for case in person if case in judged)
    others = [values[index] for case, values in judged.items() if case not in person]
    everyone = judge_only([values[index] for values in judged.values()])
    if not labelled:
        return Three(everyone, None, None)
    ys = [person[case][index] for case in labelled]
    fs = [judged[case][index] for case in labelled]
    return Three(everyone, ppi_mean(ys, fs, others), labels_only(ys))


# ---- the person's sample, beside the judge's rows ------------------------------------------


class LabelSet(NamedTuple):
    """`score --labels`: the person's filled sheet (conditions mapped back through the key) and the
    random sample the key records."""

    rows: list[SheetRow]
    sample: LabelSample


class Section(NamedTuple):
    json: PpiSection  # score --json's "ppi"
    delta: dict[str, Three]  # per quantity: the paired Δ three ways
    person_delta: Values  # the labelled sample's Δ per case, as the person scored it
    blockers: list[str]  # labelled cases where the person marked a candidate blocker and no baseline one


def filled(rows: Iterable[SheetRow], weights: Mapping[Metric, float]) -> tuple[list[ScoreRow], list[str]]:
    """The rows a person scored (every metric given, 1 to 5; the blocker optional); rows left blank
    are not labels. A row half filled, or scored out of range, is a problem, named."""
    found: list[ScoreRow] = []
    problems: list[str] = []
    for index, row in enumerate(rows, start=1):
        given = [m for m in weights if row.get(m) is not None]
        if not given:
            continue
        where = f"Label row {index} ({row.get('case_id')}/trial {row.get('trial')})"
        if len(given) < len(weights):
            missing = ", ".join(m for m in weights if m not in given)
            problems.append(f"{where}: scored in part; give {missing} too, or leave the row blank")
            continue
        bad = [m for m in weights if not _a_score(row.get(m))]
        if bad or row.get("condition") not in CONDITIONS:
            problems.append(
                f"{where}: {', '.join(bad) or 'condition'} must be "
                + ("between 1 and 5" if bad else "a condition")
            )
            continue
        scored = {**row, "blocker": row.get("blocker") is True, "notes": str(row.get("notes") or "")}
        found.append(cast("ScoreRow", scored))  # checked just above: each metric 1 to 5, a condition
    return found, problems


def _a_score(value: object) -> bool:
    """A metric's score: a number from 1 to 5 (a bool is no number here)."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and 1 <= value <= 5


def _by_case(rows: Iterable[ScoreRow]) -> dict[str, set[tuple[int, str]]]:
    cells: dict[str, set[tuple[int, str]]] = defaultdict(set)
    for row in rows:
        cells[row["case_id"]].add((row["trial"], row["condition"]))
    return cells


def section(
    grouped: Mapping[str, list[ScoreRow]],
    void: set[tuple[str, int]],
    labels: LabelSet,
    weights: Mapping[Metric, float],
) -> Section:
    """The judge's figures, PPI's and the labels' alone, per condition and for the paired Δ."""
    person, problems = filled(labels.rows, weights)
    person = [
        r
        for r in person
        if (r["case_id"], r["trial"]) not in void and r["condition"] in ("baseline", "candidate")
    ]
    judged_rows = [*grouped["baseline"], *grouped["candidate"]]
    judged, said = _by_case(judged_rows), _by_case(person)
    sample = set(labels.sample["case_ids"])
    for case in sorted(sample & set(said)):
        if case in judged and said[case] != judged[case]:
            problems.append(
                f"{case}: the person labelled {plural(len(said[case]), 'row')} of its {len(judged[case])} judged "
                "rows; label every row of a sampled case (both conditions, every trial)"
            )
    if problems:
        raise InputInvalid(problems)
    used = [r for r in person if r["case_id"] in sample and r["case_id"] in judged]
    values = {c: case_means(grouped[c], weights) for c in ("baseline", "candidate")}
    mine = {
        c: case_means([r for r in used if r["condition"] == c], weights) for c in ("baseline", "candidate")
    }
    names = ["weighted_score", *weights]
    delta = {
        q: three(
            deltas(values["baseline"], values["candidate"]), deltas(mine["baseline"], mine["candidate"]), i
        )
        for i, q in enumerate(names)
    }
    conditions = {
        c: {q: three(values[c], mine[c], i).json() for i, q in enumerate(names)}
        for c in ("baseline", "candidate")
    }
    labelled = sorted(mine["baseline"])
    found: PpiSection = {
        "method": METHOD,
        "level": LEVEL,
        "interval": "θ̂ ± t(0.975, n − 1) · se, n the labelled cases",
        "sample": {
            "seed": labels.sample["seed"],
            "drawn": len(sample),
            "labelled": labelled,
            "not_labelled": sorted(sample - set(said)),
            "not_judged": sorted(sample - set(judged)),
            "outside_sample": sorted(set(said) - sample),
            "cases": len(judged),
        },
        "conditions": conditions,
        "delta": {q: t.json() for q, t in delta.items()},
    }
    blockers = sorted(
        {r["case_id"] for r in used if r["condition"] == "candidate" and r["blocker"]}
        - {r["case_id"] for r in used if r["condition"] == "baseline" and r["blocker"]}
    )
    return Section(found, delta, deltas(mine["baseline"], mine["candidate"]), blockers)


def _shown(estimate: EstimateJson | None) -> str:
    if estimate is None:
        return "-"
    ci = estimate["ci"]
    around = "" if ci is None else f" [{ci[0]:+.2f}, {ci[1]:+.2f}]"
    return f"{estimate['estimate']:+.2f}{around}"


def table(found: PpiSection) -> list[str]:
    """`score`'s lines for the PPI section: the sample, then each figure three ways."""
    from ...text import table as text_table

    sample = found["sample"]
    lines = [
        f"Prediction-powered (PPI++, case-level; {plural(len(sample['labelled']), 'labelled case')} of "
        f"{sample['cases']}, a random sample drawn with seed {sample['seed']}; 95% CI):"
    ]
    if sample["not_labelled"]:
        lines.append(
            f"  {plural(len(sample['not_labelled']), 'sampled case')} not labelled: {', '.join(sample['not_labelled'][:10])}"
        )
    if sample["outside_sample"]:
        lines.append(
            f"  {plural(len(sample['outside_sample']), 'labelled case')} outside the random sample "
            "(used for agreement only, never for the estimate): " + ", ".join(sample["outside_sample"][:10])
        )
    rows = [["figure", "judge only", "PPI", "labels only", "λ"]]
    for name, figures in [
        *(("Δ " + q, t) for q, t in found["delta"].items()),
        *((f"{c} {q}", t) for c, qs in found["conditions"].items() for q, t in qs.items()),
    ]:
        ppi = figures["ppi"]
        rows.append(
            [
                name,
                _shown(figures["judge"]),
                _shown(ppi),
                _shown(figures["labels"]),
                "-" if ppi is None else f"{ppi['lambda']:.2f}",
            ]
        )
    return lines + text_table(rows)
