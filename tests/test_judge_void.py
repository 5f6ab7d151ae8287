"""A judge that never judged fails (issue 31): `judge` exits with its own code when every row it
wrote is void, naming the commonest reason, and the swap check says it measured nothing."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.judging.judge import JudgeSummary, SwapCheck, all_void, swap_lines
from helpers import blind_folder
from judging import read_jsonl, write_jsonl

CASES = [
    {"id": f"c{n}", "category": "c", "prompt": "p", "risk": "low", "criteria": ["Names it"]} for n in (1, 2)
]


def _sheet(tmp_path: Path) -> Path:
    write_jsonl(tmp_path / "cases.jsonl", CASES)
    rows = [
        {"case_id": f"c{n}", "trial": 1, "condition": c, "runner": "m", "response": f"Answer {n} {c}."}
        for n in (1, 2)
        for c in ("baseline", "candidate")
    ]
    write_jsonl(tmp_path / "responses.jsonl", rows)
    assert blind_folder(tmp_path) == 0
    return tmp_path / "sheet.jsonl"


def test_a_crashing_judge_exits_with_its_own_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The judge CLI exits 3 on every call: 4 rows, 4 void, all for that reason; --swap-check
    has no judged row to judge again, so nothing was compared."""
    sheet = _sheet(tmp_path)
    config = tmp_path / "judges.json"
    crash = [sys.executable, "-S", "-c", "import sys; sys.exit(3)"]
    config.write_text(json.dumps({"judge": {"command": crash, "response_format": "text"}}))
    judged = tmp_path / "judged.jsonl"
    argv = [
        "judge",
        str(sheet),
        "--runner",
        "judge",
        "--runner-config",
        str(config),
        "--cases",
        str(tmp_path / "cases.jsonl"),
    ]
    code = main([*argv, "--output", str(judged), "--retries", "0", "--allow-unmetered", "--swap-check"])
    err = capsys.readouterr().err
    assert code == exitcodes.JUDGE_VOID
    assert "Judged 4 rows (4 void)" in err
    assert (
        "adhd-evals: the judge judged nothing: all 4 rows void, 4 of them because runner 'judge' failed"
        in err
    )
    assert (
        "Swap check: not measured: no criterion verdict to compare (0 rows judged again, 0 void the second time)."
        in err
    )
    assert all("void" in r for r in read_jsonl(judged))


def test_one_judged_row_is_enough_to_pass() -> None:
    assert all_void(JudgeSummary(judged=4, void=3, reasons=Counter({"x": 3}))) is None
    assert all_void(JudgeSummary(judged=0)) is None  # everything was already judged: nothing to say


def test_the_commonest_reason_is_named() -> None:
    """3 rows void for 'timeout', 1 for 'prose': 'timeout' is named, with its count."""
    found = all_void(JudgeSummary(judged=4, void=4, reasons=Counter({"prose": 1, "timeout": 3})))
    assert found == "the judge judged nothing: all 4 rows void, 3 of them because timeout"


def test_a_swap_check_with_every_second_judgement_void_is_not_measured() -> None:
    assert swap_lines(SwapCheck(rows=2, void=2)) == [
        "Swap check: not measured: no criterion verdict to compare (2 rows judged again, 2 void the second time)."
    ]
