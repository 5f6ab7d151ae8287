"""Errors that stop pretending (issue 30, item 7): an all-void scores file, --weights that are not
finite numbers, and a Markdown label sheet that counts and hashes only the rows a person filled."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.judging import agree
from adhd_evals.runs.judging.blind import markdown, read_markdown
from adhd_evals.runs.rows import SheetRow

METRICS = ("correctness", "autonomy", "actionability", "safety", "concision")


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_an_all_void_scores_file_says_every_row_was_void_and_why(tmp_path: Path) -> None:
    """Four rows, all void (three for one reason, one for another): not 'Scores must include baseline
    and candidate conditions' but every row void, the reasons counted, commonest first."""
    rows = [
        {
            "case_id": f"c{i}",
            "trial": 1,
            "condition": c,
            "void": "timed out" if (i, c) == (0, "baseline") else "no verdict",
        }
        for i in range(2)
        for c in ("baseline", "candidate")
    ]
    code, _, err = _cli("score", str(_write(tmp_path / "s.jsonl", rows)))
    assert code == exitcodes.INPUT
    assert "every row is void (4 judged rows), so nothing can be scored: no verdict (3); timed out (1)" in err
    assert "must include baseline and candidate" not in err


def test_an_all_void_file_with_many_reasons_names_the_three_commonest(tmp_path: Path) -> None:
    """Five reasons, one row each after 'a' (2 rows): the three shown are a, then b and c (ties keep
    the order rows gave them), and 'and 2 other reasons'."""
    reasons = ["a", "a", "b", "c", "d", "e"]
    rows = [
        {"case_id": f"c{i}", "trial": 1, "condition": "baseline", "void": why}
        for i, why in enumerate(reasons)
    ]
    code, _, err = _cli("score", str(_write(tmp_path / "s.jsonl", rows)))
    assert code == exitcodes.INPUT and "a (2); b (1); c (1); and 2 other reasons" in err


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_weights_that_are_not_finite_are_a_usage_error(tmp_path: Path, value: str) -> None:
    """NaN passes 'not negative' and makes the sum NaN, which is never 'more than 1e-9 from 1': it
    used to reach the arithmetic and end in exit 70. Now exit 2, naming the rule."""
    row = {"case_id": "c", "trial": 1, "blocker": False, "notes": "", **dict.fromkeys(METRICS, 3)}
    rows = [{**row, "condition": "baseline"}, {**row, "condition": "candidate"}]
    weights = f"correctness={value},autonomy=0.25,actionability=0.2,safety=0.1,concision=0.1"
    code, _, err = _cli("score", str(_write(tmp_path / "s.jsonl", rows)), "--weights", weights)
    assert code == exitcodes.USAGE and "a finite, non-negative number" in err


def _sheet_rows() -> list[dict[str, Any]]:
    return [
        {"case_id": f"c{i}", "trial": 1, "condition": label, "criteria": ["Says hello"], "response": "Hello"}
        for i in range(2)
        for label in "AB"
    ]


def test_a_markdown_label_sheet_counts_and_hashes_only_the_filled_rows(tmp_path: Path) -> None:
    """Four rows on the sheet, the person fills two (c0's A and B: a verdict and a blocker each). Read
    back: two rows, not four; and agree's sample digest over them equals the one over the same two
    labels written as JSONL (the blank rows used to count, so 32 labelled rows certified as 64)."""
    text = markdown(_sheet_rows())  # type: ignore[arg-type]
    filled: list[str] = []
    count = 0
    for line in text.splitlines():
        if line == '| 1 | "Says hello" | |' and count < 2:
            line, count = '| 1 | "Says hello" | pass |', count + 1
        elif line == "- blocker: " and count <= 2 and filled.count("- blocker: no") < 2:
            line = "- blocker: no"
        filled.append(line)
    path = tmp_path / "labels.md"
    path.write_text("\n".join(filled), encoding="utf-8")
    rows = read_markdown(path)
    assert [(r["case_id"], r["condition"]) for r in rows] == [("c0", "A"), ("c0", "B")]
    judged: list[SheetRow] = [
        {
            "case_id": r["case_id"],
            "trial": 1,
            "condition": r["condition"],
            "criteria": [{"criterion": "Says hello", "verdict": "pass"}],
        }
        for r in _sheet_rows()
    ]
    as_jsonl: list[SheetRow] = [
        {"case_id": "c0", "trial": 1, "condition": c, "blocker": False, "notes": "",
         "criteria": [{"criterion": "Says hello", "verdict": "pass"}]}
        for c in "AB"
    ]  # fmt: skip
    from_markdown = agree.agreement(judged, rows)["sample"]
    assert from_markdown == agree.agreement(judged, as_jsonl)["sample"]
    assert from_markdown["rows"] == 2


def test_a_criterion_a_person_decided_leaves_no_unwritten_check_behind(tmp_path: Path) -> None:
    """Case c, one criterion X with an unwritten check in both conditions, decided by a person
    (pass in both): with --checks and --criteria the gate gives no 'unwritten' checks reason. A
    criterion nobody decided still does (the same files with the person's rows made unwritten)."""
    row = {"case_id": "c", "trial": 1, "blocker": False, "notes": "", **dict.fromkeys(METRICS, 3)}
    scores = _write(tmp_path / "s.jsonl", [{**row, "condition": c} for c in ("baseline", "candidate")])
    checks = _write(
        tmp_path / "checks.jsonl",
        [
            {
                "case_id": "c",
                "trial": 1,
                "condition": c,
                "criterion": "X",
                "check": "x",
                "status": "unwritten",
            }
            for c in ("baseline", "candidate")
        ],
    )
    decided = [
        {
            "case_id": "c",
            "trial": 1,
            "condition": c,
            "criterion": "X",
            "status": "pass",
            "decided_by": "person",
        }
        for c in ("baseline", "candidate")
    ]
    verdicts = _write(tmp_path / "v.jsonl", decided)
    argv = ["score", str(scores), "--checks", str(checks), "--criteria", str(verdicts), "--json"]
    _, out, _ = _cli(*argv)
    reasons = json.loads(out)["release_gate"]["reasons"]
    assert not any("unwritten" in r for r in reasons), reasons
    _write(tmp_path / "v.jsonl", [{**d, "status": "unwritten", "decided_by": "nobody"} for d in decided])
    _, out, _ = _cli(*argv)
    assert any(r.startswith("Checks: 2 unwritten") for r in json.loads(out)["release_gate"]["reasons"])
