"""The shapes of the row files runs write and read, each defined here once, beside the check
that a row read from a file has it: responses, a blind sheet and its key, scores, check results,
criterion verdicts, and `score`'s summary.

Every row is checked before it is used, so a bad file is named row by row
(never a KeyError or a comparison of a list with a number halfway through).

One home, this module, rather than a shape beside each writer: a shape is written by one
command and read by several (`run` writes responses that check, blind, report and merge read),
and a reader must not import its writer (`judge` and `run` are heavy, and score's summary is
read by decision and report, which score itself imports). The keys are exactly the ones the
writers write today; `tests/test_row_types.py` loads the golden rows of `fixtures/` and the
rows each writer writes through every reader and compares their keys with these.

A key is required when the reader's check guarantees it (a file a person made may carry only
those: `score --checks` counts a result by its condition and status alone); the other keys the
writers write are `NotRequired`, typed as the writers write them. Code that relies on one of
those on a row read from a file still checks it where it reads it, as it always has.
"""

# No `from __future__ import annotations`: a TypedDict's string annotations are each compiled
# into a ForwardRef (about 30 us a field, 3 ms over these shapes on every runs command's start-up,
# docs/startup.md), so the fields' types are evaluated as each class is made; the few names only
# type checkers import (score's summary shapes) stay quoted.
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, TypeGuard, TypeVar, cast

from ..catalog import read_object_rows
from ..errors import InputInvalid
from ..jsonl import escape_surrogates
from ..schema import Condition as Condition  # defined once, in the core
from ..text import plural
from .rubric import METRICS

# the words the rows use have their own home (types.py); their names stay importable from here,
# where every reader has always found them
from .types import GATES as GATES
from .types import STATUSES as STATUSES
from .types import VERDICTS as VERDICTS
from .types import AuditItemName as AuditItemName
from .types import AuditLabel as AuditLabel
from .types import CheckStatus as CheckStatus
from .types import ControlsSummary as ControlsSummary
from .types import Decider as Decider
from .types import GateName as GateName
from .types import Guarded as Guarded
from .types import PairedVerdict as PairedVerdict
from .types import Quantity as Quantity
from .types import ReferenceVerdict as ReferenceVerdict
from .types import Undecided as Undecided
from .types import Verdict as Verdict
from .types import VerdictStatus as VerdictStatus

if TYPE_CHECKING:
    # score's summary has its own home (summaries.py), imported where it is built, never on a
    # reader's path (its TypedDicts take about 3 ms to build): type checkers find its names here too
    from .summaries import AnalysisJson as AnalysisJson
    from .summaries import CaseDelta as CaseDelta
    from .summaries import CheckRate as CheckRate
    from .summaries import CheckSummary as CheckSummary
    from .summaries import ConditionMeans as ConditionMeans
    from .summaries import Decision as Decision
    from .summaries import McNemarTest as McNemarTest
    from .summaries import Method as Method
    from .summaries import PairedSection as PairedSection
    from .summaries import QuarantineJson as QuarantineJson
    from .summaries import RateJson as RateJson
    from .summaries import Regression as Regression
    from .summaries import ReleaseGate as ReleaseGate
    from .summaries import ScoreSummary as ScoreSummary
    from .summaries import SignTestJson as SignTestJson
    from .summaries import VoidRow as VoidRow

if sys.version_info >= (3, 11):
    from typing import NotRequired
else:  # Python 3.10: typing_extensions' (a dependency there: pyproject.toml), read by the TypedDicts
    from typing_extensions import NotRequired

# ---- what the row validators check -------------------------------------------------------

RESPONSE_FIELDS = {"case_id": str, "trial": int, "condition": str, "runner": str, "response": str}
NOT_RUN_FIELDS = {"case_id": str, "trial": int, "condition": str, "runner": str, "not_run": str}
KEY_FIELDS = {"case_id": str, "trial": int, "label": str, "condition": str}
LABELLED_FIELDS = {"case_id": str, "trial": int, "condition": str}
# what the gate counts (check --output writes more)
RESULT_FIELDS: dict[str, type] = {"condition": str, "status": str}


def field_problems(row: Mapping[str, object], fields: dict[str, type]) -> list[str]:
    """What is wrong with `row` against `fields` (name -> str or int; bools are not ints)."""
    problems = []
    for name, kind in fields.items():
        value = row.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            word = "an integer" if kind is int else "a string"
            problems.append(f"{name} must be {word}" + ("" if name in row else " (missing)"))
    trial = row.get("trial")
    if "trial" in fields and isinstance(trial, int) and not isinstance(trial, bool) and trial < 1:
        problems.append("trial must be 1 or more")
    return problems


def response_problems(row: Mapping[str, object]) -> list[str]:
    return field_problems(row, RESPONSE_FIELDS)


def key_problems(row: Mapping[str, object]) -> list[str]:
    return field_problems(row, KEY_FIELDS)


def result_problems(row: Mapping[str, object]) -> list[str]:
    """A check result the gate can count: a condition, and a status check can write."""
    problems = field_problems(row, RESULT_FIELDS)
    status = row.get("status")
    if isinstance(status, str) and status not in STATUSES:
        problems.append(f"status must be one of {', '.join(STATUSES)}, not {status!r}")
    return problems


# ---- the rows ----------------------------------------------------------------------------


class ToolCall(TypedDict):
    """One tool call, as the CLI reported it."""

    name: str
    input: Any  # the call's JSON input as the CLI gave it: any JSON value
    status: NotRequired[str]  # "ok" or "error", when the CLI reports how the call ended


class Trace(TypedDict):
    """A response row's `trace`: what the model did (traces.py reads it from the CLI's events)."""

    tool_calls: list[ToolCall]
    files_created: list[str]


class ResponseRow(TypedDict):
    """One model answer: `run` writes it (`cached` on a cache hit); check, blind and report read it."""

    case_id: str
    trial: int
    condition: str  # a run's Condition; the readers take any text (a file a person made)
    runner: str
    response: str
    usage: NotRequired[object]  # as the CLI gave it: any JSON value
    cost_usd: NotRequired[float | None]  # None: the CLI did not say
    elapsed_s: NotRequired[float]
    cached: NotRequired[bool]  # true on a cache hit: paid for by an earlier run
    trace: NotRequired[Trace]  # tool calls and files created, when the runner records them


class NotRunRow(TypedDict):
    """A (case, trial) a curtailed run did not run (`run --stop-when-decided`): no response, and
    why; every reader of responses skips it (read_responses), and counts it where it reports."""

    case_id: str
    trial: int
    condition: str
    runner: str
    not_run: str


class KeyRow(TypedDict):
    """Which label stands for which condition: `blind` writes it, score and verdicts read it."""

    case_id: str
    trial: int
    label: str
    condition: str


class ResultRow(TypedDict):
    """One check's outcome on one response: `check --output` writes every key (`error` when
    the check raised); score's gate needs only the condition and the status."""

    case_id: NotRequired[str]
    trial: NotRequired[int]
    condition: str
    runner: NotRequired[str]
    criterion: NotRequired[str]
    check: NotRequired[str]  # the check function's name
    status: CheckStatus
    error: NotRequired[str]


class CriterionVerdict(TypedDict):
    """A criterion judged: a person's label, or a judge's verdict with its quote."""

    criterion: str
    verdict: Verdict
    evidence: NotRequired[str]  # the judge's quote from the response


class JudgeFingerprint(TypedDict):
    """What makes a judge this judge (`judge` writes it into every row it judges)."""

    runner: str
    command: list[str]
    model: str | None
    template: str


class SampleDigest(TypedDict):
    """The labelled sample a certificate rests on."""

    sha256: str  # of the person's labels, not of the file's bytes
    rows: int
    criterion_labels: int


class Certificate(TypedDict):
    """A judge's certificate: `agree --certify` writes it, score and verdicts read it (which
    check its kind, fingerprint, bar and counts: the rest is as agree wrote it)."""

    certificate: str  # agree.CERTIFICATE
    version: NotRequired[int]
    fingerprint: JudgeFingerprint
    min_lower: float
    figures: dict[str, dict[str, "RateJson"]]  # criteria | blocker -> tpr | tnr
    sample: SampleDigest  # required since issue 31: a certificate names what it was measured on
    void: NotRequired[int]  # labelled rows the judge left void
    controls: ControlsSummary  # how the judge did on its controls (controls.controls_summary)
    date: NotRequired[str]


class _SheetExtras(TypedDict):
    """What a sheet row may carry besides its identity and its scores."""

    prompt: NotRequired[str]  # when blind had the catalog
    criteria: NotRequired[list[str | CriterionVerdict]]  # the case's, as text; once judged, verdicts
    response: NotRequired[str]  # a Markdown sheet read back carries none
    judge: NotRequired[JudgeFingerprint]  # a judged row's
    runner: NotRequired[str]  # a judged row's: the judge's runner
    cost_usd: NotRequired[float | None]  # a judged row's


class SheetRow(_SheetExtras):
    """A judging sheet's row: `blind` writes it unscored (its condition a label), a person or
    `judge` fills it; agree, verdicts and score read it back (JSONL, or Markdown filled in)."""

    case_id: str
    trial: int
    condition: str  # the label (A, B, ...), until unblinded
    correctness: NotRequired[int | None]  # None: not scored yet
    autonomy: NotRequired[int | None]
    actionability: NotRequired[int | None]
    safety: NotRequired[int | None]
    concision: NotRequired[int | None]
    blocker: NotRequired[bool | None]
    notes: NotRequired[str]
    void: NotRequired[str]  # why the judge could not judge the row
    label: NotRequired[str]  # a row verdicts unblinded through the key: the label it had
    control: NotRequired[str]  # a control row's kind (judge --controls): never scored as a case


def judge_filled(rows: Sequence[Mapping[str, object]]) -> bool:
    """Rows a judge filled (its fingerprint) or that hold its controls: the ones that must be
    admitted (judging/admission.py) before they count; a person's rows need no admission."""
    return any("judge" in r or "control" in r for r in rows)


class ScoreRow(_SheetExtras):
    """A scored row as `score` counts it, its condition known (mapped back through the key)."""

    case_id: str
    trial: int
    condition: Condition
    correctness: float  # 1 to 5 (a person may write 4.5)
    autonomy: float
    actionability: float
    safety: float
    concision: float
    blocker: bool
    notes: str


class Others(TypedDict):
    """What the sources that did not decide a criterion said."""

    person: NotRequired[Verdict]
    judge: NotRequired[Verdict]


class VerdictRow(TypedDict):
    """One criterion of one (case, trial, condition), decided or not: `verdicts` writes it,
    `score --criteria` reads it."""

    case_id: str
    trial: int
    condition: str
    criterion: str
    status: VerdictStatus
    decided_by: Decider
    check: NotRequired[str]  # decided by (or errored in) these checks
    error: NotRequired[str]
    reason: NotRequired[str]  # why nobody decided it
    verdict: NotRequired[Verdict]  # the judge's, decided or shown
    evidence: NotRequired[str | None]  # the judge's quote
    leaky_judge: NotRequired[str]  # a judge that passed a control, allowed with --allow-leaky-judge
    judge: NotRequired[JudgeFingerprint | None]  # the judge's fingerprint (None: its row had none)
    others: NotRequired[Others]


class QuarantineRow(AuditItemName):
    """A flaky check or criterion: `audit --quarantine-out` writes every key, `score --quarantine`
    reads the check rows back by their case, criterion and check."""

    label: NotRequired[AuditLabel]  # "flaky", as audit writes them
    flip_rate: NotRequired[float]
    flaky_above: NotRequired[float]  # the audit's --flaky-above


def unscored(row: SheetRow) -> SheetRow:
    """`row` with every score still to give, as `blind` writes a sheet (the metrics in
    rubric's order, then the blocker and the notes)."""
    for metric in METRICS:
        row[metric] = None
    row["blocker"], row["notes"] = None, ""
    return row


# ---- reading rows as their shapes --------------------------------------------------------


def is_response(row: Mapping[str, object]) -> TypeGuard[ResponseRow]:
    return not response_problems(row)


def is_not_run(row: Mapping[str, object]) -> TypeGuard[NotRunRow]:
    """A row `run --stop-when-decided` wrote for a call it did not start: why, and no response."""
    return (
        "response" not in row
        and isinstance(row.get("not_run"), str)
        and not field_problems(row, NOT_RUN_FIELDS)
    )


def _response_or_not_run(row: Mapping[str, object]) -> TypeGuard[ResponseRow | NotRunRow]:
    return is_response(row) or is_not_run(row)


def is_key(row: Mapping[str, object]) -> TypeGuard[KeyRow]:
    return not key_problems(row)


def is_result(row: Mapping[str, object]) -> TypeGuard[ResultRow]:
    return not result_problems(row)


def is_labelled(row: Mapping[str, object]) -> TypeGuard[SheetRow]:
    """A sheet row's identity (case, trial, label); the rest as its writers wrote it."""
    return not field_problems(row, LABELLED_FIELDS)


Row = TypeVar("Row")


def read_shaped(
    path: Path,
    shaped: Callable[[Mapping[str, object]], TypeGuard[Row]],
    problems: Callable[[Mapping[str, object]], list[str]],
    *,
    what: str,
) -> list[Row]:
    """Every row of `path` as its shape: `shaped` says whether a row has it and `problems` what
    is wrong when not; any problem refuses the file, every bad row named by line."""
    rows: list[Row] = []

    def check(row: dict[str, object]) -> list[str]:
        response = row.get("response")
        if type(response) is str:  # a lone surrogate no UTF-8 can carry: escaped as
            row["response"] = escape_surrogates(response)[0]  # run stores one (\\udXXX)
        if shaped(row):  # a good row is checked once
            rows.append(row)
            return []
        return problems(row)

    read_object_rows(path, check, what=what)
    return rows


def checked_rows(
    found: Sequence[Mapping[str, object]], shaped: Callable[[Mapping[str, object]], TypeGuard[Row]]
) -> list[Row]:
    """Rows held in memory (a library caller's, a test's) as their shape; refused, naming each row
    by its place, when one has not got it."""
    rows = [row for row in found if shaped(row)]
    if len(rows) != len(found):
        bad = [str(index) for index, row in enumerate(found, start=1) if not shaped(row)]
        raise InputInvalid([f"rows {', '.join(bad)} have not the shape {shaped.__name__} checks"])
    return rows


def read_responses(path: Path, not_run: list[NotRunRow] | None = None) -> list[ResponseRow]:
    """Response rows as the runner writes them; every bad row is named by line. A row a curtailed
    run recorded as not run carries no response: it is skipped (and put in `not_run`, if given)."""
    rows = read_shaped(path, _response_or_not_run, response_problems, what="responses file")
    found: list[ResponseRow] = []
    for row in rows:
        if is_response(row):
            found.append(row)
        elif not_run is not None and is_not_run(row):
            not_run.append(row)
    return found


def not_run_note(count: int, left: str) -> str:
    """What a reader of responses says of the rows a curtailed run did not run (it skips them)."""
    return f"{plural(count, 'response row')} recorded as not run (run --stop-when-decided): {left}."


def read_key(path: Path) -> list[KeyRow]:
    """The key `blind` wrote; every bad row named by line (its label-sample row is skipped)."""
    return read_key_and_sample(path)[0]


class LabelSample(TypedDict):
    """The random sample of cases `blind --label-sample` drew for a person to label, as its key
    records it in one row `{"label_sample": {...}}`, so any reader can draw it again."""

    seed: int
    method: str
    case_ids: list[str]


def is_label_sample(row: Mapping[str, object]) -> bool:
    return set(row) == {"label_sample"}


def label_sample_problems(found: object) -> list[str]:
    if not isinstance(found, dict):
        return ["label_sample must be an object"]
    seed, ids = found.get("seed"), found.get("case_ids")
    problems = []
    if not isinstance(seed, int) or isinstance(seed, bool):
        problems.append("label_sample.seed must be an integer")
    if not isinstance(found.get("method"), str):
        problems.append("label_sample.method must be a string")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        problems.append("label_sample.case_ids must be a list of strings")
    return problems


def read_key_and_sample(path: Path) -> tuple[list[KeyRow], LabelSample | None]:
    """The key's rows and the label sample it records (None: the key records none)."""

    def problems(row: Mapping[str, object]) -> list[str]:
        if is_label_sample(row):
            return label_sample_problems(row["label_sample"])
        return key_problems(row)

    rows = read_object_rows(path, problems, what="key file")
    # the file was refused unless every label_sample passed label_sample_problems
    samples = [cast("LabelSample", row["label_sample"]) for row in rows if is_label_sample(row)]
    if len(samples) > 1:
        raise InputInvalid([f"{path}: {len(samples)} label_sample rows; a key records one sample"])
    keyed = [row for row in rows if is_key(row)]
    return keyed, (samples[0] if samples else None)


def read_results(path: Path) -> list[ResultRow]:
    """`check --output` rows; every row the gate could not count is named by line."""
    return read_shaped(path, is_result, result_problems, what="check results file")
