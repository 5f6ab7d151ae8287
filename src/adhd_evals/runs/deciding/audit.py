"""`adhd-evals audit`: how good is each check (and each criterion) at telling the conditions apart.

Per check (a case's criterion and the check function deciding it, from `check --output`) and per
criterion (from `verdicts --out`), over the trials of each condition:

- the pass rate in baseline and in candidate, each with its Wilson 95% interval (agree.wilson);
- the discrimination: the candidate's pass rate minus the baseline's;
- the flip rate: of every two trials of one condition, the share whose outcomes differ (k passes
  in n trials make k·(n−k) such pairs of the n·(n−1)/2), over both conditions together; it does
  not depend on the trials' order, and needs two trials of a condition (None without);
- a label, the first of these that holds:
    unpaired        it has no result in one of the conditions: nothing to compare
    saturated       it passes in every trial of both conditions
    floor           it fails in every trial of both conditions
    flaky           its flip rate is above the stated rate (--flaky-above)
    discriminating  it passes more often with the candidate
    baseline-only   it passes more often with the baseline
    flat            it passes as often in both, sometimes, and flips no more than the stated rate

Only a `pass` passes: a fail, an unwritten placeholder, an error, an orphan or an undecided
criterion do not (counted apart as `undecided`, so a reader knows a floor is an unwritten one).

Per case: its Δ, the candidate's check pass fraction minus the baseline's (the Δ `run
--stop-when-decided` decides on), and `no-lift` when every check of it gives one outcome in
every trial of both conditions (each saturated or floor): it costs money and moves nothing.

The suite: how many checks and cases carry the decision (discriminating or baseline-only checks;
cases whose Δ is not 0, the ones the sign test counts), and whether the suite can resolve the
effect the team cares about: the smallest mean Δ its cases detect at 80% power (paired.detectable,
from the spread of the per-case Δ), beside the cases that effect would need.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, NamedTuple

from ...text import plural, table
from ..inference import paired as stats
from ..judging.agree import wilson
from ..rows import PairedVerdict, QuarantineRow, ResponseRow, not_run_note
from ..types import AuditItemName
from ..types import AuditLabel as Label
from ..types import OutcomeKind as Kind
from .echoes import Echo as Echo  # the prompt-only pass: echoes.py
from .echoes import echoes as echoes
from .outcomes import ALPHA as ALPHA  # trial outcomes and the sign test's verdict: outcomes.py
from .outcomes import Outcome as Outcome
from .outcomes import check_outcomes as check_outcomes
from .outcomes import criterion_outcomes as criterion_outcomes
from .outcomes import read_results as read_results
from .outcomes import sign_verdict as sign_verdict
from .quarantine import quarantine_line as quarantine_line  # the list read back: quarantine.py
from .quarantine import read_quarantine as read_quarantine
from .quarantine import without_quarantined as without_quarantined

if TYPE_CHECKING:
    from ..summaries import (
        AuditCaseJson,
        AuditFigures,
        AuditItemJson,
        AuditJson,
        AuditSignTest,
        AuditSuiteJson,
        TallyJson,
    )

FLAKY_ABOVE = 0.2  # the default flip rate above which a check is flaky
EFFECT = 0.1  # the default mean Δ (check pass fraction) a team wants to be able to see
CONDITIONS = ("baseline", "candidate")


class Item(NamedTuple):
    kind: Kind
    case_id: str
    criterion: str
    check: str


@dataclass(frozen=True)
class Tally:
    """One item's outcomes in one condition: passes of trials, and the results not decided."""

    passed: int = 0
    trials: int = 0
    undecided: int = 0

    @property
    def rate(self) -> Fraction | None:
        return Fraction(self.passed, self.trials) if self.trials else None

    @property
    def disagreeing_pairs(self) -> int:
        return self.passed * (self.trials - self.passed)

    @property
    def pairs(self) -> int:
        return self.trials * (self.trials - 1) // 2

    def json(self) -> TallyJson:
        bounds = wilson(self.passed, self.trials)
        return {
            "passed": self.passed,
            "trials": self.trials,
            "rate": None if self.rate is None else float(self.rate),
            "low": None if bounds is None else bounds[0],
            "high": None if bounds is None else bounds[1],
            "undecided": self.undecided,
        }


@dataclass(frozen=True)
class ItemAudit:
    item: Item
    baseline: Tally
    candidate: Tally
    flip_rate: Fraction | None
    label: Label

    @property
    def discrimination(self) -> Fraction | None:
        base, cand = self.baseline.rate, self.candidate.rate
        return None if base is None or cand is None else cand - base

    def name(self) -> AuditItemName:
        """What is audited, as every output names it: a check's name after its criterion."""
        named: AuditItemName = {
            "kind": self.item.kind,
            "case_id": self.item.case_id,
            "criterion": self.item.criterion,
        }
        if self.item.kind == "check":
            named["check"] = self.item.check
        return named

    def json(self) -> AuditItemJson:
        found = self.discrimination
        figures: AuditFigures = {
            "label": self.label,
            "baseline": self.baseline.json(),
            "candidate": self.candidate.json(),
            "discrimination": None if found is None else float(found),
            "flip_rate": None if self.flip_rate is None else float(self.flip_rate),
        }
        return {**self.name(), **figures}


@dataclass(frozen=True)
class CaseAudit:
    case_id: str
    delta: Fraction | None  # None: a condition has no check result for it
    no_lift: bool
    cost_usd: float | None = None  # from --responses: what its rows cost


@dataclass(frozen=True)
class SuiteFigures:
    checks: int
    deciding_checks: int  # discriminating or baseline-only
    cases: int
    deciding_cases: int  # Δ ≠ 0: the cases the sign test counts
    paired: stats.Analysis | None  # over the cases with a Δ
    effect: float
    cases_needed: int | None
    sign: stats.SignTest | None = None  # over the cases' Δ (None: no paired case)

    @property
    def verdict(self) -> PairedVerdict | None:
        return None if self.sign is None else sign_verdict(self.sign.n_plus, self.sign.n_minus)

    @property
    def resolves(self) -> bool | None:
        """Whether the suite detects a mean Δ of `effect` at 80% power (None: too few cases to say)."""
        mde = None if self.paired is None else self.paired.mde
        return None if mde is None else mde <= self.effect


@dataclass(frozen=True)
class Audit:
    items: list[ItemAudit]
    cases: list[CaseAudit]
    suite: SuiteFigures
    flaky_above: float
    not_run: int = 0  # response rows a curtailed run recorded as not run
    not_run_reasons: tuple[str, ...] = ()  # why, as the run wrote it on those rows

    def quarantine(self) -> list[ItemAudit]:
        return [audit for audit in self.items if audit.label == "flaky"]


# ---- the figures ----------------------------------------------------------------------------


def tallies(outcomes: Iterable[Outcome]) -> dict[Item, dict[str, Tally]]:
    """Per item, per condition: passes, trials and undecided results."""
    counts: dict[Item, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for outcome in outcomes:
        item = Item(outcome.kind, outcome.case_id, outcome.criterion, outcome.check)
        count = counts[item][outcome.condition]
        count[0] += outcome.passed
        count[1] += 1
        count[2] += outcome.status not in ("pass", "fail")
    return {item: {c: Tally(*n) for c, n in by.items()} for item, by in counts.items()}


def flip_rate(*conditions: Tally) -> Fraction | None:
    """Of every two trials of one condition, the share that disagree (None: no condition has two)."""
    pairs = sum(t.pairs for t in conditions)
    return Fraction(sum(t.disagreeing_pairs for t in conditions), pairs) if pairs else None


def label(base: Tally, cand: Tally, flips: Fraction | None, flaky_above: float) -> Label:
    if not base.trials or not cand.trials:
        return "unpaired"
    if base.passed == base.trials and cand.passed == cand.trials:
        return "saturated"
    if not base.passed and not cand.passed:
        return "floor"
    if flips is not None and flips > stats.exact(flaky_above):
        return "flaky"
    base_rate, cand_rate = Fraction(base.passed, base.trials), Fraction(cand.passed, cand.trials)
    if cand_rate > base_rate:
        return "discriminating"
    return "baseline-only" if base_rate > cand_rate else "flat"


def audit_items(outcomes: Iterable[Outcome], flaky_above: float = FLAKY_ABOVE) -> list[ItemAudit]:
    found = []
    for item, by in sorted(tallies(outcomes).items()):
        base, cand = by.get("baseline", Tally()), by.get("candidate", Tally())
        flips = flip_rate(base, cand)
        found.append(ItemAudit(item, base, cand, flips, label(base, cand, flips, flaky_above)))
    return found


def pass_counts(outcomes: Iterable[Outcome]) -> dict[tuple[str, str], tuple[int, int]]:
    """Per (case, condition): the check results that passed, of all of them."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for outcome in outcomes:
        count = counts[(outcome.case_id, outcome.condition)]
        count[0] += outcome.passed
        count[1] += 1
    return {key: (passed, total) for key, (passed, total) in counts.items()}


def case_delta(candidate: tuple[int, int], baseline: tuple[int, int]) -> Fraction:
    """A case's Δ: its check pass fraction with the candidate minus with the baseline."""
    return Fraction(candidate[0], candidate[1]) - Fraction(baseline[0], baseline[1])


def audit_cases(
    outcomes: Sequence[Outcome], items: Sequence[ItemAudit], costs: Mapping[str, float] | None = None
) -> list[CaseAudit]:
    counts = pass_counts(o for o in outcomes if o.kind == "check")
    steady: dict[str, bool] = {}
    for audit in items:
        if audit.item.kind == "check":
            fixed = audit.label in ("saturated", "floor")
            steady[audit.item.case_id] = steady.get(audit.item.case_id, True) and fixed
    found = []
    for case_id in sorted(steady):
        base, cand = counts.get((case_id, "baseline")), counts.get((case_id, "candidate"))
        delta = None if base is None or cand is None else case_delta(cand, base)
        cost = None if costs is None else costs.get(case_id, 0.0)
        found.append(CaseAudit(case_id, delta, steady[case_id], cost))
    return found


def suite_figures(items: Sequence[ItemAudit], cases: Sequence[CaseAudit], effect: float) -> SuiteFigures:
    checks = [a for a in items if a.item.kind == "check"]
    deciding = sum(a.label in ("discriminating", "baseline-only") for a in checks)
    paired_cases = [c for c in cases if c.delta is not None]
    analysis = None
    if paired_cases:
        deltas = [c.delta for c in paired_cases if c.delta is not None]
        series = stats.Series.from_fractions(
            [c.case_id for c in paired_cases], [d.numerator for d in deltas], [d.denominator for d in deltas]
        )
        analysis = stats.analyse(series)
    needed = None if analysis is None or analysis.n < 2 else stats.cases_needed(analysis.sd, effect)
    moving = sum(c.delta is not None and c.delta != 0 for c in cases)
    sign = None if analysis is None else analysis.sign
    return SuiteFigures(len(checks), deciding, len(cases), moving, analysis, effect, needed, sign)


def costs_of(responses: Iterable[ResponseRow]) -> dict[str, float]:
    """What each case's response rows cost (a cached row cost this suite nothing again)."""
    costs: dict[str, float] = defaultdict(float)
    for row in responses:
        cost = row.get("cost_usd")
        if isinstance(cost, (int, float)) and not row.get("cached"):
            costs[row["case_id"]] += float(cost)
    return dict(costs)


def audit(
    outcomes: Sequence[Outcome],
    *,
    responses: Sequence[ResponseRow] | None = None,
    flaky_above: float = FLAKY_ABOVE,
    effect: float = EFFECT,
    not_run: int = 0,
    not_run_reasons: Sequence[str] = (),
) -> Audit:
    items = audit_items(outcomes, flaky_above)
    cases = audit_cases(outcomes, items, None if responses is None else costs_of(responses))
    reasons = tuple(dict.fromkeys(not_run_reasons))  # each once, in the order met
    return Audit(items, cases, suite_figures(items, cases, effect), flaky_above, not_run, reasons)


# ---- showing it ------------------------------------------------------------------------------


def _rate(tally: Tally) -> str:
    bounds = wilson(tally.passed, tally.trials)
    if bounds is None:
        return "-"
    return f"{tally.passed}/{tally.trials} [{bounds[0]:.2f}, {bounds[1]:.2f}]"


def _number(value: Fraction | None, sign: bool = False) -> str:
    if value is None:
        return "-"
    return f"{float(value):+.2f}" if sign else f"{float(value):.2f}"


def item_rows(found: Audit) -> list[list[str]]:
    header = ["case", "criterion", "check", "label", "baseline", "candidate", "Δ", "flip rate"]
    body = [
        [
            a.item.case_id,
            a.item.criterion,
            a.item.check or "(criterion)",
            a.label,
            _rate(a.baseline),
            _rate(a.candidate),
            _number(a.discrimination, sign=True),
            _number(a.flip_rate),
        ]
        for a in found.items
    ]
    return [header, *body]


def case_rows(found: Audit) -> list[list[str]]:
    header = ["case", "Δ", "no-lift", "cost"]
    return [header] + [
        [
            c.case_id,
            _number(c.delta, sign=True),
            "no-lift" if c.no_lift else "",
            "-" if c.cost_usd is None else f"${c.cost_usd:.4f}",
        ]
        for c in found.cases
    ]


def suite_lines(found: Audit) -> list[str]:
    s = found.suite
    counts: dict[str, int] = defaultdict(int)
    for a in found.items:
        counts[a.label] += 1
    lines = [
        f"Checks carrying the decision (discriminating or baseline-only): {s.deciding_checks} of {s.checks}; "
        f"cases with a Δ other than 0 (the ones a sign test counts): {s.deciding_cases} of {s.cases}.",
        "Labels: " + ", ".join(f"{name} {n}" for name, n in sorted(counts.items())) + f" (flaky: flip rate "
        f"above {found.flaky_above:g}).",
    ]
    idle = [c for c in found.cases if c.no_lift]
    if idle:
        spent = sum(c.cost_usd or 0.0 for c in idle)
        paid = "" if all(c.cost_usd is None for c in idle) else f", which cost ${spent:.4f}"
        lines.append(
            f"{plural(len(idle), 'case')} with no lift (both conditions agree on every trial){paid}."
        )
    lines.append(_resolution(s))
    if s.sign is not None:
        lines.append(
            f"Exact sign test over the cases' Δ: {s.verdict} ({s.sign.n_plus} up, {s.sign.n_minus} down, "
            f"p = {s.sign.p:.4f})."
        )
    if found.not_run:
        lines.append(not_run_note(found.not_run, "not audited"))
        lines += [f"The run that wrote them said: {why}." for why in found.not_run_reasons]
    return lines


def _resolution(s: SuiteFigures) -> str:
    if s.paired is None or s.paired.mde is None:
        return "Too few paired cases (fewer than 2) to say what effect this suite can resolve."
    can = f"{plural(s.paired.n, 'case')} detect a mean Δ of {s.paired.mde:.3f} (80% power, two-sided 5%)"
    if s.resolves:
        return f"{can}: the effect you care about ({s.effect:g}, --effect) is within reach."
    more = "no practical number of cases" if s.cases_needed is None else f"about {s.cases_needed:,} cases"
    return f"{can}: too coarse for an effect of {s.effect:g} (--effect), which needs {more}."


def text(found: Audit) -> str:
    lines = table(item_rows(found)) + [""] + table(case_rows(found)) + [""] + suite_lines(found)
    return "\n".join(lines) + "\n"


def markdown(found: Audit) -> str:
    def md(rows: list[list[str]]) -> list[str]:
        cells = [[cell.replace("|", "\\|") for cell in row] for row in rows]
        head, *body = cells
        return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + [
            "| " + " | ".join(row) + " |" for row in body
        ]

    lines = ["# Suite audit", "", "## Checks and criteria", "", *md(item_rows(found))]
    lines += ["", "## Cases", "", *md(case_rows(found)), "", "## The suite", ""]
    lines += [f"- {line}" for line in suite_lines(found)]
    return "\n".join(lines) + "\n"


def _case_json(case: CaseAudit) -> AuditCaseJson:
    return {
        "case_id": case.case_id,
        "delta": None if case.delta is None else float(case.delta),
        "no_lift": case.no_lift,
        "cost_usd": case.cost_usd,
    }


def _sign_json(s: SuiteFigures) -> AuditSignTest | None:
    if s.sign is None:
        return None
    verdict = sign_verdict(s.sign.n_plus, s.sign.n_minus)  # s.verdict, known not None here
    return {"n_plus": s.sign.n_plus, "n_minus": s.sign.n_minus, "p": s.sign.p, "verdict": verdict}


def _suite_json(s: SuiteFigures) -> AuditSuiteJson:
    return {
        "checks": s.checks,
        "deciding_checks": s.deciding_checks,
        "cases": s.cases,
        "deciding_cases": s.deciding_cases,
        "paired": None if s.paired is None else s.paired.json(),
        "effect": s.effect,
        "resolves": s.resolves,
        "cases_needed": s.cases_needed,
        "sign_test": _sign_json(s),
    }


def as_json(found: Audit) -> AuditJson:
    return {
        "flaky_above": found.flaky_above,
        "items": [a.json() for a in found.items],
        "cases": [_case_json(c) for c in found.cases],
        "suite": _suite_json(found.suite),
        "not_run": found.not_run,
        "not_run_reasons": list(found.not_run_reasons),
        "quarantine": [a.json() for a in found.quarantine()],
    }


def quarantine_rows(found: Audit) -> list[QuarantineRow]:
    """The flaky checks and criteria, one JSONL row each: what `--quarantine-out` writes."""
    return [
        {**a.name(), "label": a.label, "flip_rate": float(a.flip_rate or 0), "flaky_above": found.flaky_above}
        for a in found.quarantine()
    ]
