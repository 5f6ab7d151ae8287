"""The words runs/ writes and reads, each a Literal defined here once: a check's status, a
criterion's verdict and who decided it, the gates and their verdicts, why a call was ended, a
runner's response format. The row shapes (rows.py) and score's summary (summaries.py) are built
on them; the tuples beside them are the same words for a reader's check or a CLI's choices.

Below the shapes so both can import it: rows.py re-exports these names, as it always held them.
Two shapes live here too: the name audit gives a check or criterion, which audit's findings
(summaries.py) and the quarantine rows read back from a file (rows.py) share; and how a judge did
on its controls, which its certificate (rows.py) keeps: there its fields are evaluated as the
certificate's shape is made, where a name from summaries.py was compiled into a ForwardRef on
every judge's, verdicts' and report's start-up (about 1.3 ms, a process's first compile).
"""

# No `from __future__ import annotations`: the shapes' fields are evaluated as it is made, not
# compiled one by one into ForwardRefs on every runs command's start-up (see rows.py)
import sys
from typing import Literal, TypedDict, get_args

from .rubric import Metric

if sys.version_info >= (3, 11):
    from typing import NotRequired
else:  # Python 3.10: typing_extensions' (a dependency there: pyproject.toml), read by AuditItemName
    from typing_extensions import NotRequired

CheckStatus = Literal["pass", "fail", "unwritten", "error", "orphan"]  # what `check` writes
STATUSES: tuple[CheckStatus, ...] = get_args(CheckStatus)
Verdict = Literal["pass", "fail"]  # a criterion verdict, a person's or a judge's
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
Undecided = Literal["unwritten", "error", "void", "uncertified"]  # why a criterion stays undecided
VerdictStatus = Literal[Verdict, Undecided]
Decider = Literal["check", "person", "judge", "nobody"]  # who decided a criterion
GateName = Literal["reference", "paired"]  # score --gate
GATES: tuple[GateName, ...] = get_args(GateName)
PairedVerdict = Literal["better", "worse", "inconclusive"]  # --gate paired's decision
ReferenceVerdict = Literal["passed", "failed", "incomparable"]  # the reference rules', as decision says it
Guarded = Literal["correctness", "safety"]  # the metrics a regression is named on
Quantity = Literal[Metric, "weighted_score"]  # what the paired analysis compares
OutcomeKind = Literal["check", "criterion"]  # what audit measures: a check's results, a criterion's verdicts
# audit's label of a check or criterion (audit.label says when each holds)
AuditLabel = Literal["unpaired", "saturated", "floor", "flaky", "discriminating", "baseline-only", "flat"]

Ended = Literal["", "timeout", "stop", "output", "unsent"]  # why a call was ended ("": it was not)
ResponseFormat = Literal["text", "claude-json", "codex-jsonl", "claude-stream-json", "trace-jsonl"]
RESPONSE_FORMATS: tuple[ResponseFormat, ...] = get_args(ResponseFormat)  # a runner's response_format


class AuditItemName(TypedDict):
    """A check or criterion audit names (audit.ItemAudit.name), in its outputs and its quarantine list."""

    kind: OutcomeKind
    case_id: str
    criterion: str
    check: NotRequired[str]  # a check's function name (a criterion has none)


class Leak(TypedDict):
    """A control the judge passed."""

    case_id: str
    trial: int
    control: str


class ControlsSummary(TypedDict):
    """How a judge did on its controls (judging/controls.py controls_summary): a judge's record
    and its certificate keep it."""

    rows: int
    void: int
    passed: int
    leak_rate: float
    kinds: dict[str, int]  # kind -> control rows of it
    leaks: list[Leak]
