"""`agree --judges A B --key KEY` (issue 31): whether the verdict survives swapping the judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.deciding.swap import per_criterion
from adhd_evals.runs.summaries import SwapJson, SwapSide
from judging import write_jsonl

METRICS = ("correctness", "autonomy", "actionability", "safety", "concision")
CASES = [f"c{n}" for n in range(1, 5)]


def _judged(path: Path, model: str, base: int, cand: int, fails_x_on_candidate: bool) -> Path:
    """4 cases, one trial; label A is baseline, B candidate; every metric `base` or `cand`."""
    rows = []
    for case in CASES:
        for label, score in (("A", base), ("B", cand)):
            x = "fail" if fails_x_on_candidate and label == "B" else "pass"
            rows.append(
                {
                    "case_id": case,
                    "trial": 1,
                    "condition": label,
                    **dict.fromkeys(METRICS, score),
                    "blocker": False,
                    "notes": "",
                    "criteria": [{"criterion": "x", "verdict": x}, {"criterion": "y", "verdict": "pass"}],
                    "judge": {"runner": "judge", "command": ["j"], "model": model, "template": "t"},
                }
            )
    return write_jsonl(path, rows)


@pytest.fixture
def key(tmp_path: Path) -> Path:
    rows = [
        {"case_id": c, "trial": 1, "label": label, "condition": condition}
        for c in CASES
        for label, condition in (("A", "baseline"), ("B", "candidate"))
    ]
    return write_jsonl(tmp_path / "key.jsonl", rows)


def test_a_lift_whose_sign_depends_on_the_judge_is_found(
    tmp_path: Path, key: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Judge A scores the candidate 4 over baseline 3 (Δ +1 on every metric, so weighted +1: the
    weights sum to 1) and the reference gate passes (no blocker, weighted above baseline); judge B
    scores it 3 under 4 (Δ -1): the gate fails. On criterion x they agree on the 4 baseline rows
    only (4 of 8); on y on all 8."""
    a = _judged(tmp_path / "a.jsonl", "opus", 3, 4, False)
    b = _judged(tmp_path / "b.jsonl", "haiku", 4, 3, True)
    code = main(["agree", "--judges", str(a), str(b), "--key", str(key)])
    out = capsys.readouterr().out
    assert code == exitcodes.JUDGE_SWAP
    assert f"Judge A ({a}): weighted Δ +1.000" in out and "reference gate PASSED" in out
    assert f"Judge B ({b}): weighted Δ -1.000" in out and "reference gate FAILED" in out
    assert "Swapping the judge changes the sign of the weighted Δ" in out and "the reference gate" in out
    assert "Per criterion, on rows both judged (16 verdict pairs, 75% agree):" in out
    assert [line.split() for line in out.splitlines()[-2:]] == [
        ["x", "8", "4", "(50%)"],
        ["y", "8", "8", "(100%)"],
    ]
    code = main(["agree", "--judges", str(a), str(b), "--key", str(key), "--json"])
    found = json.loads(capsys.readouterr().out)
    assert [(c["criterion"], c["pairs"], c["agree"]) for c in found["criteria"]] == [("x", 8, 4), ("y", 8, 8)]
    assert found["judges"]["A"]["sign"] == "+" and found["judges"]["B"]["sign"] == "-"


def test_two_judges_that_agree_on_the_verdict(
    tmp_path: Path, key: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both score the candidate 4 over 3; they differ on x only: nothing that decides changes."""
    a = _judged(tmp_path / "a.jsonl", "opus", 3, 4, False)
    b = _judged(tmp_path / "b.jsonl", "haiku", 3, 4, True)
    assert main(["agree", "--judges", str(a), str(b), "--key", str(key)]) == exitcodes.OK
    assert (
        "Swapping the judge changes neither the sign, the paired verdict nor the gate."
        in capsys.readouterr().out
    )


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param([], id="no key"),
        pytest.param(["--key", "k.jsonl", "j.jsonl"], id="with JUDGED"),
        pytest.param(["--key", "k.jsonl", "--out", "c.json"], id="with --out"),
    ],
)
def test_judges_stand_alone(tmp_path: Path, extra: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agree", "--judges", "a.jsonl", "b.jsonl", *extra]) == exitcodes.USAGE
    assert "--judges A B compares two judges on their own" in capsys.readouterr().err


def test_agree_needs_both_sheets(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agree", "judged.jsonl"]) == exitcodes.USAGE
    assert "agree compares JUDGED with HUMAN" in capsys.readouterr().err


def test_one_sheet_on_both_sides_is_refused(
    tmp_path: Path, key: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _judged(tmp_path / "a.jsonl", "opus", 3, 4, False)
    assert main(["agree", "--judges", str(a), str(a), "--key", str(key)]) == exitcodes.JUDGE_LAUNDERED


def test_void_rows_and_text_criteria_are_not_compared() -> None:
    row: dict[str, Any] = {"case_id": "c", "trial": 1, "condition": "baseline"}
    judged = {**row, "criteria": [{"criterion": "x", "verdict": "pass"}, "y"]}
    assert per_criterion([judged, {**row, "void": "no answer"}], [{**row, "void": "no answer"}]) == []
    assert per_criterion([judged], [judged]) == [{"criterion": "x", "pairs": 1, "agree": 1, "rate": 1.0}]


def test_a_side_with_nothing_paired_is_shown_as_such() -> None:
    """No weighted Δ (nothing paired) and no criterion both judged: said, not invented."""
    from adhd_evals.runs.deciding.swap import _sign, lines

    side: SwapSide = {
        "file": "a.jsonl",
        "judge": None,
        "mean_delta": None,
        "ci": None,
        "sign": "none",
        "verdict": None,
        "gate": "FAILED",
    }
    found: SwapJson = {"judges": {"A": side, "B": side}, "flips": [], "criteria": []}
    assert _sign(None) == "none"
    assert lines(found) == [
        "Judge A (a.jsonl): weighted Δ -; paired verdict None; reference gate FAILED.",
        "Judge B (a.jsonl): weighted Δ -; paired verdict None; reference gate FAILED.",
        "Swapping the judge changes neither the sign, the paired verdict nor the gate.",
    ]


def test_a_leaky_judge_in_a_swap_is_allowed_only_by_name(
    tmp_path: Path, key: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Judge B passed its one control (an empty response, criterion x passed): refused, then
    allowed and said."""
    a = _judged(tmp_path / "a.jsonl", "opus", 3, 4, False)
    b = _judged(tmp_path / "b.jsonl", "haiku", 3, 4, False)
    control = {
        "case_id": "c1",
        "trial": 1,
        "condition": "control-empty",
        "control": "empty",
        "criteria": [{"criterion": "x", "verdict": "pass"}],
        "judge": {"runner": "judge", "command": ["j"], "model": "haiku", "template": "t"},
    }
    b.write_text(b.read_text() + json.dumps(control) + "\n")
    argv = ["agree", "--judges", str(a), str(b), "--key", str(key)]
    assert main(argv) == exitcodes.JUDGE_LEAKY
    assert main([*argv, "--allow-leaky-judge"]) == exitcodes.OK
    assert (
        "a leaky judge, allowed with --allow-leaky-judge: it passed 1 of 1 controls"
        in capsys.readouterr().err
    )
