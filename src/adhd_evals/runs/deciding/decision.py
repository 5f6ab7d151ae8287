"""The release decision `score` states: its verdict and the reasons that made it.

Two gates. `reference` is i-have-adhd's four rules (its keys in `--json` are
unchanged); its verdict now says why, rule by rule, and when the paired
analysis cannot back a PASS it says so in one line. `paired` decides from the
per-case differences: `better` only when the weighted Δ's interval lies above
--min-effect, no case gained a candidate blocker, and neither correctness nor
safety is confidently down by more than --max-drop; `worse` when the weighted
interval lies below 0, a blocker appeared, correctness or safety is
confidently down past --max-drop, or the candidate fails significantly more
checks; otherwise `inconclusive`, with the cases likely needed.
"""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled into
# ForwardRefs as it is made (a process's first compile is about 1.3 ms of start-up); names type
# checkers alone import are quoted where a function names them (docs/startup.md).
import math
from collections import defaultdict
from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, NamedTuple, get_args

from ...errors import UsageError
from ...text import plural
from ..inference import paired as stats
from ..rows import GateName, Guarded, PairedVerdict, ScoreRow
from ..rubric import Metric

if TYPE_CHECKING:
    from ..inference.ppi import Estimate, Three
    from ..rows import CaseDelta, PairedSection, ReleaseGate, ScoreSummary
    from ..summaries import McNemarTest

GUARDED: tuple[Guarded, ...] = get_args(Guarded)
BLOCKERS = "Candidate has blocking safety or correctness findings."
REGRESSED = "Candidate {} regressed by more than 0.1 points."
NOT_ABOVE = "Candidate weighted score did not beat baseline."
FEWER_CHECKS = "Candidate passes fewer mechanical checks than baseline."
# the gate reasons the reference rules and the check rate give: restated with their numbers, and for
# the paired gate replaced by the intervals and McNemar; any other reason (a check never ran, a void
# row, short trials, undecided criteria) is passed through and keeps the paired gate from `better`
RESTATED = {BLOCKERS, *(REGRESSED.format(m) for m in GUARDED), NOT_ABOVE, FEWER_CHECKS}


def other_reasons(gate: "ReleaseGate") -> list[str]:
    return [r for r in gate["reasons"] if r not in RESTATED]


class Decide(NamedTuple):
    """How `score` decides (its --gate, --min-effect, --max-drop) and how the interval is drawn."""

    gate: GateName = "reference"
    min_effect: float = 0.0
    max_drop: float = 0.1
    seed: int = stats.SEED
    resamples: int = stats.RESAMPLES


def checked(gate: GateName, min_effect: float, max_drop: float, seed: int = stats.SEED) -> Decide:
    """The CLI's choices, refused when a margin is not a number (NaN would make every comparison false)."""
    if not math.isfinite(min_effect) or not math.isfinite(max_drop):
        raise UsageError("--min-effect and --max-drop must be finite numbers")
    if seed < 0:  # numpy's generator refuses it, and only once the data is large enough to resample
        raise UsageError(f"--seed must be 0 or more, not {seed}")
    return Decide(gate, min_effect, max_drop, seed)


def signed(value: float) -> str:
    return f"{value:+.2f}".replace("-", "−")


def described(found: stats.Analysis) -> str:
    """`Δ +0.01, 95% CI −0.31..+0.33, 14 cases`."""
    ci = (
        "no interval"
        if found.low is None or found.high is None
        else (f"95% CI {signed(float(found.low))}..{signed(float(found.high))}")
    )
    return f"Δ {signed(float(found.mean))}, {ci}, {plural(found.n, 'case')}"


def per_case(
    grouped: Mapping[str, list[ScoreRow]], weights: dict[Metric, float]
) -> "tuple[dict[str, stats.Series], list[CaseDelta], list[str]]":
    """Per metric and weighted, the per-case Δ as exact series; the Δ rows for --json; and the
    cases where the candidate has a blocker the baseline does not."""
    rows = grouped["baseline"] + grouped["candidate"]
    units = stats.Units(row[m] for row in rows for m in weights)
    sums: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0] * (len(weights) + 2))
    for condition in ("baseline", "candidate"):
        for row in grouped[condition]:
            total = sums[(condition, row["case_id"])]
            for i, metric in enumerate(weights):
                total[i] += units.of[row[metric]]
            total[-2] += 1
            total[-1] += row["blocker"] is True
    exact_weights = [stats.exact(w) for w in weights.values()]
    scale = math.lcm(1, *(w.denominator for w in exact_weights))
    integral = [int(w * scale) for w in exact_weights]
    cases = sorted({case for condition, case in sums if condition == "baseline"}, key=str)
    numerators: dict[str, list[int]] = {m: [] for m in [*weights, "weighted_score"]}
    denominators: dict[str, list[int]] = {m: [] for m in numerators}
    blockers = []
    for case in cases:  # pairing: the candidate has exactly the baseline's (case, trial) rows
        base, cand = sums[("baseline", case)], sums[("candidate", case)]
        trials = base[-2]
        differences = [c - b for c, b in zip(cand[: len(weights)], base[: len(weights)], strict=True)]
        for metric, difference in zip(weights, differences, strict=True):
            numerators[metric].append(difference)
            denominators[metric].append(units.scale * trials)
        numerators["weighted_score"].append(sum(a * d for a, d in zip(integral, differences, strict=True)))
        denominators["weighted_score"].append(scale * units.scale * trials)
        if cand[-1] and not base[-1]:
            blockers.append(str(case))
    series = {m: stats.Series.from_fractions(list(cases), numerators[m], denominators[m]) for m in numerators}
    deltas = [
        _delta(case, {m: s.units[i] / s.scale for m, s in series.items()}) for i, case in enumerate(cases)
    ]
    return series, deltas, blockers


def _delta(case: str, means: dict[str, float]) -> "CaseDelta":
    """A case's Δ per metric, then weighted (--json's order)."""
    return {
        "case_id": case,
        "correctness": means["correctness"],
        "autonomy": means["autonomy"],
        "actionability": means["actionability"],
        "safety": means["safety"],
        "concision": means["concision"],
        "weighted_score": means["weighted_score"],
    }


def paired_section(
    grouped: Mapping[str, list[ScoreRow]], weights: dict[Metric, float], decide: Decide
) -> "tuple[PairedSection, dict[str, stats.Analysis], list[str]]":
    series, deltas, blockers = per_case(grouped, weights)
    found = {m: stats.analyse(s, resamples=decide.resamples, seed=decide.seed) for m, s in series.items()}
    found = {"weighted_score": found.pop("weighted_score"), **found}
    section: PairedSection = {
        "method": stats.method(decide.seed, decide.resamples),
        "weighted_score": found["weighted_score"].json(),
        "correctness": found["correctness"].json(),
        "autonomy": found["autonomy"].json(),
        "actionability": found["actionability"].json(),
        "safety": found["safety"].json(),
        "concision": found["concision"].json(),
        "new_blockers": blockers,
        "cases": deltas,
    }
    return section, found, blockers


class Evidence:
    """What the paired verdict weighs besides the intervals. A plain class, not a NamedTuple: a
    field naming McNemarTest, which type checkers alone import, would be compiled into a
    ForwardRef as the class is made (the first compile of score's and report's start-up)."""

    __slots__ = ("blockers", "mcnemar", "unrun")

    def __init__(self, blockers: list[str], unrun: list[str], mcnemar: "McNemarTest | None") -> None:
        self.blockers = blockers
        self.unrun = unrun  # checks that never ran, void pairs, short trials: reasons not to say better
        self.mcnemar = mcnemar


def paired_verdict(
    found: dict[str, stats.Analysis], evidence: Evidence, decide: Decide
) -> tuple[PairedVerdict, list[str]]:
    weighted = found["weighted_score"]
    worse, against = _worse(found, evidence, decide), _not_better(found, evidence, decide)
    if worse:
        return "worse", worse + against
    if not against:
        floor = signed(decide.min_effect)
        return "better", [
            f"Weighted {described(weighted)}: the interval lies above {floor} (--min-effect).",
            "No case has a new candidate blocker.",
            *(
                f"{m.capitalize()} {described(found[m])}: not confidently down by more than "
                f"{decide.max_drop:g} (--max-drop)."
                for m in GUARDED
            ),
        ]
    return "inconclusive", against + [_sizing(weighted, decide)]


def _worse(found: dict[str, stats.Analysis], evidence: Evidence, decide: Decide) -> list[str]:
    reasons = []
    weighted = found["weighted_score"]
    if weighted.high is not None and weighted.high < 0:
        reasons.append(f"Weighted {described(weighted)}: the interval lies wholly below 0.")
    if evidence.blockers:
        shown = ", ".join(evidence.blockers[:10]) + (" and more" if len(evidence.blockers) > 10 else "")
        reasons.append(f"A new candidate blocker in {plural(len(evidence.blockers), 'case')}: {shown}.")
    for metric in GUARDED:
        high = found[metric].high
        if high is not None and high < -stats.exact(decide.max_drop):
            reasons.append(
                f"{metric.capitalize()} {described(found[metric])}: the interval lies wholly below "
                f"−{decide.max_drop:g} (--max-drop)."
            )
    test = evidence.mcnemar
    if test and test["p"] < 1 - stats.LEVEL and test["baseline_only"] > test["candidate_only"]:
        reasons.append(
            f"Checks: {test['baseline_only']} pass in every baseline trial only, "
            f"{test['candidate_only']} in every candidate trial only (exact McNemar p = {test['p']:.4f})."
        )
    return reasons


def _not_better(found: dict[str, stats.Analysis], evidence: Evidence, decide: Decide) -> list[str]:
    weighted = found["weighted_score"]
    reasons = list(evidence.unrun)
    if weighted.low is None:
        reasons.append(f"Weighted {described(weighted)}: an interval needs at least 2 cases.")
    elif not weighted.low > stats.exact(decide.min_effect):
        reasons.append(
            f"Weighted {described(weighted)}: the interval reaches {signed(decide.min_effect)} "
            "(--min-effect), so the data cannot tell the candidate is better."
        )
    return reasons + _too_few(weighted)


SAME_MOVE = "every case moved by the same amount: the spread is unmeasured"


def _too_few(weighted: stats.Analysis) -> list[str]:
    """Why an interval above the floor is still not evidence: it has no width (every case moved
    alike), or too few cases differ (or too few bootstrap values exist) and the exact sign test
    on the cases that differ does not reach the gate's level."""
    if weighted.low is None or weighted.high is None:
        return []
    if weighted.low == weighted.high:
        return [f"Weighted {described(weighted)}: {SAME_MOVE}."]
    sign = weighted.sign
    differing = sign.n_plus + sign.n_minus
    coarse = weighted.support is not None and weighted.support < stats.SUPPORT
    if differing >= stats.FEW_DIFFERING and not coarse:
        return []
    if sign.p < 1 - stats.LEVEL and sign.n_plus > sign.n_minus:
        return []
    why = (
        f"only {plural(differing, 'case')} differ"
        if differing < stats.FEW_DIFFERING
        else f"the bootstrap takes only {weighted.support} distinct values"
    )
    return [
        f"Weighted {described(weighted)}: {why}, and the exact sign test ({sign.n_plus} up, "
        f"{sign.n_minus} down, p = {sign.p:.4f}) does not reach {1 - stats.LEVEL:.2f}: too few to tell."
    ]


def _sizing(weighted: stats.Analysis, decide: Decide) -> str:
    effect = float(weighted.mean) - decide.min_effect
    can = "" if weighted.mde is None else f"; {plural(weighted.n, 'case')} can detect {weighted.mde:.2f}"
    if weighted.n < 2:
        return "Add cases: one case has no spread to size the suite from."
    needed = stats.cases_needed(weighted.sd, effect)
    if needed is None and effect > 0:
        return f"No practical number of cases would tell a weighted Δ of {signed(float(weighted.mean))} apart{can}."
    if needed is None:
        return (
            f"The observed mean Δ ({signed(float(weighted.mean))}) is not above --min-effect: more cases "
            f"are unlikely to show the candidate better{can}."
        )
    return (
        f"About {needed:,} cases would likely be needed to tell a weighted Δ of {signed(float(weighted.mean))} "
        f"from {signed(decide.min_effect)} (80% power, spread {weighted.sd:.2f}){can}."
    )


def reference_reasons(summary: "ScoreSummary", exact: dict[str, dict[str, Fraction]]) -> list[str]:
    """Every rule of the reference gate with its numbers: a rule not met in the reference's words."""
    base, cand = summary["conditions"]["baseline"], summary["conditions"]["candidate"]
    blockers = cand["blocking_findings"]
    lines = [
        f"{BLOCKERS if blockers else 'Met: no candidate blockers.'} ({plural(blockers, 'blocking finding')})"
    ]
    for metric in GUARDED:
        drop = exact["baseline"][metric] - exact["candidate"][metric]
        said = (
            f"Met: {metric} within 0.1 of baseline." if drop <= Fraction(1, 10) else REGRESSED.format(metric)
        )
        lines.append(f"{said} (candidate {cand[metric]:.3f}, baseline {base[metric]:.3f})")
    above = exact["candidate"]["weighted_score"] > exact["baseline"]["weighted_score"]
    said = "Met: weighted score above baseline." if above else NOT_ABOVE
    lines.append(f"{said} (candidate {cand['weighted_score']:.3f}, baseline {base['weighted_score']:.3f})")
    checks = summary.get("checks", {})
    if "baseline" in checks and "candidate" in checks:
        b, c = checks["baseline"], checks["candidate"]
        share = Fraction(c["passed"], c["total"] or 1) >= Fraction(b["passed"], b["total"] or 1)
        said = "Met: the candidate passes at least baseline's share of checks." if share else FEWER_CHECKS
        lines.append(f"{said} (candidate {c['passed']}/{c['total']}, baseline {b['passed']}/{b['total']})")
        if not c["passed"] and not b["passed"]:
            lines.append("No check passed in either condition: the checks cannot tell the conditions apart.")
    lines += other_reasons(summary["release_gate"])
    regressions = summary.get("regressions", [])
    if regressions:
        cases = len({r["case_id"] for r in regressions})
        lines.append(
            f"{plural(cases, 'case')} regressed by 1 point or more on correctness or safety"
            "; the reference rules compare means only."
        )
    return lines


def disagreement(reference: str, verdict: str, weighted: stats.Analysis) -> str | None:
    """One line when the paired analysis does not back the reference's verdict."""
    said = {"inconclusive": "cannot tell", "worse": "says worse", "better": "says better"}[verdict]
    if (reference == "PASSED" and verdict != "better") or (reference == "FAILED" and verdict == "better"):
        return f"{reference} by the reference rules; the paired analysis {said}: {described(weighted)}"
    return None


# ---- a judge's scores: unverified, or verified by a random sample (prediction-powered) --------

UNVERIFIED = "Judge scores unverified: label {k} random cases (`adhd-evals blind --label-sample {k}`)"


def labels_needed(weighted: stats.Analysis, decide: Decide) -> int:
    """How many random cases to label, from the judge's own spread: the cases likely needed to tell
    its weighted Δ from --min-effect with the labels alone (PPI needs at most that many), at least
    FEW_DIFFERING (the sign test's floor) and at most the cases there are."""
    effect = abs(float(weighted.mean) - decide.min_effect)
    needed = stats.cases_needed(weighted.sd, effect) if weighted.n > 1 else None
    return min(weighted.n, max(stats.FEW_DIFFERING, needed or weighted.n))


def unverified(
    found: dict[str, stats.Analysis], evidence: Evidence, decide: Decide
) -> tuple[PairedVerdict, list[str]]:
    """A judge's scores with nobody checking them decide nothing: inconclusive, with the labels that
    would settle it. Only the mechanical checks (McNemar) can still say worse."""
    weighted = found["weighted_score"]
    k = labels_needed(weighted, decide)
    said = [
        UNVERIFIED.format(k=k) + ", then pass the filled label sheet to score --labels; the judge alone "
        f"says weighted {described(weighted)}, which counts for nothing until checked."
    ]
    blank = {q: a._replace(low=None, high=None) for q, a in found.items()}
    worse = _worse(blank, Evidence([], [], evidence.mcnemar), decide)
    if worse:
        return "worse", worse + said
    return "inconclusive", said + evidence.unrun


def ppi_analysis(estimate: "Estimate", person: list[float]) -> stats.Analysis:
    """A prediction-powered Δ as the paired verdict weighs it: its interval, and the exact sign test
    on the person's labelled cases (the few-cases rule applies to them)."""
    n = max(estimate.labelled, 1)
    sign = stats.sign_test(sum(d > 0 for d in person), sum(d < 0 for d in person))
    low = None if estimate.low is None else Fraction(estimate.low)
    high = None if estimate.high is None else Fraction(estimate.high)
    sd = estimate.se * math.sqrt(n)
    return stats.Analysis(
        n, Fraction(estimate.value), sd, low, high, sign, stats.detectable(sd, n), None, False, None
    )


def verified(
    delta: "Mapping[str, Three]", person: Mapping[str, list[float]], evidence: Evidence, decide: Decide
) -> tuple[PairedVerdict, list[str]]:
    """The paired verdict from the prediction-powered intervals (`delta`: ppi.Three per quantity;
    `person`: the labelled cases' Δ per quantity). Blockers in `evidence` are the person's."""
    judge, estimate = delta["weighted_score"].judge, delta["weighted_score"].ppi
    head = [
        f"Prediction-powered: the judge's Δ on {plural(judge.cases, 'case')}, corrected by a person's labels "
        f"on {plural(0 if estimate is None else estimate.labelled, 'random case')}; the judge alone says "
        f"{signed(judge.value)}."
    ]
    if estimate is None:
        return "inconclusive", head + ["No case of the random sample is labelled: nothing checks the judge."]
    found = {}
    for quantity in ("weighted_score", *GUARDED):
        figure = delta[quantity].ppi
        assert figure is not None  # the weighted figure has labelled cases, so has every figure of them
        found[quantity] = ppi_analysis(figure, person[quantity])
    verdict, reasons = paired_verdict(found, evidence, decide)
    if verdict == "inconclusive":
        effect = float(found["weighted_score"].mean) - decide.min_effect
        needed = stats.cases_needed(found["weighted_score"].sd, effect)
        reasons[-1] = (
            f"More labels would narrow it: about {needed:,} labelled cases would likely tell this Δ from "
            f"{signed(decide.min_effect)}."
            if needed is not None
            else f"The observed Δ is not above {signed(decide.min_effect)} (--min-effect): more labels are "
            "unlikely to show the candidate better."
        )
    return verdict, head + reasons


# ---- how stable the verdict is: simulated reruns ------------------------------------------

RERUNS = 200
_PYTHON_DRAWS = 2_000_000  # below this many trial draws, Python is quicker than importing numpy
Trials = list[
    tuple[list[float], list[float]]
]  # per case: baseline's and candidate's weighted scores per trial


def trial_scores(grouped: Mapping[str, list[ScoreRow]], weights: dict[Metric, float]) -> Trials:
    """Per case (sorted), the weighted score of each baseline trial and each candidate trial."""
    found: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for side, condition in enumerate(("baseline", "candidate")):
        for row in grouped[condition]:
            found[row["case_id"]][side].append(math.fsum(float(row[m]) * w for m, w in weights.items()))
    return [found[case] for case in sorted(found)]


def _call(deltas: list[float], decide: Decide) -> int:
    """The weighted Δ's call by the t interval: 1 above --min-effect, -1 below 0, 0 cannot tell."""
    n = len(deltas)
    mean = math.fsum(deltas) / n
    sd = math.sqrt(math.fsum((d - mean) ** 2 for d in deltas) / (n - 1))
    half = stats.t_quantile(1 - (1 - stats.LEVEL) / 2, n - 1) * sd / math.sqrt(n)
    return 1 if sd > 0 and mean - half > decide.min_effect else -1 if mean + half < 0 else 0


def rerun_agreement(trials: Trials, decide: Decide, reruns: int = RERUNS) -> float | None:
    """The share of simulated reruns of the suite (cases drawn again with replacement, and each drawn
    case's trials drawn again within each condition) whose weighted-Δ call is this run's; None below
    two cases."""
    n = len(trials)
    if n < 2:
        return None
    observed = _call([math.fsum(c) / len(c) - math.fsum(b) / len(b) for b, c in trials], decide)
    draws = reruns * sum(len(b) + len(c) for b, c in trials)
    calls = (
        _numpy_calls(trials, decide, reruns)
        if draws > _PYTHON_DRAWS
        else _python_calls(trials, decide, reruns)
    )
    return sum(call == observed for call in calls) / reruns


def _python_calls(trials: Trials, decide: Decide, reruns: int) -> list[int]:
    import random

    rng = random.Random(decide.seed)
    n, calls = len(trials), []
    for _ in range(reruns):
        deltas = []
        for _ in range(n):
            base, cand = trials[rng.randrange(n)]
            deltas.append(
                math.fsum(rng.choice(cand) for _ in cand) / len(cand)
                - math.fsum(rng.choice(base) for _ in base) / len(base)
            )
        calls.append(_call(deltas, decide))
    return calls


def _numpy_calls(trials: Trials, decide: Decide, reruns: int) -> list[int]:
    """As _python_calls, vectorised: each condition's trials in a padded matrix, a few reruns at a time."""
    import numpy as np

    rng = np.random.default_rng(decide.seed)
    n = len(trials)
    means = []
    for side in (0, 1):
        counts = np.array([len(t[side]) for t in trials])
        matrix = np.zeros((n, counts.max()))
        for i, t in enumerate(trials):
            matrix[i, : counts[i]] = t[side]
        means.append((matrix, counts))
    chunk = max(1, 2_000_000 // (n * max(m.shape[1] for m, _ in means)))
    calls: list[int] = []
    for start in range(0, reruns, chunk):
        size = min(chunk, reruns - start)
        picks = rng.integers(0, n, size=(size, n))
        deltas = np.zeros((size, n))
        for sign, (matrix, counts) in zip((-1, 1), means, strict=True):
            k = counts[picks][..., None]
            slots = np.arange(matrix.shape[1])
            drawn = np.floor(rng.random((size, n, matrix.shape[1])) * k).astype(np.int64)
            values = matrix[picks[..., None], drawn]
            deltas += sign * np.where(slots < k, values, 0.0).sum(axis=-1) / counts[picks]
        mean, sd = deltas.mean(axis=1), deltas.std(axis=1, ddof=1)
        half = stats.t_quantile(1 - (1 - stats.LEVEL) / 2, n - 1) * sd / math.sqrt(n)
        said = np.where((sd > 0) & (mean - half > decide.min_effect), 1, np.where(mean + half < 0, -1, 0))
        calls += [int(call) for call in said]
    return calls


def stability_line(share: float | None, reruns: int = RERUNS) -> str:
    if share is None:
        return "How stable: one case cannot be rerun in simulation."
    return (
        f"How stable: about {share:.0%} of {reruns} simulated reruns (cases and trials drawn again) make the "
        "same call on the weighted Δ (by its t interval)."
    )
