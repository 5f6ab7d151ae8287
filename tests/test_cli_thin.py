"""The CLI is thin: requests are built by keyword, the default budget has one home, and the
verdict's exit code is decided beside the other exit codes, not in a command."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes, schema
from adhd_evals.runs.deciding.scoring_request import ScoreRequest, exit_code, verdict_of
from adhd_evals.runs.judging.judge import JudgeRequest
from adhd_evals.runs.running.execute import RunRequest


@pytest.mark.parametrize("request_type", [RunRequest, JudgeRequest, ScoreRequest])
def test_requests_are_built_by_keyword_only(request_type: type[Any]) -> None:
    """Every field is keyword-only, so a call can no longer pass sixteen values by position
    (asked of the constructor's signature: a dataclass's and a plain class's alike)."""
    fields = list(inspect.signature(request_type).parameters.values())
    assert fields and all(field.kind is inspect.Parameter.KEYWORD_ONLY for field in fields)
    with pytest.raises(TypeError):
        request_type(Path("x"))


def test_run_and_judge_default_to_the_one_budget() -> None:
    """Both requests' default budget is schema.DEFAULT_BUDGET_USD (25, as the docs say)."""
    assert schema.DEFAULT_BUDGET_USD == 25.0
    for request_type in (RunRequest, JudgeRequest):
        budget = inspect.signature(request_type).parameters["budget_usd"]
        assert budget.default == schema.DEFAULT_BUDGET_USD


@pytest.mark.parametrize(
    ("verdict", "code"),
    [("better", exitcodes.OK), ("worse", exitcodes.GATE), ("inconclusive", exitcodes.INCONCLUSIVE)],
)
def test_the_paired_gates_verdicts_exit_codes(verdict: str, code: int) -> None:
    """--gate paired: better 0, worse 1, inconclusive 8 (docs/exit-codes.md)."""
    assert exitcodes.of_verdict("paired", verdict) == code


def test_a_paired_verdict_short_of_a_decision_is_inconclusive() -> None:
    """Any paired verdict that is neither better nor worse (incomparable) decides nothing: 8."""
    assert exitcodes.of_verdict("paired", "incomparable") == exitcodes.INCONCLUSIVE


@pytest.mark.parametrize(("verdict", "code"), [("passed", exitcodes.OK), ("failed", exitcodes.GATE)])
def test_the_reference_gates_verdicts_exit_codes(verdict: str, code: int) -> None:
    """The reference rules: passed 0, failed 1."""
    assert exitcodes.of_verdict("reference", verdict) == code


def _summary(passed: bool, decision: dict[str, Any] | None) -> Any:
    summary: dict[str, Any] = {"release_gate": {"passed": passed}}
    if decision is not None:
        summary["decision"] = decision
    return summary


@pytest.mark.parametrize(
    ("passed", "decision", "verdict", "code"),
    [
        # the reference decides by its rules even where the paired analysis would say otherwise
        (True, {"gate": "reference", "verdict": "passed"}, "passed", exitcodes.OK),
        (False, {"gate": "reference", "verdict": "failed"}, "failed", exitcodes.GATE),
        (False, None, "failed", exitcodes.GATE),
        # the paired gate decides by its own verdict, whatever the reference rules said
        (False, {"gate": "paired", "verdict": "better"}, "better", exitcodes.OK),
        (True, {"gate": "paired", "verdict": "worse"}, "worse", exitcodes.GATE),
        (True, {"gate": "paired", "verdict": "inconclusive"}, "inconclusive", exitcodes.INCONCLUSIVE),
    ],
)
def test_a_summarys_deciding_verdict_and_exit_code(
    passed: bool, decision: dict[str, Any] | None, verdict: str, code: int
) -> None:
    summary = _summary(passed, decision)
    assert verdict_of(summary) == verdict
    assert exit_code(summary) == code
