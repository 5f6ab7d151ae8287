"""`score --quarantine`: the verdict with the flaky checks (it stands) and without them (it informs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main

METRICS = ("correctness", "autonomy", "actionability", "safety", "concision")


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """Two cases, one trial: the candidate scores 5 on every metric, the baseline 4, so the
    reference's score rules pass. Check `steady` passes in both; `wobbly` passes with the baseline
    and fails with the candidate: the candidate passes 1 of 2 checks, the baseline 2 of 2, and
    the gate fails on "fewer mechanical checks". Without `wobbly`: 1 of 1 each, and it passes."""
    scores = [
        {
            "case_id": case,
            "trial": 1,
            "condition": cond,
            **dict.fromkeys(METRICS, value),
            "blocker": False,
            "notes": "",
        }
        for case in ("a", "b")
        for cond, value in (("baseline", 4), ("candidate", 5))
    ]
    _write(tmp_path / "scores.jsonl", scores)
    checks = [
        {
            "case_id": case,
            "trial": 1,
            "condition": cond,
            "runner": "r",
            "criterion": f"{check}.",
            "check": check,
            "status": status,
        }
        for case, check, statuses in (("a", "steady", ("pass", "pass")), ("b", "wobbly", ("pass", "fail")))
        for cond, status in zip(("baseline", "candidate"), statuses, strict=True)
    ]
    _write(tmp_path / "checks.jsonl", checks)
    listed = [{"kind": "check", "case_id": "b", "criterion": "wobbly.", "check": "wobbly", "label": "flaky"}]
    listed.append({"kind": "criterion", "case_id": "b", "criterion": "Is kind.", "label": "flaky"})
    _write(tmp_path / "quarantine.jsonl", listed)
    return tmp_path


def _score(work: Path, *extra: str) -> int:
    return main(["score", str(work / "scores.jsonl"), "--checks", str(work / "checks.jsonl"), *extra])


def test_the_verdict_without_the_quarantined_checks_is_said_and_the_verdict_with_them_stands(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _score(work, "--quarantine", str(work / "quarantine.jsonl")) == exitcodes.GATE
    out = capsys.readouterr().out
    assert "Release gate: FAILED" in out
    assert (
        "Quarantine (--quarantine): 1 flaky check listed (2 results set aside for the second verdict). "
        "Verdict with them: failed; without them: passed (different). The verdict with them stands"
    ) in out


def test_as_json(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _score(work, "--quarantine", str(work / "quarantine.jsonl"), "--json") == exitcodes.GATE
    shown = json.loads(capsys.readouterr().out)
    assert shown["quarantine"] == {"listed": 1, "results": 2, "with_them": "failed", "without_them": "passed"}
    assert shown["release_gate"]["passed"] is False


def test_under_the_paired_gate_the_paired_verdicts_are_compared(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both cases' weighted Δ is +1 (5 − 4 on every metric): every resample of two equal Δ is +1,
    so the interval is [+1, +1] -- zero width, which is never evidence (issue 30: the spread is
    unmeasured), and two cases are too few for the exact sign test (p = 2 * 1/4 = 0.5). So the
    paired verdict is inconclusive (exit 8) with `wobbly` and without it: the same."""
    code = _score(work, "--quarantine", str(work / "quarantine.jsonl"), "--gate", "paired", "--json")
    shown = json.loads(capsys.readouterr().out)
    assert shown["decision"]["verdict"] == "inconclusive" and code == exitcodes.INCONCLUSIVE
    assert (shown["quarantine"]["with_them"], shown["quarantine"]["without_them"]) == (
        "inconclusive",
        "inconclusive",
    )


def test_a_quarantine_without_check_results_is_refused(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["score", str(work / "scores.jsonl"), "--quarantine", str(work / "quarantine.jsonl")])
        == exitcodes.USAGE
    )
    assert "pass them with --checks" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("row", "said"),
    [
        pytest.param(
            {"kind": "rule", "case_id": "b", "criterion": "x"}, "kind must be check or criterion", id="kind"
        ),
        pytest.param(
            {"kind": "check", "case_id": "b", "criterion": "x"},
            "check must be a string (missing)",
            id="no-check",
        ),
    ],
)
def test_a_bad_quarantine_row_is_refused_by_line(
    work: Path, row: dict[str, Any], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(work / "quarantine.jsonl", [row])
    assert _score(work, "--quarantine", str(work / "quarantine.jsonl")) == exitcodes.INPUT
    err = capsys.readouterr().err
    assert said in err and "quarantine.jsonl:1" in err
