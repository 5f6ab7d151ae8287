"""The report's view model: what a report shows, aggregated from the rows and kept apart from how
any renderer draws it (the HTML page and the Markdown summary read the same views)."""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled into
# ForwardRefs as it is made (a process's first compile is about 1.3 ms of start-up); names type
# checkers alone import are quoted where a function names them (docs/startup.md).
import random
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ...text import plural
from ..deciding.score import verdict_word
from ..rows import Quantity, ResponseRow, ResultRow, SheetRow, is_labelled
from ..rubric import METRICS, WEIGHTS

if TYPE_CHECKING:
    from ...catalog import CaseRow
    from ..rows import ScoreSummary
    from ..summaries import CriteriaSummary


class Inputs:
    """What a report is made of: the catalog's cases and the responses, and what the command adds
    when it has it. A plain class, not a dataclass: dataclasses imports inspect, about 8 ms of
    report's start-up (docs/startup.md)."""

    def __init__(
        self,
        cases: "list[CaseRow]",
        responses: list[ResponseRow],
        *,
        checks: list[ResultRow] | None = None,
        scores: Sequence[Mapping[str, object]] | None = None,
        summary: "ScoreSummary | None" = None,
        criteria: "CriteriaSummary | None" = None,
        full: bool = False,
    ) -> None:
        self.cases = cases
        self.responses = responses
        self.checks = checks
        # as read, conditions already mapped back (score --key); score.summarize checked them
        self.scores = scores
        self.summary = summary  # score.summarize's, when there are scores
        self.criteria = criteria  # criteria.summarize's (score --criteria), when given
        self.full = full  # report --full: every case in full, however large the run


class CaseView:
    """One case as the report shows it: its Δs, blockers, failing and unwritten checks, and its
    responses by condition (filled in by case_views)."""

    def __init__(self, case: "CaseRow") -> None:
        self.case = case
        self.deltas: dict[str, float] = {}  # candidate minus baseline, per metric
        self.weighted_delta = 0.0
        self.blockers = 0
        self.failing: list[str] = []
        self.unwritten: list[str] = []
        self.responses: dict[str, list[ResponseRow]] = {}


def case_views(inputs: Inputs) -> list[CaseView]:
    """One view per case, the worst regression first."""
    views = {case["id"]: CaseView(case) for case in inputs.cases}
    for row in inputs.responses:
        if row["case_id"] in views:
            views[row["case_id"]].responses.setdefault(row["condition"], []).append(row)
    _add_checks(views, inputs.checks or [])
    _add_scores(views, inputs.scores or [])
    return sorted(views.values(), key=lambda v: (v.weighted_delta, -v.blockers, v.case["id"]))


# A large run's HTML page holds the cases that regressed or failed (the worst FLAGGED_CAP of them,
# worst first) and a seeded sample of the rest: a page with every response of 10,000 cases x 3
# trials x 2 conditions is tens of megabytes and takes a browser many seconds to open (issue 38).
# Up to LARGE_RUN cases, every case is in.
LARGE_RUN = 200
FLAGGED_CAP = 200
SAMPLE_SIZE = 100
SAMPLE_SEED = 0


class Selection(NamedTuple):
    """The cases a large run's page shows, and the counts its statement gives."""

    shown: list[CaseView]  # in the table's order
    total: int
    flagged: int  # regressed or failing
    flagged_shown: int  # the worst of them, up to FLAGGED_CAP
    others: int  # the cases neither regressed nor failing
    sampled: int  # drawn from the others


def flagged(view: CaseView) -> bool:
    """Regressed (weighted Δ below 0), a candidate blocker, or a check failing or erroring."""
    return view.weighted_delta < 0 or view.blockers > 0 or bool(view.failing)


def selection(views: list[CaseView], *, full: bool) -> Selection | None:
    """The cases a page shows when it cannot show them all; None when every case is shown (a run
    of at most LARGE_RUN cases, or --full). `views` are in the table's order, worst regression
    first: the first FLAGGED_CAP flagged ones are kept, and Python's random.Random(SAMPLE_SEED)
    draws SAMPLE_SIZE positions among the others, so the same rows give the same page."""
    if full or len(views) <= LARGE_RUN:
        return None
    worst = [view for view in views if flagged(view)]
    rest = [view for view in views if not flagged(view)]
    drawn = random.Random(SAMPLE_SEED).sample(range(len(rest)), min(SAMPLE_SIZE, len(rest)))
    picked = {id(view) for view in worst[:FLAGGED_CAP]} | {id(rest[i]) for i in drawn}
    shown = [view for view in views if id(view) in picked]
    return Selection(shown, len(views), len(worst), min(len(worst), FLAGGED_CAP), len(rest), len(drawn))


def selection_note(chosen: Selection) -> str:
    """What the page holds and how the sample was drawn, said where the table begins."""
    left_out = chosen.total - len(chosen.shown)
    which = (
        f"the {plural(chosen.flagged, 'case')} that regressed or failed"
        if chosen.flagged == chosen.flagged_shown
        else f"the worst {chosen.flagged_shown} of the {chosen.flagged} cases that regressed or failed"
    )
    return (
        f"This run has {plural(chosen.total, 'case')}, too many for one page a browser opens quickly. "
        f"The table holds {which} (weighted Δ below 0, a candidate blocker, or a check failing or "
        f"erroring) and {chosen.sampled} of the other {chosen.others}, drawn at random (seed "
        f"{SAMPLE_SEED}); {plural(left_out, 'case')} {'is' if left_out == 1 else 'are'} left out. "
        "The charts, the audit and the verdict count every case; report --full writes every case."
    )


def _add_checks(views: dict[str, CaseView], checks: list[ResultRow]) -> None:
    for row in checks:
        view, status = views.get(str(row.get("case_id"))), row["status"]
        if view is not None and status in ("fail", "error"):
            view.failing.append(f"{row.get('criterion')} ({row['condition']}, {status})")
        elif view is not None and status in ("unwritten", "orphan"):
            view.unwritten.append(f"{row.get('criterion')} ({row['condition']}, {status})")


def scored(scores: Iterable[Mapping[str, object]]) -> Iterator[SheetRow]:
    """The score rows a report counts: every row but the void ones (they score nothing) and any
    without a case, trial and condition (none once score.summarize has accepted the rows)."""
    for row in scores:
        if is_labelled(row) and not isinstance(row.get("void"), str):
            yield row


def _add_scores(views: dict[str, CaseView], scores: Sequence[Mapping[str, object]]) -> None:
    """Candidate blockers, and candidate-minus-baseline means per metric."""
    means: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for row in scored(scores):
        for metric in METRICS:
            value = row.get(metric)
            if isinstance(value, (int, float)):
                means[(row["case_id"], row["condition"], metric)].append(float(value))
        if row.get("blocker") is True and row["case_id"] in views and row["condition"] == "candidate":
            views[row["case_id"]].blockers += 1
    for case_id, view in views.items():
        for metric in METRICS:
            base, cand = means.get((case_id, "baseline", metric)), means.get((case_id, "candidate", metric))
            if base and cand:
                view.deltas[metric] = sum(cand) / len(cand) - sum(base) / len(base)
        view.weighted_delta = sum(view.deltas.get(m, 0.0) * w for m, w in WEIGHTS.items())


def outside_catalog(inputs: Inputs) -> list[str]:
    """Case ids that rows name but the catalog lacks: shown, never silently left out."""
    known = {case["id"] for case in inputs.cases}
    rows = [*inputs.responses, *(inputs.checks or []), *(inputs.scores or [])]
    return sorted({str(row.get("case_id")) for row in rows} - known)


def outside_note(inputs: Inputs) -> str:
    outside = outside_catalog(inputs)
    if not outside:
        return ""
    shown = ", ".join(outside[:20]) + (f" and {len(outside) - 20} more" if len(outside) > 20 else "")
    return (
        f"Rows name {plural(len(outside), 'case')} the catalog lacks ({shown}): they count in the gate's "
        "numbers, as in score, but have no entry in the table of cases."
    )


def trial_spread(scores: Sequence[Mapping[str, object]]) -> dict[tuple[str, str], tuple[float, float, float]]:
    """(condition, metric) -> (mean, lowest trial mean, highest trial mean)."""
    per_trial: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    for row in scored(scores):
        for metric in METRICS:
            value = row.get(metric)
            if isinstance(value, (int, float)):
                per_trial[(row["condition"], metric, row["trial"])].append(float(value))
    grouped: dict[tuple[str, str], list[float]] = defaultdict(list)
    every: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (condition, name, _), values in per_trial.items():
        grouped[(condition, name)].append(sum(values) / len(values))
        every[(condition, name)] += values
    return {k: (sum(every[k]) / len(every[k]), min(v), max(v)) for k, v in grouped.items()}


def verdict(summary: "ScoreSummary") -> tuple[str, str, list[str]]:
    """The headline, its CSS class and its reasons: the decision `score` states, word for word."""
    decided = summary.get("decision")
    if decided is None:
        word = verdict_word(summary["release_gate"])
        return f"Release gate: {word}", word.lower(), list(summary["release_gate"]["reasons"])
    if decided["gate"] == "paired":
        return (
            f"Release decision (paired): {decided['verdict'].upper()}",
            decided["verdict"],
            decided["reasons"],
        )
    word = verdict_word(summary["release_gate"])
    # a PASS the paired analysis cannot back is not shown as a plain green box
    doubtful = (
        " doubtful" if any(r.startswith(f"{word} by the reference rules") for r in decided["reasons"]) else ""
    )
    return f"Release gate: {word}", word.lower() + doubtful, decided["reasons"]


def interval_rows(summary: "ScoreSummary") -> list[tuple[str, float, float | None, float | None]]:
    section = summary["paired"]
    quantities: list[Quantity] = ["weighted_score", *summary["weights"]]
    return [(m, section[m]["mean_delta"], *(section[m]["ci"] or (None, None))) for m in quantities]


def signed(value: float) -> str:
    return f"{value:+.2f}".replace("-", "−")


def criteria_header() -> list[str]:
    return [
        "condition",
        "criteria",
        "passed",
        "by check",
        "by person",
        "by certified judge",
        "undecided",
        "judge pass rate (raw → corrected, 95%)",
    ]


def criteria_rows(found: "CriteriaSummary") -> list[list[str]]:
    """One row per condition (criteria.condition_cells), undecided by kind."""
    # here, not at the top: criteria brings the certificates (agree, hashlib), --criteria's alone
    from ..deciding.criteria import condition_cells

    return [
        condition_cells(
            name,
            c,
            arrow="→",
            undecided=", ".join(f"{n} {kind}" for kind, n in c["undecided"].items() if n) or "0",
        )
        for name, c in found["conditions"].items()
    ]
