"""The shapes judging builds and writes that no other stage reads as rows: a judge's answer as
read, its record beside its output, what the swap check saw change, agree's figures, and plugin
eval's results as score's rows and as score's section.

The rows every stage shares (a sheet row, a judged row, a certificate, a verdict row) are in
rows.py; these are judging's own, so they live beside it. Each key is written exactly as the
code that builds it writes it (the order of keys in JSON comes from the code, not from here).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TypedDict

from ..rows import CriterionVerdict, JudgeFingerprint, LabelSample, SampleDigest

if TYPE_CHECKING:
    from ..summaries import RateJson
    from ..types import ControlsSummary

if sys.version_info >= (3, 11):
    from typing import NotRequired
elif TYPE_CHECKING:  # Python 3.10: only the type checker reads it (annotations stay strings here)
    from typing_extensions import NotRequired


class JudgedFields(TypedDict):
    """What a judge's answer, read and checked (answers.verdict), adds to its row."""

    correctness: int  # each metric a whole number from 1 to 5
    autonomy: int
    actionability: int
    safety: int
    concision: int
    blocker: bool
    notes: str
    criteria: list[CriterionVerdict]  # one per criterion of the case, in its order, each with a quote


class JudgeRecord(TypedDict):
    """The record `judge` keeps beside its output (judge_record.claim, record_controls)."""

    judged: str  # judge_record.SIDECAR
    version: int
    fingerprint: JudgeFingerprint
    controls: NotRequired[ControlsSummary | None]  # None: no controls (or the judge is not done)


class LabelSampleRow(TypedDict):
    """The key's row that records the label sample `blind --label-sample` drew (rows.read_key_and_sample)."""

    label_sample: LabelSample


class SwapChange(TypedDict):
    """A criterion verdict that changed when the criteria were listed in reverse (judge --swap-check)."""

    case_id: str
    trial: int
    label: str
    criterion: str
    first: str | None  # what the judge said first (None: it gave no verdict for it then)
    reversed: str


class MetricAgreement(TypedDict):
    """How far judge and person agree on one metric."""

    exact: float  # the share of rows given the same rating
    mean_abs_diff: float
    kappa: float | None  # None: undefined (see agree.weighted_kappa)


class CriteriaAgreement(TypedDict):
    pairs: int  # criterion verdicts both gave
    agreement: float | None  # None: no pair


class Agreement(TypedDict):
    """What `agree` finds (agree.agreement): printed as JSON, and a certificate's figures and sample."""

    rows: int  # scored by both
    metrics: dict[str, MetricAgreement]  # metric -> its agreement (none when no row was scored by both)
    blocker_agreement: float | None
    criteria: CriteriaAgreement
    rates: dict[str, dict[str, RateJson]]  # criteria | blocker -> tpr | tnr
    labelled_rows: int
    void: int
    warnings: list[str]
    sample: SampleDigest


class PluginScoreRow(TypedDict):
    """One run of a plugin eval results file as a score row: its score on every metric, or void."""

    case_id: str
    trial: int
    condition: str  # candidate (the with arm) or baseline (the without arm)
    correctness: NotRequired[float]  # 1 + 4 * the run's score, on every metric
    autonomy: NotRequired[float]
    actionability: NotRequired[float]
    safety: NotRequired[float]
    concision: NotRequired[float]
    blocker: NotRequired[bool]
    notes: NotRequired[str]
    void: NotRequired[str]  # an errored or unpartnered run: why it leaves both arms


class PluginCase(TypedDict):
    """One case's plugin eval figures, recomputed (plugin_results.section)."""

    name: str
    score: float | None
    score_without: float | None
    delta: float | None
    unscored: list[str]
    runs: dict[str, int]  # arm -> runs
    errored: dict[str, int]  # arm -> errored runs


class PluginSection(TypedDict):
    """plugin eval's own figures as score reports them (plugin_results.section)."""

    file: str
    two_arms: bool
    partial: bool
    partial_reason: str | None
    errored_runs: dict[str, int]
    overallScore: float | None  # plugin eval's own names, as its file spells them
    meanDelta: float | None
    recorded: dict[str, object]  # the file's own overallScore and meanDelta, as it holds them
    disagreements: list[str]
    cases: list[PluginCase]
