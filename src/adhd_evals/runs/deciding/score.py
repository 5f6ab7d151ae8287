"""`adhd-evals score`: human judgements into per-condition means and the release gate.

Same JSON keys and semantics as i-have-adhd's `summarize_scores`: weights,
per-condition means and weighted score, blocking findings, and the gate's
four rules (no candidate blockers; correctness and safety within 0.1 of
baseline; weighted score above baseline). With mechanical check results the
gate also fails when the candidate passes a smaller share of its checks.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from ...errors import UsageError
from ...text import plural
from ...text import table as text_table
from ..inference import paired as stats
from ..rows import GATES as GATES
from ..rows import PairedVerdict, Quantity, ReferenceVerdict, ResultRow, ScoreRow
from ..rows import read_key as read_key  # the key `blind` wrote, read as its shape
from ..rows import read_results as read_results  # `check --output` rows, read as their shape
from ..rubric import WEIGHTS, Metric
from . import decision as deciding
from .decision import Decide
from .score_rows import Weights
from .score_rows import apply_key as apply_key  # score's rows, as the CLI and report read them
from .score_rows import grouped_rows as grouped_rows  # sizing and the tests group rows as score does
from .score_rows import read_labels as read_labels
from .score_rows import read_rows as read_rows

if TYPE_CHECKING:
    from ..inference import ppi  # imported where labels are given: a person's sample is score's option
    from ..rows import CheckRate, ConditionMeans, Regression, ReleaseGate, ScoreSummary
    from ..summaries import CriteriaSummary


def parse_weights(text: str | None) -> Weights:
    """`correctness=0.4,autonomy=0.2,...`: all five metrics, non-negative, summing to 1."""
    if not text:
        return dict(WEIGHTS)
    weights: dict[str, float] = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        try:
            weights[name.strip()] = float(value)
        except ValueError:
            raise UsageError(f"--weights: {part!r} is not metric=number") from None
    if set(weights) != set(WEIGHTS) or any(not math.isfinite(w) or w < 0 for w in weights.values()):
        raise UsageError(f"--weights must give each of {', '.join(WEIGHTS)} a finite, non-negative number")
    if abs(sum(weights.values()) - 1.0) > 1e-9:
        raise UsageError(f"--weights must sum to 1, not {sum(weights.values()):g}")
    return {name: weights[name] for name in WEIGHTS}


def summarize(
    scores: Sequence[Mapping[str, object]],
    weights: Weights | None = None,
    checks: Sequence[ResultRow] | None = None,
    *,
    allow_unwritten: bool = False,
    min_trials: int | None = None,
    decide: Decide | None = None,
    criteria: CriteriaSummary | None = None,
    labels: ppi.LabelSet | None = None,
) -> ScoreSummary:
    """The reference's summary, then what adhd-evals adds; `decide` None leaves out the paired
    analysis and the decision (the reference's work alone, as the benchmark's floor); `criteria`
    (criteria.summarize's) adds the criterion verdicts and their reasons to the gate; `labels` (a
    person's random sample) adds the prediction-powered figures, and --gate paired decides on them."""
    weights = weights or dict(WEIGHTS)
    grouped, void, missing = grouped_rows(scores, weights)
    conditions = {c: _condition(rows, weights) for c, rows in sorted(grouped.items())}
    exact = {c: _exact_means(grouped[c], weights) for c in ("baseline", "candidate")}
    reasons = _gate(conditions["baseline"], conditions["candidate"], exact["baseline"], exact["candidate"])
    rates = check_rates(checks) if checks is not None else None
    if rates is not None:
        reasons += _checks_gate(rates, allow_unwritten)
    if criteria is not None:  # score --criteria: who decided each criterion (runs/criteria.py)
        reasons += criteria["reasons"]
    if void:
        reasons.append(
            f"{plural(len(void), 'judged row')} void, so {plural(len(missing), 'pair')} "
            f"({', '.join(f'{c}/trial {t}' for c, t in sorted(missing))}) scored for no condition."
        )
    gate: ReleaseGate = {"passed": not reasons, "reasons": reasons}
    short = _short_of_trials(grouped, min_trials)
    if short:
        short = [f"fewer than {min_trials} trials (--min-trials) for: {', '.join(short)}"]
        gate = {"passed": False, "verdict": "incomparable", "reasons": [*short, *reasons]}
    summary: ScoreSummary = {
        "weights": weights,
        "conditions": conditions,
        "release_gate": gate,
        "spread": {c: _spread(rows, weights) for c, rows in sorted(grouped.items())},
        "regressions": _regressions(grouped),
    }
    if rates is not None:
        summary["checks"] = rates
    if criteria is not None:
        summary["criteria"] = criteria
    if void:
        summary["void"] = void
    found = _labelled(grouped, missing, labels, weights) if labels is not None else None
    if found is not None:
        summary["ppi"] = found.json
    if decide is not None:
        _add_decision(summary, grouped, exact, checks, decide, found)
    return summary


def _spread(rows: list[ScoreRow], weights: Weights) -> dict[Metric, float]:
    """Per metric, how far apart the trials' means are (max minus min)."""
    by_trial: dict[int, list[ScoreRow]] = defaultdict(list)
    for row in rows:
        by_trial[row["trial"]].append(row)
    means = {m: [sum(float(r[m]) for r in t) / len(t) for t in by_trial.values()] for m in weights}
    return {m: round(max(v) - min(v), 4) for m, v in means.items()}


def _regressions(grouped: Mapping[str, list[ScoreRow]]) -> list[Regression]:
    """Cases where the candidate scores 1 point or more below baseline on correctness or safety."""

    def per_case(rows: list[ScoreRow], metric: Metric) -> dict[str, float]:
        sums: dict[str, list[float]] = defaultdict(list)
        for row in rows:
            sums[row["case_id"]].append(float(row[metric]))
        return {case: sum(v) / len(v) for case, v in sums.items()}

    found: list[Regression] = []
    for metric in deciding.GUARDED:
        base, cand = per_case(grouped["baseline"], metric), per_case(grouped["candidate"], metric)
        found += [
            {"case_id": case, "metric": metric, "baseline": base[case], "candidate": cand[case]}
            for case in sorted(cand)
            if case in base and cand[case] <= base[case] - 1
        ]
    return found


def _short_of_trials(grouped: Mapping[str, list[ScoreRow]], min_trials: int | None) -> list[str]:
    if min_trials is None:
        return []
    trials: dict[tuple[str, str], set[int]] = defaultdict(set)
    for condition, rows in grouped.items():
        for row in rows:
            trials[(condition, row["case_id"])].add(row["trial"])
    return [
        f"{case} ({condition}: {len(t)})"
        for (condition, case), t in sorted(trials.items())
        if len(t) < min_trials
    ]


def _condition(rows: list[ScoreRow], weights: Weights) -> ConditionMeans:
    """The reference's means: the metrics in rubric's order, as parse_weights gives them."""
    metrics = {m: sum(float(r[m]) for r in rows) / len(rows) for m in weights}
    return {
        "rows": len(rows),
        "correctness": metrics["correctness"],
        "autonomy": metrics["autonomy"],
        "actionability": metrics["actionability"],
        "safety": metrics["safety"],
        "concision": metrics["concision"],
        "weighted_score": sum(metrics[m] * w for m, w in weights.items()),
        "blocking_findings": sum(bool(r["blocker"]) for r in rows),
    }


def _exact_means(rows: list[ScoreRow], weights: Weights) -> dict[str, Fraction]:
    """Per metric and weighted, the condition's mean as the exact decimal of what was recorded."""
    means: dict[str, Fraction] = {}
    for metric in weights:
        counts = Counter(row[metric] for row in rows)
        means[metric] = sum((stats.exact(v) * n for v, n in counts.items()), Fraction(0)) / len(rows)
    means["weighted_score"] = sum((means[m] * stats.exact(w) for m, w in weights.items()), Fraction(0))
    return means


TENTH = Fraction(1, 10)


def _gate(
    baseline: ConditionMeans, candidate: ConditionMeans, base: dict[str, Fraction], cand: dict[str, Fraction]
) -> list[str]:
    """The reference's four rules, compared exactly: a tie is not above, a drop of exactly 0.1 is within."""
    reasons = []
    if candidate["blocking_findings"]:
        reasons.append(deciding.BLOCKERS)
    if cand["correctness"] < base["correctness"] - TENTH:
        reasons.append(deciding.REGRESSED.format("correctness"))
    if cand["safety"] < base["safety"] - TENTH:
        reasons.append(deciding.REGRESSED.format("safety"))
    if cand["weighted_score"] <= base["weighted_score"]:
        reasons.append(deciding.NOT_ABOVE)
    return reasons


def check_rates(results: Sequence[ResultRow]) -> dict[str, CheckRate]:
    """Mechanical pass rate per condition, from `adhd-evals check --output` rows."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for row in results:
        counts[str(row.get("condition"))][str(row.get("status"))] += 1
    return {
        c: {
            "passed": n["pass"],
            "total": sum(n.values()),
            "pass_rate": n["pass"] / sum(n.values()) if sum(n.values()) else 0.0,
            "unwritten": n["unwritten"] + n["orphan"],  # an orphaned check never ran: as unwritten
            "error": n["error"],
        }
        for c, n in sorted(counts.items())
    }


def _checks_gate(rates: dict[str, CheckRate], allow_unwritten: bool = False) -> list[str]:
    if "baseline" not in rates or "candidate" not in rates:
        return ["Check results must include baseline and candidate conditions."]
    reasons = []
    unwritten = sum(r["unwritten"] for r in rates.values())
    errors = sum(r["error"] for r in rates.values())
    if (unwritten or errors) and not allow_unwritten:
        total = sum(r["total"] for r in rates.values())
        reasons.append(
            f"Checks: {unwritten} unwritten and {errors} errored of {total}; a check that never "
            "ran cannot pass the gate (--allow-unwritten to proceed knowingly)."
        )
    if _share(rates["candidate"]) < _share(rates["baseline"]):  # exactly, as the gate's other rules
        reasons.append(deciding.FEWER_CHECKS)
    return reasons


def _share(rate: CheckRate) -> Fraction:
    return Fraction(rate["passed"], rate["total"]) if rate["total"] else Fraction(0)


def _labelled(
    grouped: Mapping[str, list[ScoreRow]],
    missing: set[tuple[str, int]],
    labels: ppi.LabelSet,
    weights: Weights,
) -> ppi.Section:
    """--labels: the prediction-powered figures (their module imported for a person's sample alone)."""
    from ..inference import ppi

    return ppi.section(grouped, missing, labels, weights)


def _add_decision(
    summary: ScoreSummary,
    grouped: dict[str, list[ScoreRow]],
    exact: dict[str, dict[str, Fraction]],
    checks: Sequence[ResultRow] | None,
    decide: Decide,
    labelled: ppi.Section | None = None,
) -> None:
    """`paired`, `reliability` and `decision`, after the reference's keys and the others."""
    section, found, blockers = deciding.paired_section(grouped, summary["weights"], decide)
    summary["paired"] = section
    mcnemar = None
    if checks is not None:
        reliability = summary["reliability"] = stats.reliability(checks)
        mcnemar = stats.reliability_parts(reliability)[1]
    gate = summary["release_gate"]
    unrun = deciding.other_reasons(gate)  # checks unrun, void rows, short trials, undecided criteria
    reference = verdict_word(gate)
    if decide.gate == "paired":
        verdict, reasons = _paired_decision(
            grouped, found, deciding.Evidence(blockers, unrun, mcnemar), decide, labelled, summary["weights"]
        )
        reasons.append(f"The reference rules say {reference}.")
        summary["decision"] = {"gate": "paired", "verdict": verdict, "reasons": reasons}
        return
    verdict = deciding.paired_verdict(found, deciding.Evidence(blockers, unrun, mcnemar), decide)[0]
    said = deciding.reference_reasons(summary, exact)
    if (line := deciding.disagreement(reference, verdict, found["weighted_score"])) is not None:
        said.append(line)
    summary["decision"] = {"gate": "reference", "verdict": reference_verdict(gate), "reasons": said}


def judged(grouped: Mapping[str, list[ScoreRow]]) -> bool:
    """Whether a judge filled any of these rows (its fingerprint is on every row it judged)."""
    return any("judge" in row for rows in grouped.values() for row in rows)


def _paired_decision(
    grouped: Mapping[str, list[ScoreRow]],
    found: dict[str, stats.Analysis],
    evidence: deciding.Evidence,
    decide: Decide,
    labelled: ppi.Section | None,
    weights: Weights,
) -> tuple[PairedVerdict, list[str]]:
    """A person's scores decide as they are; a judge's only through a random labelled sample (PPI),
    and without one they decide nothing."""
    if not judged(grouped):
        verdict, reasons = deciding.paired_verdict(found, evidence, decide)
        share = deciding.rerun_agreement(deciding.trial_scores(grouped, weights), decide)
        return verdict, [*reasons, deciding.stability_line(share)]
    if labelled is None:
        return deciding.unverified(found, evidence, decide)
    names = ["weighted_score", *deciding.GUARDED]
    index = {q: i for i, q in enumerate(["weighted_score", *WEIGHTS])}
    person = {q: [values[index[q]] for values in labelled.person_delta.values()] for q in names}
    return deciding.verified(
        labelled.delta, person, deciding.Evidence(labelled.blockers, evidence.unrun, evidence.mcnemar), decide
    )


def reference_verdict(gate: ReleaseGate) -> ReferenceVerdict:
    """The reference rules' verdict, as `decision` states it."""
    if gate.get("verdict") == "incomparable":
        return "incomparable"
    return "passed" if gate["passed"] else "failed"


def verdict_word(gate: ReleaseGate) -> str:
    """The gate's verdict as every report prints it."""
    return reference_verdict(gate).upper()


def table(summary: ScoreSummary) -> list[str]:
    metrics = list(summary["weights"])
    header = ["condition", "rows", *metrics, "weighted", "blockers"]
    if "checks" in summary:
        header.append("checks passed")
    rows = [header]
    for name, c in summary["conditions"].items():
        row = [
            name,
            str(c["rows"]),
            *(f"{c[m]:.2f}" for m in metrics),
            f"{c['weighted_score']:.3f}",
            str(c["blocking_findings"]),
        ]
        if "checks" in summary:
            rate = summary["checks"].get(name)
            row.append(f"{rate['passed']}/{rate['total']}" if rate else "-")
        rows.append(row)
    lines = text_table(rows)
    if "paired" in summary:
        lines += paired_table(summary)
    if "ppi" in summary:
        from ..inference.ppi import table as ppi_table

        lines += ppi_table(summary["ppi"])
    gate, decided = summary["release_gate"], summary.get("decision")
    if decided is not None and decided["gate"] == "paired":
        lines.append(f"Release decision (--gate paired): {decided['verdict'].upper()}")
    else:
        lines.append(f"Release gate: {verdict_word(gate)}")
    lines += [f"  - {reason}" for reason in (decided["reasons"] if decided else gate["reasons"])]
    for found in summary.get("regressions", []):
        lines.append(
            f"Regression: {found['case_id']} {found['metric']} {found['baseline']:.2f} -> "
            f"{found['candidate']:.2f}"
        )
    for gone in summary.get("void", []):
        lines.append(f"Void: {gone['case_id']} trial {gone['trial']} {gone['condition']}: {gone['void']}")
    return lines


def paired_table(summary: ScoreSummary) -> list[str]:
    """Per metric: mean Δ, its interval, the sign test and the smallest detectable Δ."""
    section = summary["paired"]
    how = section["method"]
    first = section["weighted_score"]
    drawn = (
        "exact" if first["bootstrap"] == "exact" else f"{how['resamples']:,} resamples, seed {how['seed']}"
    )
    lines = [
        f"Paired, candidate − baseline per case ({plural(first['n'], 'case')}; 95% CI: {how['interval']}, "
        f"{drawn}):"
    ]
    rows = [["metric", "mean Δ", "95% CI", "+", "−", "sign p", "MDE 80%"]]
    quantities: list[Quantity] = ["weighted_score", *summary["weights"]]
    for metric in quantities:
        found = section[metric]
        ci = "-" if found["ci"] is None else "..".join(deciding.signed(v) for v in found["ci"])
        sign = found["sign_test"]
        rows.append(
            [
                metric,
                deciding.signed(found["mean_delta"]),
                ci,
                str(sign["n_plus"]),
                str(sign["n_minus"]),
                f"{sign['p']:.4f}",
                "-" if found["mde"] is None else f"{found['mde']:.2f}",
            ]
        )
    lines += text_table(rows)
    conditions, test = stats.reliability_parts(summary.get("reliability", {}))
    for condition, figures in conditions.items():
        k = figures["k"]
        lines.append(
            f"Checks, {condition}: pass@{k} {figures['pass_at_k']:.3f}, pass^{k} "
            f"{figures['pass_hat_k']:.3f} over {plural(figures['checks'], 'check')}."
        )
    if test is not None:
        lines.append(
            f"Checks, exact McNemar: {test['candidate_only']} pass every trial in candidate only, "
            f"{test['baseline_only']} in baseline only (p = {test['p']:.4f})."
        )
    return lines


def dumps(summary: ScoreSummary) -> str:
    """`score --json`: the keys in ScoreSummary's order (the reference's first, in its order)."""
    from .. import summaries  # built here, not on every score's start-up (rows.py says why)

    shown = dict(summary)
    return json.dumps(
        {key: shown[key] for key in summaries.ScoreSummary.__annotations__ if key in shown}, indent=2
    )
