"""Trigger evals scored: per condition, how often the skill was invoked when it should have
been (recall), how often an invocation was one it should have been (precision), and how
often the case was right either way (accuracy), each with its Wilson 95% interval.

A check result is a trigger verdict when its criterion is a trigger criterion (triggering.py):
on "the skill X is invoked", pass means invoked; on "the skill X is not invoked", pass means not
invoked. Each (case, trial) row counts once. A result that is neither pass nor fail (an error:
the runner records no tool calls; unwritten; orphan) decides nothing and is counted apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...text import table as text_table
from ...triggering import polarity
from ..judging.agree import Rate
from ..rows import PairedVerdict, ResultRow

if TYPE_CHECKING:
    from ..summaries import ChecksOnly, TriggerFigures, TriggersPaired


@dataclass
class Confusion:
    """One condition's trigger verdicts: true/false positives and negatives, and the rest."""

    tp: int = 0
    fn: int = 0
    fp: int = 0
    tn: int = 0
    undecided: int = 0

    @property
    def precision(self) -> Rate:
        return Rate(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> Rate:
        return Rate(self.tp, self.tp + self.fn)

    @property
    def accuracy(self) -> Rate:
        return Rate(self.tp + self.tn, self.tp + self.fn + self.fp + self.tn)

    def add(self, should: bool, invoked: bool) -> None:
        if should:
            self.tp, self.fn = self.tp + invoked, self.fn + (not invoked)
        else:
            self.fp, self.tn = self.fp + invoked, self.tn + (not invoked)


def confusion(results: Sequence[ResultRow]) -> dict[str, Confusion]:
    """Per condition (sorted), the trigger verdicts among `check --output` rows; empty when
    no row is a trigger verdict."""
    found: dict[str, Confusion] = {}
    for row in results:
        criterion = row.get("criterion")
        read = polarity(criterion) if isinstance(criterion, str) else None
        if read is None:
            continue
        counts = found.setdefault(row["condition"], Confusion())
        if row["status"] not in ("pass", "fail"):
            counts.undecided += 1
            continue
        should = read[1]
        counts.add(should, (row["status"] == "pass") == should)
    return dict(sorted(found.items()))


def as_json(found: dict[str, Confusion]) -> dict[str, TriggerFigures]:
    return {
        condition: {
            "tp": c.tp,
            "fn": c.fn,
            "fp": c.fp,
            "tn": c.tn,
            "undecided": c.undecided,
            "precision": c.precision.as_json(),
            "recall": c.recall.as_json(),
            "accuracy": c.accuracy.as_json(),
        }
        for condition, c in found.items()
    }


def _shown(rate: Rate) -> str:
    interval = rate.interval
    if rate.rate is None or interval is None:
        return "- (none)"
    return f"{rate.rate:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"


def table(found: dict[str, Confusion]) -> list[str]:
    """The trigger figures as score prints them."""
    header = (
        "condition",
        "TP",
        "FN",
        "FP",
        "TN",
        "precision [95% CI]",
        "recall [95% CI]",
        "accuracy [95% CI]",
    )
    body = [
        (
            name,
            str(c.tp),
            str(c.fn),
            str(c.fp),
            str(c.tn),
            _shown(c.precision),
            _shown(c.recall),
            _shown(c.accuracy),
        )
        for name, c in found.items()
    ]
    lines = ["Trigger evals (was the skill invoked, read from each run's trace; Wilson 95% intervals):"]
    lines += text_table([header, *body])
    undecided = sum(c.undecided for c in found.values())
    if undecided:
        lines.append(
            f"{undecided} trigger verdicts undecided (an error or unwritten check: a runner without traces "
            "records no tool calls), counted in no figure."
        )
    return lines


INDICATOR = (
    "Trigger checks are an indicator here, not in the checks passed: a query that should trigger the "
    "skill can only pass with the skill present (claude plugin eval's rule), so counting them would "
    "inflate the difference between the arms."
)


def without(results: Sequence[ResultRow]) -> list[ResultRow]:
    """The check results that are not trigger verdicts."""
    return [
        row
        for row in results
        if not isinstance(row.get("criterion"), str) or polarity(str(row.get("criterion"))) is None
    ]


def checks_only(results: Sequence[ResultRow], *, allow_unwritten: bool = False) -> ChecksOnly:
    """`score --checks` without a scores file (a run with only checks, as a trigger run is):
    each condition's check pass rate, the trigger figures, and whether every check decided.
    No release gate: with no scores there is only what the checks say, and for trigger cases run
    with two descriptions (candidate, comparator) their paired comparison."""
    from .score import check_rates

    rates = check_rates(results)
    undecided = sum(rate["unwritten"] + rate["error"] for rate in rates.values())
    reasons = []
    if undecided and not allow_unwritten:
        reasons.append(
            f"{undecided} of {len(results)} check results are unwritten or errored: a check that never "
            "decided cannot pass (--allow-unwritten to proceed knowingly)."
        )
    summary: ChecksOnly = {
        "checks": rates,
        "triggers": as_json(confusion(results)),
        "passed": not reasons,
        "reasons": reasons,
    }
    compared = paired(results)
    if compared is not None:
        summary["triggers_paired"] = compared
    return summary


def checks_only_table(summary: ChecksOnly, found: dict[str, Confusion]) -> list[str]:
    header = ("condition", "checks passed", "pass rate", "unwritten", "error")
    body = [
        (name, f"{r['passed']}/{r['total']}", f"{r['pass_rate']:.3f}", str(r["unwritten"]), str(r["error"]))
        for name, r in summary["checks"].items()
    ]
    lines = text_table([header, *body])
    lines += table(found) if found else []
    lines += paired_lines(summary.get("triggers_paired"))
    lines.append("Checks: " + ("all decided" if summary["passed"] else "NOT all decided"))
    lines += [f"  - {reason}" for reason in summary["reasons"]]
    return lines


NEW, OLD = "candidate", "comparator"  # two skill descriptions, run on the same queries
ALPHA = 0.05  # the paired verdict's level


def paired(results: Sequence[ResultRow]) -> TriggersPaired | None:
    """Candidate vs comparator (two descriptions of one skill) on the same queries: per
    (case, trial, criterion) decided in both, whether each got the trigger verdict right; the
    exact McNemar test on the pairs right in one only; better or worse when p < 0.05, else
    inconclusive. None without both conditions. (Baseline runs without the skill, so a
    query that should trigger can only pass with it: baseline is never paired here.)"""
    right: dict[str, dict[tuple[str | None, int | None, str | None], bool]] = {NEW: {}, OLD: {}}
    for row in results:
        criterion = row.get("criterion")
        read = polarity(criterion) if isinstance(criterion, str) else None
        if read is None or row["condition"] not in right or row["status"] not in ("pass", "fail"):
            continue
        right[row["condition"]][(row.get("case_id"), row.get("trial"), criterion)] = row["status"] == "pass"
    both = sorted(set(right[NEW]) & set(right[OLD]), key=repr)
    if not both:
        return None
    from ..inference.paired import mcnemar

    wins = sum(right[NEW][key] and not right[OLD][key] for key in both)
    losses = sum(right[OLD][key] and not right[NEW][key] for key in both)
    test = mcnemar(wins, losses)
    verdict: PairedVerdict = (
        "inconclusive" if test["p"] >= ALPHA or wins == losses else ("better" if wins > losses else "worse")
    )
    return {"pairs": len(both), "mcnemar": test, "verdict": verdict}


def paired_lines(found: TriggersPaired | None) -> list[str]:
    if found is None:
        return []
    test = found["mcnemar"]
    return [
        f"Trigger descriptions, candidate vs comparator on the same {found['pairs']} queries: right only with "
        f"the candidate {test['candidate_only']}, only with the comparator {test['baseline_only']}; exact "
        f"McNemar p = {test['p']:.4f}: {found['verdict'].upper()} (p < {ALPHA} decides)"
    ]
