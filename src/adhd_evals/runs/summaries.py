"""The shapes of what `score`, `check` and `audit` print with --json: score's summary and every
section inside it (the criteria, the checks' reliability, the prediction-powered figures, the
trigger figures), and audit's findings, each defined here once, as the code that builds it writes it.

Apart from rows.py (the rows read from files, and their checks), which re-exports these names to
type checkers: a summary is built, not read back, so it needs no validator, only its shape; and
only the code that builds one imports this module at run time (every reader of rows would
otherwise build these TypedDicts, about 3 ms of each start-up). The keys are
exactly the ones the writers write today; `tests/test_row_types.py` builds the summaries of the
verdicts tour and compares every section's keys with these.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Literal, TypedDict

from .rubric import Metric
from .types import (
    AuditItemName,
    AuditLabel,
    Decider,
    GateName,
    Guarded,
    PairedVerdict,
    ReferenceVerdict,
    Undecided,
)

if sys.version_info >= (3, 11):
    from typing import NotRequired
elif TYPE_CHECKING:  # Python 3.10: only the type checker reads it (annotations stay strings here)
    from typing_extensions import NotRequired

# ---- score's summary -------------------------------------------------------------------


class VoidRow(TypedDict):
    """A row the judge could not judge, as score lists it."""

    case_id: str
    trial: int
    condition: str
    void: str


class ConditionMeans(TypedDict):
    """A condition's means, as the reference's `summarize_scores` writes them."""

    rows: int
    correctness: float
    autonomy: float
    actionability: float
    safety: float
    concision: float
    weighted_score: float
    blocking_findings: int


class ReleaseGate(TypedDict):
    passed: bool
    verdict: NotRequired[Literal["incomparable"]]  # too few trials (--min-trials) to compare
    reasons: list[str]


class CheckRate(TypedDict):
    passed: int
    total: int
    pass_rate: float
    unwritten: int  # orphans included: a check that never ran
    error: int


class Regression(TypedDict):
    case_id: str
    metric: Guarded
    baseline: float
    candidate: float


class Decision(TypedDict):
    gate: GateName
    verdict: PairedVerdict | ReferenceVerdict
    reasons: list[str]


class SignTestJson(TypedDict):
    n_plus: int
    n_minus: int
    p: float


class AnalysisJson(TypedDict):
    """One quantity's paired comparison (paired.Analysis.json)."""

    n: int  # cases
    mean_delta: float
    sd: float
    ci: list[float] | None  # [low, high]; None below two cases
    bootstrap: Literal["exact", "resampled"]
    sign_test: SignTestJson
    mde: float | None
    cases_needed: int | None


class Method(TypedDict):
    """How the paired interval is drawn (paired.method)."""

    interval: str
    level: float
    resamples: int
    seed: int
    power: float
    exact: str
    sign_test: str


class CaseDelta(TypedDict):
    """One case's candidate-minus-baseline means."""

    case_id: str
    correctness: float
    autonomy: float
    actionability: float
    safety: float
    concision: float
    weighted_score: float


class PairedSection(TypedDict):
    """`score --json`'s `paired`: the method, each quantity's comparison, and the cases."""

    method: Method
    weighted_score: AnalysisJson
    correctness: AnalysisJson
    autonomy: AnalysisJson
    actionability: AnalysisJson
    safety: AnalysisJson
    concision: AnalysisJson
    new_blockers: list[str]  # cases with a candidate blocker the baseline has not
    cases: list[CaseDelta]


class McNemarTest(TypedDict):
    candidate_only: int  # checks passing every trial in candidate only
    baseline_only: int
    p: float


class ScoreSummary(TypedDict):
    """`score --json`: the reference's keys first, in its order, then what adhd-evals adds."""

    weights: dict[Metric, float]
    conditions: dict[str, ConditionMeans]
    release_gate: ReleaseGate
    checks: NotRequired[dict[str, CheckRate]]  # with --checks
    criteria: NotRequired[CriteriaSummary]  # with --criteria
    void: NotRequired[list[VoidRow]]
    spread: dict[str, dict[Metric, float]]
    regressions: list[Regression]
    paired: NotRequired[PairedSection]
    reliability: NotRequired[Reliability]  # with --checks
    ppi: NotRequired[PpiSection]  # with --labels
    decision: NotRequired[Decision]
    quarantine: NotRequired[QuarantineJson]  # with --quarantine (issue 37)
    leaky_judge: NotRequired[list[str]]  # score --allow-leaky-judge: the judge's leak, said in the verdict
    triggers: NotRequired[dict[str, TriggerFigures]]  # with --checks holding trigger cases


class QuarantineJson(TypedDict):
    """`score --quarantine`: the verdict with the listed checks (it decides) and without them."""

    listed: int  # checks in the list
    results: int  # check results of those checks set aside for the second verdict
    with_them: str  # the verdict as score decides it
    without_them: str  # the verdict the same rows give without those checks' results


class CheckSummary(TypedDict):
    """`check --json`."""

    conditions: dict[str, dict[str, int]]  # per condition: rows, each status's count, rows fully passing
    rows_without_checks: dict[str, int]  # case id -> response rows
    rows_outside_catalog: dict[str, int]
    catalog_cases_without_checks: list[str]
    passed: bool


class RateJson(TypedDict):
    """k of n, with the rate and its Wilson 95% interval (agree.Rate.as_json)."""

    k: int
    n: int
    rate: NotRequired[float | None]  # None: nothing measured (n = 0)
    low: NotRequired[float | None]
    high: NotRequired[float | None]


# ---- score --criteria: criteria.summarize ------------------------------------------------

# a decider's verdicts, pass and fail ("pass" is a keyword: the functional form)
PassFail = TypedDict("PassFail", {"pass": int, "fail": int})


class Corrected(TypedDict):
    """The judge's raw pass rate and Rogan-Gladen's correction (criteria.corrected)."""

    raw: float
    raw_interval: list[float]  # [low, high]
    corrected: float | None  # None: the judge may be no better than a coin
    interval: list[float]


# one prediction-powered figure with its 95% interval (ppi.Estimate.json): ci None below two
# labelled values; lambda 1 trusts the judge fully, 0 the labels alone ("lambda" is a keyword)
EstimateJson = TypedDict(
    "EstimateJson",
    {
        "estimate": float,
        "ci": "list[float] | None",
        "se": float,
        "labelled": int,
        "cases": int,
        "lambda": float,
    },
)


class ThreeJson(TypedDict):
    """One quantity three ways (ppi.Three.json): the judge at its word, PPI, the labels alone."""

    judge: EstimateJson
    ppi: EstimateJson | None  # None: no labelled case
    labels: EstimateJson | None


class CriteriaCounts(TypedDict):
    """One condition's criteria (verdicts.per_condition, then criteria.summarize)."""

    criteria: int
    decided: dict[Decider, PassFail]
    undecided: dict[Undecided, int]
    passed: NotRequired[int]  # criteria.summarize adds the rest
    judge_rate: NotRequired[Corrected]  # with a certificate and judge-decided criteria
    judge_ppi: NotRequired[ThreeJson]  # with --labels


class CriteriaPaired(AnalysisJson):
    """Per case, the candidate's share of criteria passed minus the baseline's."""

    what: str


class CriteriaSummary(TypedDict):
    """`score --json`'s `criteria`: per condition, the paired share, and the gate's reasons."""

    conditions: dict[str, CriteriaCounts]
    paired: NotRequired[CriteriaPaired | None]  # with baseline and candidate; None: not comparable
    reasons: list[str]


# ---- score --checks: paired.reliability --------------------------------------------------


class CheckReliability(TypedDict):
    """One check's (case, criterion's) trials in one condition."""

    case_id: str
    criterion: str
    trials: int
    passed: int
    pass_at_k: float
    pass_hat_k: float


class ConditionReliability(TypedDict):
    """pass@k and pass^k over a condition's checks, k the fewest trials any check has."""

    k: int
    checks: int
    pass_at_k: float
    pass_hat_k: float
    per_check: list[CheckReliability]


class McNemarChecks(McNemarTest):
    """The exact McNemar test on the checks both conditions ran."""

    checks: int


# condition -> its figures, then "mcnemar" -> the test (with baseline and candidate)
Reliability = dict[str, ConditionReliability | McNemarChecks]


# ---- score --labels: ppi.section ---------------------------------------------------------


class PpiSample(TypedDict):
    """The random sample the key records, and what became of it."""

    seed: int
    drawn: int
    labelled: list[str]
    not_labelled: list[str]
    not_judged: list[str]
    outside_sample: list[str]
    cases: int


class PpiSection(TypedDict):
    """`score --json`'s `ppi`: per condition and for the paired Δ, each quantity three ways."""

    method: str
    level: float
    interval: str
    sample: PpiSample
    conditions: dict[str, dict[str, ThreeJson]]  # condition -> quantity -> figures
    delta: dict[str, ThreeJson]  # quantity -> figures


# ---- agree --judges A B: swap.swap ------------------------------------------------------


class SwapSide(TypedDict):
    """One judge's verdict on the sheet, as `score --gate paired` reaches it."""

    file: str
    judge: object  # the fingerprint as its rows carry it (None: they carry none)
    mean_delta: float | None
    ci: list[float] | None
    sign: Literal["+", "-", "0", "none"]
    verdict: PairedVerdict | ReferenceVerdict | None
    gate: Literal["PASSED", "FAILED"]


class CriterionAgreement(TypedDict):
    """How often two judges agree on one criterion, on the rows both judged."""

    criterion: str
    pairs: int
    agree: int
    rate: float


class SwapJson(TypedDict):
    """`agree --judges --json`: both judges, what changes between them, and their agreement."""

    judges: dict[str, SwapSide]  # "A", "B"
    flips: list[str]
    criteria: list[CriterionAgreement]


# ---- trigger cases: triggers.as_json -----------------------------------------------------


class TriggerFigures(TypedDict):
    """One condition's trigger verdicts, with precision, recall and accuracy."""

    tp: int
    fn: int
    fp: int
    tn: int
    undecided: int
    precision: RateJson
    recall: RateJson
    accuracy: RateJson


class TriggersPaired(TypedDict):
    """Candidate vs comparator descriptions on the same queries (triggers.paired)."""

    pairs: int
    mcnemar: McNemarTest
    verdict: PairedVerdict


class ChecksOnly(TypedDict):
    """`score --checks` without scores (triggers.checks_only)."""

    checks: dict[str, CheckRate]
    triggers: dict[str, TriggerFigures]
    passed: bool
    reasons: list[str]
    triggers_paired: NotRequired[TriggersPaired]


# ---- audit --json: audit.as_json ----------------------------------------------------------


class TallyJson(TypedDict):
    """One check's (or criterion's) trials in one condition, the pass rate's Wilson 95% interval
    beside it (all three None: no trial)."""

    passed: int
    trials: int
    rate: float | None
    low: float | None
    high: float | None
    undecided: int  # results neither pass nor fail


class AuditFigures(TypedDict):
    """What audit found of one check or criterion."""

    label: AuditLabel
    baseline: TallyJson
    candidate: TallyJson
    discrimination: float | None  # None: a condition without trials
    flip_rate: float | None  # None: no condition with two trials


class AuditItemJson(AuditItemName, AuditFigures):
    """One check or criterion audited (audit.ItemAudit.json): its name, then its figures."""


class AuditCaseJson(TypedDict):
    case_id: str
    delta: float | None  # None: a condition has no check result for it
    no_lift: bool
    cost_usd: float | None  # None: no --responses


class AuditSignTest(SignTestJson):
    verdict: PairedVerdict


class AuditSuiteJson(TypedDict):
    checks: int
    deciding_checks: int
    cases: int
    deciding_cases: int
    paired: AnalysisJson | None  # None: no paired case
    effect: float
    resolves: bool | None
    cases_needed: int | None
    sign_test: AuditSignTest | None


class AuditJson(TypedDict):
    """`audit --json` (without --prompt-only's findings, which the command adds)."""

    flaky_above: float
    items: list[AuditItemJson]
    cases: list[AuditCaseJson]
    suite: AuditSuiteJson
    not_run: int
    not_run_reasons: list[str]
    quarantine: list[AuditItemJson]


class EchoJson(TypedDict):
    """A check `audit --prompt-only` found passing with no real answer (echoes.Echo.json): what
    the command adds to audit's JSON as `prompt_only`."""

    case_id: str
    criterion: str
    check: str
    on_prompt: bool  # passed with the case's own prompt as the answer
    on_empty: bool  # passed with an empty answer
