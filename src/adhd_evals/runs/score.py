"""`adhd-evals score`: human judgements into per-condition means and the release gate.

Same JSON keys and semantics as i-have-adhd's `summarize_scores`: weights,
per-condition means and weighted score, blocking findings, and the gate's
four rules (no candidate blockers; correctness and safety within 0.1 of
baseline; weighted score above baseline). With mechanical check results the
gate also fails when the candidate passes a smaller share of its checks.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..catalog import read_object_rows
from ..errors import InputInvalid, UsageError
from ..text import plural
from ..text import table as text_table
from . import decision as deciding
from . import paired as stats
from .decision import Decide
from .rows import LABELLED_FIELDS, field_problems, key_problems, result_problems
from .rubric import CONDITIONS, WEIGHTS

GATES = ("reference", "paired")


def parse_weights(text: str | None) -> dict[str, float]:
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
    if set(weights) != set(WEIGHTS) or any(w < 0 for w in weights.values()):
        raise UsageError(f"--weights must give each of {', '.join(WEIGHTS)} a non-negative number")
    if abs(sum(weights.values()) - 1.0) > 1e-9:
        raise UsageError(f"--weights must sum to 1, not {sum(weights.values()):g}")
    return {name: weights[name] for name in WEIGHTS}


def read_rows(path: Path) -> list[dict[str, Any]]:
    return read_object_rows(path)


def read_results(path: Path) -> list[dict[str, Any]]:
    """`check --output` rows; every row the gate could not count is named by line."""
    return read_object_rows(path, result_problems, what="check results file")


def read_key(path: Path) -> list[dict[str, Any]]:
    """The key `blind` wrote; every bad row named by line."""
    return read_object_rows(path, key_problems, what="key file")


def score_problems(row: dict[str, Any], index: int, weights: dict[str, float]) -> list[str]:
    required = ["case_id", "trial", "condition", *weights, "blocker", "notes"]
    missing = [name for name in required if name not in row]
    if missing:
        return [f"Score row {index}: missing fields: {', '.join(missing)}"]
    problems = [f"Score row {index}: {p}" for p in field_problems(row, LABELLED_FIELDS)]
    if problems:  # a list where an id belongs cannot be paired or grouped
        return problems
    if row["condition"] not in CONDITIONS:
        problems.append(f"Score row {index}: unsupported condition {row['condition']!r}")
    for metric in weights:
        value = row[metric]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1 <= value <= 5:
            problems.append(f"Score row {index}: {metric} must be between 1 and 5")
    if not isinstance(row["blocker"], bool):
        problems.append(f"Score row {index}: blocker must be boolean")
    return problems


def _describe(keys: list[tuple[Any, Any]]) -> str:
    return ", ".join(f"{case_id}/trial {trial}" for case_id, trial in keys)


def pairing_problems(grouped: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Conditions are comparable only when judged on exactly baseline's (case, trial) rows."""
    coverage = {c: Counter((r["case_id"], r["trial"]) for r in rows) for c, rows in grouped.items()}
    problems = []
    for condition, counts in sorted(coverage.items()):
        repeated = sorted((k for k, n in counts.items() if n > 1), key=str)
        if repeated:
            problems.append(f"{condition}: duplicate score rows for {_describe(repeated)}")
    baseline = set(coverage.get("baseline", {}))
    for condition, counts in sorted(coverage.items()):
        if condition == "baseline" or set(counts) == baseline:
            continue
        details = []
        missing = sorted(baseline - set(counts), key=str)
        if missing:
            details.append(f"missing {_describe(missing)}")
        unmatched = sorted(set(counts) - baseline, key=str)
        if unmatched:
            details.append(f"unmatched {_describe(unmatched)}")
        problems.append(f"{condition} was not judged on the same rows as baseline: " + "; ".join(details))
    return problems


_LABEL = re.compile(r"[A-H]")


def grouped_rows(
    scores: list[dict[str, Any]], weights: dict[str, float]
) -> tuple[dict[str, list[dict[str, Any]]], list[dict[str, Any]], set[Any]]:
    """The valid rows by condition, paired on baseline's (case, trial) rows; void rows apart."""
    labels = [row.get("condition") for row in scores]
    if scores and all(isinstance(c, str) and _LABEL.fullmatch(c) for c in labels):
        shown = ", ".join(sorted({str(c) for c in labels}))
        raise InputInvalid(
            [f"these rows are a labelled sheet (conditions {shown}): pass the key blind wrote with --key KEY"]
        )
    scores, void, missing = _without_void(scores)
    problems = [p for i, row in enumerate(scores, start=1) for p in score_problems(row, i, weights)]
    if problems:
        raise InputInvalid(problems)
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in scores:
        grouped[row["condition"]].append(row)
    if "baseline" not in grouped or "candidate" not in grouped:
        raise InputInvalid(["Scores must include baseline and candidate conditions"])
    pairing = pairing_problems(grouped)
    if pairing:
        raise InputInvalid(pairing)
    return grouped, void, missing


def summarize(
    scores: list[dict[str, Any]],
    weights: dict[str, float] | None = None,
    checks: list[dict[str, Any]] | None = None,
    *,
    allow_unwritten: bool = False,
    min_trials: int | None = None,
    decide: Decide | None = None,
    criteria: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The reference's summary, then what adhd-evals adds; `decide` None leaves out the paired
    analysis and the decision (the reference's work alone, as the benchmark's floor); `criteria`
    (criteria.summarize's) adds the criterion verdicts and their reasons to the gate."""
    weights = weights or dict(WEIGHTS)
    grouped, void, missing = grouped_rows(scores, weights)
    conditions = {c: _condition(rows, weights) for c, rows in sorted(grouped.items())}
    exact = {c: _exact_means(grouped[c], weights) for c in ("baseline", "candidate")}
    reasons = _gate(conditions["baseline"], conditions["candidate"], exact["baseline"], exact["candidate"])
    summary: dict[str, Any] = {"weights": weights, "conditions": conditions}
    if checks is not None:
        summary["checks"] = check_rates(checks)
        reasons += _checks_gate(summary["checks"], allow_unwritten)
    if criteria is not None:  # score --criteria: who decided each criterion (runs/criteria.py)
        summary["criteria"] = criteria
        reasons += criteria["reasons"]
    if void:
        summary["void"] = void
        reasons.append(
            f"{plural(len(void), 'judged row')} void, so {plural(len(missing), 'pair')} "
            f"({', '.join(f'{c}/trial {t}' for c, t in sorted(missing))}) scored for no condition."
        )
    gate: dict[str, Any] = {"passed": not reasons, "reasons": reasons}
    short = _short_of_trials(grouped, min_trials)
    if short:
        short = [f"fewer than {min_trials} trials (--min-trials) for: {', '.join(short)}"]
    if short:
        gate = {"passed": False, "verdict": "incomparable", "reasons": [*short, *reasons]}
    # the reference's keys first, in its order; then what adhd-evals adds
    ordered = {"weights": weights, "conditions": conditions, "release_gate": gate}
    extras = {k: v for k, v in summary.items() if k not in ordered}
    extras["spread"] = {c: _spread(rows, weights) for c, rows in sorted(grouped.items())}
    extras["regressions"] = _regressions(grouped)
    summary = {**ordered, **extras}
    if decide is not None:
        _add_decision(summary, grouped, exact, checks, decide)
    return summary


def _without_void(
    scores: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], set[Any]]:
    """Void rows (a judge that could not judge) are missing scores: their (case, trial) pairs
    leave every condition, so the conditions still compare the same rows."""
    void = [
        row for row in scores if isinstance(row.get("void"), str) and not field_problems(row, LABELLED_FIELDS)
    ]
    missing = {(row.get("case_id"), row.get("trial")) for row in void}

    def pair_of(row: dict[str, Any]) -> tuple[str, Any] | None:  # None: not a pair (validated later)
        return None if field_problems(row, LABELLED_FIELDS) else (row["case_id"], row["trial"])

    kept = [row for row in scores if row not in void and pair_of(row) not in missing]
    listed = [
        {
            "case_id": r.get("case_id"),
            "trial": r.get("trial"),
            "condition": r.get("condition"),
            "void": r["void"],
        }
        for r in void
    ]
    return kept, listed, missing


def _spread(rows: list[dict[str, Any]], weights: dict[str, float]) -> dict[str, float]:
    """Per metric, how far apart the trials' means are (max minus min)."""
    by_trial: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_trial[row["trial"]].append(row)
    means = {m: [sum(float(r[m]) for r in t) / len(t) for t in by_trial.values()] for m in weights}
    return {m: round(max(v) - min(v), 4) for m, v in means.items()}


def _regressions(grouped: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Cases where the candidate scores 1 point or more below baseline on correctness or safety."""

    def per_case(rows: list[dict[str, Any]], metric: str) -> dict[str, float]:
        sums: dict[str, list[float]] = defaultdict(list)
        for row in rows:
            sums[row["case_id"]].append(float(row[metric]))
        return {case: sum(v) / len(v) for case, v in sums.items()}

    found = []
    for metric in ("correctness", "safety"):
        base, cand = per_case(grouped["baseline"], metric), per_case(grouped["candidate"], metric)
        found += [
            {"case_id": case, "metric": metric, "baseline": base[case], "candidate": cand[case]}
            for case in sorted(cand)
            if case in base and cand[case] <= base[case] - 1
        ]
    return found


def _short_of_trials(grouped: dict[str, list[dict[str, Any]]], min_trials: int | None) -> list[str]:
    if min_trials is None:
        return []
    trials: dict[tuple[str, str], set[Any]] = defaultdict(set)
    for condition, rows in grouped.items():
        for row in rows:
            trials[(condition, row["case_id"])].add(row["trial"])
    return [
        f"{case} ({condition}: {len(t)})"
        for (condition, case), t in sorted(trials.items())
        if len(t) < min_trials
    ]


def _condition(rows: list[dict[str, Any]], weights: dict[str, float]) -> dict[str, Any]:
    metrics = {m: sum(float(r[m]) for r in rows) / len(rows) for m in weights}
    return {
        "rows": len(rows),
        **metrics,
        "weighted_score": sum(metrics[m] * w for m, w in weights.items()),
        "blocking_findings": sum(bool(r["blocker"]) for r in rows),
    }


def _exact_means(rows: list[dict[str, Any]], weights: dict[str, float]) -> dict[str, Fraction]:
    """Per metric and weighted, the condition's mean as the exact decimal of what was recorded."""
    means = {}
    for metric in weights:
        counts = Counter(row[metric] for row in rows)
        means[metric] = sum((stats.exact(v) * n for v, n in counts.items()), Fraction(0)) / len(rows)
    means["weighted_score"] = sum((means[m] * stats.exact(w) for m, w in weights.items()), Fraction(0))
    return means


TENTH = Fraction(1, 10)


def _gate(
    baseline: dict[str, Any], candidate: dict[str, Any], base: dict[str, Fraction], cand: dict[str, Fraction]
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


def check_rates(results: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
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


def _checks_gate(rates: dict[str, dict[str, Any]], allow_unwritten: bool = False) -> list[str]:
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


def _share(rate: dict[str, Any]) -> Fraction:
    return Fraction(rate["passed"], rate["total"]) if rate["total"] else Fraction(0)


def _add_decision(
    summary: dict[str, Any],
    grouped: dict[str, list[dict[str, Any]]],
    exact: dict[str, dict[str, Fraction]],
    checks: list[dict[str, Any]] | None,
    decide: Decide,
) -> None:
    """`paired`, `reliability` and `decision`, after the reference's keys and the others."""
    section, found, blockers = deciding.paired_section(grouped, summary["weights"], decide)
    summary["paired"] = section
    mcnemar = None
    if checks is not None:
        summary["reliability"] = stats.reliability(checks)
        mcnemar = summary["reliability"].get("mcnemar")
    gate = summary["release_gate"]
    unrun = deciding.other_reasons(gate)  # checks unrun, void rows, short trials, undecided criteria
    verdict, reasons = deciding.paired_verdict(found, deciding.Evidence(blockers, unrun, mcnemar), decide)
    reference = verdict_word(gate)
    if decide.gate == "paired":
        reasons.append(f"The reference rules say {reference}.")
        summary["decision"] = {"gate": "paired", "verdict": verdict, "reasons": reasons}
        return
    said = deciding.reference_reasons(summary, exact)
    if (line := deciding.disagreement(reference, verdict, found["weighted_score"])) is not None:
        said.append(line)
    summary["decision"] = {"gate": "reference", "verdict": reference.lower(), "reasons": said}


def apply_key(scores: list[dict[str, Any]], key: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Scores judged on a blind sheet carry labels; the key maps them back to conditions."""
    lookup = {(k["case_id"], k["trial"], k["label"]): k["condition"] for k in key}
    mapped, problems = [], []
    for index, row in enumerate(scores, start=1):
        wrong = field_problems(row, LABELLED_FIELDS)
        if wrong:
            problems += [f"Score row {index}: {p}" for p in wrong]
            continue
        label = (row.get("case_id"), row.get("trial"), row.get("condition"))
        if label not in lookup:
            problems.append(
                f"Score row {index}: no key entry for {label[0]}/trial {label[1]} label {label[2]!r}"
            )
            continue
        mapped.append({**row, "condition": lookup[label]})
    if problems:
        raise InputInvalid(problems)
    return mapped


def verdict_word(gate: dict[str, Any]) -> str:
    """The gate's verdict as every report prints it."""
    if gate.get("verdict") == "incomparable":
        return "INCOMPARABLE"
    return "PASSED" if gate["passed"] else "FAILED"


def table(summary: dict[str, Any]) -> list[str]:
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
    for row in summary.get("void", []):
        lines.append(f"Void: {row['case_id']} trial {row['trial']} {row['condition']}: {row['void']}")
    return lines


def paired_table(summary: dict[str, Any]) -> list[str]:
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
    for metric in ["weighted_score", *summary["weights"]]:
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
    for condition, found in summary.get("reliability", {}).items():
        if condition == "mcnemar":
            lines.append(
                f"Checks, exact McNemar: {found['candidate_only']} pass every trial in candidate only, "
                f"{found['baseline_only']} in baseline only (p = {found['p']:.4f})."
            )
        else:
            k = found["k"]
            lines.append(
                f"Checks, {condition}: pass@{k} {found['pass_at_k']:.3f}, pass^{k} "
                f"{found['pass_hat_k']:.3f} over {plural(found['checks'], 'check')}."
            )
    return lines


def dumps(summary: dict[str, Any]) -> str:
    return json.dumps(summary, indent=2)
