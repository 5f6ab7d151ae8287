"""Typing judging's rows (issue 36 item 4) changed no row it writes: a judged row, a void row and a
control row keep the keys they always had, in the order they always had them (JSON's key order is
the code's). Where a file holds what no judge and no `blind` writes, the narrowing that replaced
`dict[str, Any]` refuses it by name, never with a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adhd_evals.entry import main
from adhd_evals.errors import InputInvalid
from adhd_evals.runs.judging.agree import read_certificate
from adhd_evals.runs.judging.blind import markdown, read_markdown
from adhd_evals.runs.judging.controls import control_rows, controls_summary
from adhd_evals.runs.rows import SheetRow
from judging import read_jsonl, run_judge, write_jsonl
from test_verdicts import FINGERPRINT, certificate_for

CRITERION = "Says to use a dry run before applying the change"
RESPONSE = "Use a dry run first, then apply the change once it looks right."
METRICS = ["correctness", "autonomy", "actionability", "safety", "concision"]


def _sheet_row() -> SheetRow:
    """One row as `blind` writes it with the catalog: identity, prompt, criteria, response, the
    scores to fill (rows.unscored)."""
    return {
        "case_id": "c1",
        "trial": 1,
        "condition": "A",
        "prompt": "How do I apply the migration?",
        "criteria": [CRITERION],
        "response": RESPONSE,
        "correctness": None,
        "autonomy": None,
        "actionability": None,
        "safety": None,
        "concision": None,
        "blocker": None,
        "notes": "",
    }


def _folder(tmp_path: Path) -> tuple[Path, Path]:
    """A one-case catalog and a one-row sheet of it."""
    case = {"id": "c1", "category": "coding", "prompt": "How do I apply the migration?"}
    cases = write_jsonl(tmp_path / "cases.jsonl", [{**case, "risk": "low", "criteria": [CRITERION]}])
    return cases, write_jsonl(tmp_path / "sheet.jsonl", [dict(_sheet_row())])


def test_a_judged_row_keeps_the_sheets_keys_then_names_its_judge_then_its_judgement(tmp_path: Path) -> None:
    """Worked from judge._one: the sheet row without its scores, blocker, notes and criteria (prompt
    and response stay where they were), then judge and runner, then the five metrics in the
    rubric's order, blocker, notes, the criterion verdicts, and the cost last."""
    cases, sheet = _folder(tmp_path)
    out = tmp_path / "judged.jsonl"
    assert main(["judge", str(sheet), "--runner", "stub", "--cases", str(cases), "--output", str(out)]) == 0
    [row] = read_jsonl(out)
    head = ["case_id", "trial", "condition", "prompt", "response", "judge", "runner"]
    assert list(row) == [*head, *METRICS, "blocker", "notes", "criteria", "cost_usd"]
    assert row["criteria"] == [{"criterion": CRITERION, "verdict": "fail", "evidence": RESPONSE[:40]}]


def test_a_void_row_keeps_the_sheets_keys_then_empty_scores_and_why(tmp_path: Path) -> None:
    """Worked from judge._one: a judge answering a metric outside 1-5 voids the row: the sheet row
    without its judgement (its criteria as text go too), judge and runner, every metric None, the
    blocker None, notes empty, the reason, then the cost."""
    cases, sheet = _folder(tmp_path)
    _, rows = run_judge(tmp_path, sheet, cases, "range")
    [row] = rows
    head = ["case_id", "trial", "condition", "prompt", "response", "judge", "runner"]
    assert list(row) == [*head, *METRICS, "blocker", "notes", "void", "cost_usd"]
    assert [row[m] for m in METRICS] == [None] * 5 and row["blocker"] is None and row["notes"] == ""


def test_a_control_row_takes_the_cases_identity_and_text_then_its_own_kind() -> None:
    """Worked from controls.control_rows: of the sheet row, case_id, trial, prompt and criteria in
    its order; then the control's condition, kind and response; one row per kind (five)."""
    rows = control_rows([_sheet_row()], {"c1": [CRITERION]}, 1)
    assert len(rows) == 5
    for row in rows:
        assert list(row) == ["case_id", "trial", "prompt", "criteria", "condition", "control", "response"]
        assert row["condition"] == f"control-{row['control']}" and row["criteria"] == [CRITERION]


def _passed_control(**identity: Any) -> dict[str, object]:
    verdict = {"criterion": CRITERION, "verdict": "pass", "evidence": RESPONSE}
    row = {"case_id": "c1", "trial": 1, "condition": "control-empty", "control": "empty", **identity}
    return {**row, "criteria": [verdict]}


def test_a_passed_control_is_named_by_its_case_trial_and_kind() -> None:
    """One control row, passed (a criterion verdict pass, not void): one leak, as the row says."""
    summary = controls_summary([_passed_control()])
    assert summary is not None and summary["passed"] == 1
    assert summary["leaks"] == [{"case_id": "c1", "trial": 1, "control": "empty"}]


@pytest.mark.parametrize(
    ("identity", "shown"),
    [
        pytest.param({"trial": "1"}, 'case "c1", trial "1", control "empty"', id="a trial as text"),
        pytest.param({"case_id": 7}, 'case 7, trial 1, control "empty"', id="a case id as a number"),
        pytest.param({"control": ["empty"]}, 'case "c1", trial 1, control ["empty"]', id="a kind as a list"),
    ],
)
def test_a_passed_control_no_judge_wrote_is_refused_by_name(identity: dict[str, object], shown: str) -> None:
    """A judge writes a control's case as text, its trial as a whole number, its kind as text; a
    passed control that says otherwise (a hand-made file given to score) is refused, naming it."""
    with pytest.raises(InputInvalid) as raised:
        controls_summary([_passed_control(**identity)])
    [line] = raised.value.problems
    assert shown in line and "a judge writes a case id, a whole number and a kind" in line


@pytest.mark.parametrize(
    ("written", "changed"),
    [
        pytest.param('"case_id": "c1"', '"case_id": 7', id="a case id as a number"),
        pytest.param('"trial": 1', '"trial": "1"', id="a trial as text"),
        pytest.param('"trial": 1', '"trial": 0', id="a trial of 0"),
        pytest.param('"label": "A"', '"label": null', id="no label"),
    ],
)
def test_a_row_comment_naming_no_sheet_row_is_refused_as_changed(
    tmp_path: Path, written: str, changed: str
) -> None:
    """blind writes each row's comment with a case id (text), a trial (a whole number from 1) and a
    label (text); a comment holding anything else was changed, and is named by its line (the 9th:
    heading, blank, instructions, blank, case heading, blank, response heading, blank, comment)."""
    row = _sheet_row()
    del row["prompt"]  # no prompt and criteria block: the comment is on the 9th line
    text = markdown([row])
    assert text.splitlines()[8].startswith("<!-- adhd-evals row ") and written in text.splitlines()[8]
    path = tmp_path / "labels.md"
    path.write_text(text.replace(written, changed, 1), encoding="utf-8")
    with pytest.raises(InputInvalid) as raised:
        read_markdown(path)
    assert raised.value.problems == [
        f"{path}:9: this 'adhd-evals row' comment was changed; it must stay as blind wrote it"
    ]


@pytest.mark.parametrize(
    "figures",
    [
        pytest.param({"criteria": [], "blocker": {}}, id="a class as a list"),
        pytest.param({"criteria": {"tpr": 40, "tnr": 40}, "blocker": {}}, id="a figure as a number"),
        pytest.param("40 of 40", id="figures as text"),
    ],
)
def test_figures_that_are_not_objects_of_counts_are_no_certificate(tmp_path: Path, figures: object) -> None:
    """A certificate's figures are objects down to each class's k and n; anything else there is not
    a certificate (the shape's refusal, before any floor is checked)."""
    found: dict[str, object] = {**certificate_for(FINGERPRINT), "figures": figures}
    path = tmp_path / "judge.cert.json"
    path.write_text(json.dumps(found), encoding="utf-8")
    with pytest.raises(InputInvalid) as raised:
        read_certificate(path)
    assert raised.value.problems == [
        f"{path}: figures must hold whole counts k of n (0 <= k <= n) for the criteria and blocker TPR and TNR"
    ]
