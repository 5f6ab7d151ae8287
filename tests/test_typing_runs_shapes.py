"""The shapes typed in runs/ for issue 36 item 4 against what their writers write: audit's JSON and
its quarantine list (summaries.Audit*, rows.QuarantineRow), and the score rows a report counts.

Every row must hold its shape's required keys and no undeclared one, and over the rows every
declared key must be seen (test_row_types.shaped and declared: the rule the other shapes keep).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from adhd_evals.runs import rows, summaries
from adhd_evals.runs.deciding import audit
from adhd_evals.runs.deciding.audit import Echo, Outcome
from adhd_evals.runs.deciding.swap import per_criterion
from adhd_evals.runs.reporting.view import trial_spread
from adhd_evals.runs.types import OutcomeKind
from test_row_types import declared, shaped

Plan = tuple[OutcomeKind, str, str, str, dict[str, list[str]]]  # kind, case, criterion, check, statuses


def _outcomes() -> list[Outcome]:
    """Case a: check f1 passes trial 1 and fails trial 2 in both conditions; criterion "k." passes
    both baseline trials and the candidate's first only. Case b: check f2 passes every trial."""
    plan: list[Plan] = [
        ("check", "a", "c1.", "f1", {"baseline": ["pass", "fail"], "candidate": ["pass", "fail"]}),
        ("criterion", "a", "k.", "", {"baseline": ["pass", "pass"], "candidate": ["pass", "fail"]}),
        ("check", "b", "c2.", "f2", {"baseline": ["pass", "pass"], "candidate": ["pass", "pass"]}),
    ]
    return [
        Outcome(kind, case, criterion, check, condition, trial, status)
        for kind, case, criterion, check, by in plan
        for condition, statuses in by.items()
        for trial, status in enumerate(statuses, start=1)
    ]


def _every_key(found: Sequence[Mapping[str, object]], shape: type) -> None:
    """The rows have the shape, and every key it declares is written by one of them."""
    required, optional = declared(shape)
    assert shaped(found, shape) == required | optional, shape.__name__


def test_audit_json_is_written_in_its_shapes() -> None:
    """Every section of `audit --json` holds the keys its TypedDict declares, and only those; the
    criterion's item has no `check` (the checks' items have). Figures by the rules: two cases,
    each with a Δ of 0 (a: 1/2 passes in both conditions; b: 2/2 in both), so the sign test
    counts 0 up and 0 down: p = min(1, 2 · 1/2^0) = 1, inconclusive."""
    shown = audit.as_json(audit.audit(_outcomes()))
    _every_key([shown], summaries.AuditJson)
    _every_key(shown["items"], summaries.AuditItemJson)
    assert [("check" in item) for item in shown["items"]] == [True, True, False]
    _every_key(
        [t for item in shown["items"] for t in (item["baseline"], item["candidate"])], summaries.TallyJson
    )
    _every_key(shown["cases"], summaries.AuditCaseJson)
    _every_key([shown["suite"]], summaries.AuditSuiteJson)
    sign = shown["suite"]["sign_test"]
    assert sign == {"n_plus": 0, "n_minus": 0, "p": 1.0, "verdict": "inconclusive"}
    _every_key([sign], summaries.AuditSignTest)


def test_the_quarantine_list_is_written_in_the_readers_shape_and_key_order() -> None:
    """Flip rate, k passes of n trials making k·(n−k) disagreeing pairs of n(n−1)/2: f1 has 1 of 1
    pair disagreeing in each condition, 2/2 = 1.0; criterion k. none of 1 with the baseline and
    1 of 1 with the candidate, 1/2 = 0.5; both above 0.2: flaky. f2 passes every trial:
    saturated, not listed. Items sort by (kind, case, criterion, check): the check first."""
    listed = audit.quarantine_rows(audit.audit(_outcomes()))
    assert listed == [
        {
            "kind": "check",
            "case_id": "a",
            "criterion": "c1.",
            "check": "f1",
            "label": "flaky",
            "flip_rate": 1.0,
            "flaky_above": 0.2,
        },
        {
            "kind": "criterion",
            "case_id": "a",
            "criterion": "k.",
            "label": "flaky",
            "flip_rate": 0.5,
            "flaky_above": 0.2,
        },
    ]
    assert [list(row) for row in listed] == [
        ["kind", "case_id", "criterion", "check", "label", "flip_rate", "flaky_above"],
        ["kind", "case_id", "criterion", "label", "flip_rate", "flaky_above"],
    ]
    _every_key(listed, rows.QuarantineRow)


def test_a_report_counts_the_labelled_rows_that_are_not_void() -> None:
    """Baseline correctness 4 in trial 1 and 2 in trial 2 count: trial means 4 and 2, overall
    (4 + 2) / 2 = 3. A void row (1) and a row without a case id (5) count for nothing; counted,
    they would move the mean to 7/3 or 11/3."""
    scores: list[Mapping[str, object]] = [
        {"case_id": "a", "trial": 1, "condition": "baseline", "correctness": 4},
        {"case_id": "a", "trial": 2, "condition": "baseline", "correctness": 2},
        {"case_id": "a", "trial": 3, "condition": "baseline", "correctness": 1, "void": "no answer"},
        {"trial": 1, "condition": "baseline", "correctness": 5},
    ]
    assert trial_spread(scores) == {("baseline", "correctness"): (3.0, 2.0, 4.0)}


def test_criteria_that_are_not_a_list_hold_no_verdict_to_compare() -> None:
    """agree --judges compares the verdicts both judges gave on one row's criteria; a row whose
    `criteria` is missing, or text or a number rather than a list, gave none: no pair is counted. The one
    row whose criteria both judges listed as verdicts counts its one criterion: 1 pair, 1 agreeing."""
    row = {"case_id": "c", "trial": 1, "condition": "baseline"}
    listed = {**row, "criteria": [{"criterion": "x", "verdict": "pass"}]}
    assert per_criterion([row], [listed]) == []
    assert per_criterion([listed], [row]) == []
    assert per_criterion([{**row, "criteria": "x"}], [listed]) == []
    assert per_criterion([listed], [{**row, "criteria": 5}]) == []  # a number: it raised TypeError before
    assert per_criterion([listed], [listed]) == [{"criterion": "x", "pairs": 1, "agree": 1, "rate": 1.0}]


def test_an_echo_is_written_with_its_fields_in_their_order() -> None:
    """`audit --json`'s prompt_only items: the Echo's fields, named and ordered as the tuple's."""
    shown = Echo("a", "Says hi.", "says_hi", True, False).json()
    assert list(shown.items()) == [
        ("case_id", "a"),
        ("criterion", "Says hi."),
        ("check", "says_hi"),
        ("on_prompt", True),
        ("on_empty", False),
    ]
    assert list(shown) == list(Echo._fields)
    _every_key([shown], summaries.EchoJson)
