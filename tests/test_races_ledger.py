"""The ledger beside a judged file when calls are made on a thread that writes no row.

A reservation's ticket is settled once its row is on disk (Budget.row_written), from the
thread that made the call. judge's swap check calls on the main thread after the workers are
done, and writes no row: its tickets were never settled, so a resumed run read them as calls
killed mid-flight and charged what each had *reserved*, not what it cost.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from adhd_evals.runs.calling.config import Runner
from adhd_evals.runs.calling.store import Ledger
from adhd_evals.runs.judging.judge import JudgeRequest, judge
from helpers import blind_folder
from judging import FAKE_JUDGE, write_jsonl

CASES = [
    {
        "id": "c1",
        "category": "c",
        "prompt": "Explain the bug in one line.",
        "risk": "low",
        "criteria": ["Is one line"],
    },
    {"id": "c2", "category": "c", "prompt": "Suggest a fix.", "risk": "low", "criteria": ["Gives a patch"]},
]


def _sheet(tmp_path: Path) -> tuple[Path, Path]:
    """Two cases, one trial, two conditions: a sheet of 4 rows."""
    rows = [
        {"case_id": case, "trial": 1, "condition": condition, "runner": "m", "response": text}
        for case in ("c1", "c2")
        for condition, text in (
            ("baseline", "The pointer is null in line 3."),
            ("candidate", "Check for null."),
        )
    ]
    cases = write_jsonl(tmp_path / "cases.jsonl", [dict(case) for case in CASES])
    write_jsonl(tmp_path / "responses.jsonl", rows)
    assert blind_folder(tmp_path, cases=cases) == 0
    return tmp_path / "sheet.jsonl", cases


def test_the_swap_checks_calls_are_counted_at_their_cost_when_the_judge_resumes(tmp_path: Path) -> None:
    """A judge costing $0.25 a call (fake_judge --mode costly, claude-json), --assume-call-usd
    0.5 so each call reserves max(dearest, 0.5) = $0.50; 4 rows judged ($1.00 on rows), then a
    swap check of 2 rows ($0.50 on no row). Worked by hand: the ledger must hold what the swap
    check cost, 2 x $0.25 = $0.50 (the rows' tickets settle at 0, their cost being on the rows),
    and a judge resumed on the file (every row done, no call) counts $1.00 + $0.50 = $1.50.
    Without the fix the two tickets stayed open: charged their $0.50 reservations, $1.00 in
    the ledger and $2.00 spent on resuming."""
    sheet, cases = _sheet(tmp_path)
    command = (sys.executable, "-S", FAKE_JUDGE, "--mode", "costly", "--calls", str(tmp_path / "calls.jsonl"))
    output = tmp_path / "judged.jsonl"
    runner = Runner("judge", command, "claude-json")

    def asked(*, swap_check: bool) -> JudgeRequest:
        """The one request, with or without its swap check (resumed: without)."""
        return JudgeRequest(
            runner=runner,
            sheet=sheet,
            output=output,
            cases=cases,
            budget_usd=10.0,
            retries=0,
            assume_call_usd=0.5,
            swap_check=swap_check,
            swap_sample=2,
        )

    request = asked(swap_check=True)
    first = judge(request)
    assert first.swap is not None and first.swap.rows == 2
    assert first.spent == pytest.approx(1.50)
    assert Ledger.beside(output, "reader").charged == {("", "judge"): pytest.approx(0.50)}
    resumed = judge(asked(swap_check=False))
    assert (resumed.judged, resumed.skipped) == (0, 4)
    assert resumed.spent == pytest.approx(1.50)
    assert len((tmp_path / "calls.jsonl").read_text().splitlines()) == 6
    assert [json.loads(line)["cost_usd"] for line in output.read_text().splitlines()] == [0.25] * 4
