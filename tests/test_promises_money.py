"""Issue 35's money promises: a failed call is charged what can be known (never the whole budget
its flag was handed), and a runner with no budget flag is bound by one sentence of
docs/runs-and-money.md with any CLI: recorded plus charged spend <= budget + the largest cost
one call was seen to cost; real spend (the fake's own books) within the same bound where the CLI
reports its cost honestly.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main

FAKES = Path(__file__).parent / "fakes"
FAKE = str(FAKES / "fake_cli.py")
CHEAT = str(FAKES / "cheating_cli.py")


def _cases(work: Path, count: int) -> Path:
    path = work / "cases.jsonl"
    rows = [
        {"id": f"c{n}", "category": "c", "prompt": f"Q{n}", "risk": "low", "criteria": ["x"]}
        for n in range(1, count + 1)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _run(work: Path, runner: str, *extra: str) -> int:
    return main(
        [
            "run",
            "--runner",
            runner,
            "--runner-config",
            str(work / "runners.json"),
            "--condition",
            "baseline",
            "--cases",
            str(work / "cases.jsonl"),
            "--output",
            str(work / "out.jsonl"),
            "--trials",
            "1",
            "--backoff",
            "0",
            *extra,
        ]
    )


def _rows(work: Path) -> list[dict[str, Any]]:
    out = work / "out.jsonl"
    return [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []


def _ledger(work: Path) -> list[dict[str, Any]]:
    text = (work / "out.jsonl.ledger").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _reference_claude(work: Path, fail_times: int) -> None:
    """The reference's claude runner config (claude-json, a --max-budget-usd style flag), with a
    fake claude whose first `fail_times` calls fail without printing a cost."""
    command = [
        sys.executable,
        FAKE,
        "--format",
        "claude-json",
        "--cost",
        "0.01",
        "--fail-times",
        str(fail_times),
        "--state",
        str(work / "state"),
        "--calls",
        str(work / "calls.jsonl"),
    ]
    spec = {"command": command, "response_format": "claude-json", "budget_flag": "--max-budget"}
    (work / "runners.json").write_text(json.dumps({"claude": spec}))


def test_a_failed_call_is_retried_and_the_run_finishes(tmp_path: Path) -> None:
    """14 cases, --jobs 1, the default $25 budget; the first call fails (exit 3, no cost printed).
    By hand: it is charged what can be known — no cost seen yet, no floor given, so the budget's
    even share per planned call, $25 / 14 — never the $25 the flag handed it; the retry answers,
    and all 14 rows are written: exit 0 after 15 calls."""
    _cases(tmp_path, 14)
    _reference_claude(tmp_path, fail_times=1)
    assert _run(tmp_path, "claude") == exitcodes.OK
    assert sorted(row["case_id"] for row in _rows(tmp_path)) == sorted(f"c{n}" for n in range(1, 15))
    assert len((tmp_path / "calls.jsonl").read_text().splitlines()) == 15


def test_a_case_failing_every_retry_stops_the_run_and_the_rerun_finishes(tmp_path: Path) -> None:
    """The first case's three attempts (--retries 2) all fail: the run ends with exit 6 (RUNNER),
    as the reference ends with an error, charged 3 x $25/14 = $5.36 of $25 (not the whole budget).
    By hand, the rerun (the same command, as the hint says) finds $19.64 left and answers all 14."""
    _cases(tmp_path, 14)
    _reference_claude(tmp_path, fail_times=3)
    assert _run(tmp_path, "claude") == exitcodes.RUNNER
    ledger = _ledger(tmp_path)
    charged = sum(entry["charged"] for entry in ledger if "charged" in entry)
    assert charged == pytest.approx(3 * 25 / 14)
    assert _run(tmp_path, "claude") == exitcodes.OK
    assert len(_rows(tmp_path)) == 14


def test_a_failed_call_is_charged_the_dearest_cost_seen(tmp_path: Path) -> None:
    """No flag, --assume-call-usd 0.05: calls cost $0.02 each (within the floor) and every call
    after the third fails after spending. By hand: calls 1-3 record $0.02 each; each failed call is
    charged the dearest cost seen ($0.02), not the floor ($0.05): with --retries 1, case 4's two
    attempts are charged $0.04 and the run ends with exit 6; believed $0.10."""
    _cases(tmp_path, 6)
    command = [sys.executable, "-S", CHEAT, "--provider", str(tmp_path / "p.jsonl")]
    command += ["--counter", str(tmp_path / "counter"), "--cost", "0.02", "--fail-after", "3"]
    (tmp_path / "runners.json").write_text(
        json.dumps({"cheat": {"command": command, "response_format": "claude-json"}})
    )
    code = _run(tmp_path, "cheat", "--assume-call-usd", "0.05", "--retries", "1", "--budget-usd", "1")
    assert code == exitcodes.RUNNER
    ledger = _ledger(tmp_path)
    assert sorted(entry["charged"] for entry in ledger if entry.get("charged")) == [0.02, 0.02]
