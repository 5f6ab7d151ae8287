"""`plan --estimate` against figures worked out by hand from tests/scale/history.jsonl.

The history (runner fake): baseline case-a cost 0.1, 0.3, 0.2 (elapsed 2, 4, 3), case-b 0.4
(elapsed 10), and a cached case-a row at 9.99 that is no sample; candidate case-a 0.5 (elapsed 5),
case-b no cost (elapsed 1). The catalog holds case-a, case-b and case-c (never run); 2 trials.

baseline, per call (low / median / high; median elapsed):
  case-a: 0.1 / 0.2 / 0.3; 3 s
  case-b: 0.4 / 0.4 / 0.4; 10 s
  case-c: every baseline case: [0.1, 0.3, 0.2, 0.4] -> 0.1 / (0.2 + 0.3) / 2 = 0.25 / 0.4;
          elapsed [2, 4, 3, 10] -> (3 + 4) / 2 = 3.5 s
  x 2 trials: low 2 x (0.1 + 0.4 + 0.1) = 1.2, median 2 x (0.2 + 0.4 + 0.25) = 1.7,
  high 2 x (0.3 + 0.4 + 0.4) = 2.2; time 2 x (3 + 10 + 3.5) = 33 s, at --jobs 2: 16.5 s
candidate, per call:
  case-a: 0.5; 5 s.  case-b: no cost of its own -> every candidate case [0.5]; elapsed 1 s.
  case-c: [0.5]; elapsed [5, 1] -> 3 s
  x 2 trials: 3.0 / 3.0 / 3.0; time 2 x (5 + 1 + 3) = 18 s, at --jobs 2: 9 s
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.calling import cache as caching
from adhd_evals.runs.calling.config import Runner

HERE = Path(__file__).parent / "scale"


def _estimate(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    argv = [
        "plan",
        "--cases",
        str(HERE / "cases.jsonl"),
        "--trials",
        "2",
        "--estimate",
        "--history",
        str(HERE / "history.jsonl"),
        "--jobs",
        "2",
        "--json",
        *extra,
    ]
    assert main(argv) == exitcodes.OK
    found: dict[str, Any] = json.loads(capsys.readouterr().out)
    return found


def _line(found: dict[str, Any], runner: str, condition: str) -> dict[str, Any]:
    return next(x for x in found["lines"] if (x["runner"], x["condition"]) == (runner, condition))


def test_the_forecast_matches_the_hand_worked_figures(capsys: pytest.CaptureFixture[str]) -> None:
    found = _estimate(capsys, "--runner", "fake")
    baseline, candidate = _line(found, "fake", "baseline"), _line(found, "fake", "candidate")
    assert (baseline["calls"], baseline["cached"]) == (6, 0)
    assert baseline["cost_usd"] == pytest.approx({"low": 1.2, "median": 1.7, "high": 2.2})
    assert baseline["wall_s"] == pytest.approx(16.5)
    assert candidate["cost_usd"] == pytest.approx({"low": 3.0, "median": 3.0, "high": 3.0})
    assert candidate["wall_s"] == pytest.approx(9.0)
    assert found["total"]["cost_usd"] == pytest.approx({"low": 4.2, "median": 4.7, "high": 5.2})
    assert found["total"]["wall_s"] == pytest.approx(25.5)


def test_a_runner_never_recorded_is_unknown_never_zero(capsys: pytest.CaptureFixture[str]) -> None:
    found = _estimate(capsys, "--runner", "fake", "--runner", "new")
    new = _line(found, "new", "baseline")
    assert new["cost_usd"] is None and new["calls_without_recorded_cost"] == 6 and new["wall_s"] is None
    assert found["total"]["cost_usd"] is None  # one unknown part makes the whole unknown


def test_the_table_says_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["plan", "--cases", str(HERE / "cases.jsonl"), "--trials", "2", "--estimate", "--runner", "new"]
    assert main(argv) == exitcodes.OK
    out = capsys.readouterr().out
    assert "unknown" in out and "$0" not in out and "6 calls with no recorded cost" in out


def test_without_runner_the_history_names_them(capsys: pytest.CaptureFixture[str]) -> None:
    found = _estimate(capsys)
    assert sorted({x["runner"] for x in found["lines"]}) == ["fake", "other"]
    # other: baseline case-a 1.0 alone, so every baseline call 1.0: 6 calls -> 6.0; no candidate rows
    assert _line(found, "other", "baseline")["cost_usd"] == pytest.approx(
        {"low": 6.0, "median": 6.0, "high": 6.0}
    )
    assert _line(found, "other", "candidate")["cost_usd"] is None


def test_calls_the_cache_answers_are_free(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The cache answers baseline case-a trial 1: that call (0.1 / 0.2 / 0.3, 3 s) drops out:
    baseline low 1.1, median 1.5, high 1.9, time (33 - 3) / 2 = 15 s."""
    command = [sys.executable, "fake.py"]
    (tmp_path / "runners.json").write_text(
        json.dumps({"fake": {"command": command, "response_format": "claude-json"}})
    )
    cache = caching.Cache.open(tmp_path / "cache")
    digest = caching.key(Runner("fake", tuple(command), "claude-json"), "Question a", 1, case_id="case-a")
    cache.put(digest, caching.Hit("an answer", {}, 0.1, 2.0))
    (tmp_path / "skill.md").write_text("Be terse.")
    found = _estimate(
        capsys,
        "--runner",
        "fake",
        "--runner-config",
        str(tmp_path / "runners.json"),
        "--cache",
        str(tmp_path / "cache"),
        "--condition-skill",
        str(tmp_path / "skill.md"),
    )
    baseline = _line(found, "fake", "baseline")
    assert (baseline["calls"], baseline["cached"]) == (6, 1)
    assert baseline["cost_usd"] == pytest.approx({"low": 1.1, "median": 1.5, "high": 1.9})
    assert baseline["wall_s"] == pytest.approx(15.0)


def test_the_built_in_stub_is_free_without_history(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["plan", "--cases", str(HERE / "cases.jsonl"), "--estimate", "--runner", "stub", "--json"]
    assert main(argv) == exitcodes.OK
    total = json.loads(capsys.readouterr().out)["total"]
    assert total["cost_usd"] == {"low": 0.0, "median": 0.0, "high": 0.0} and total["calls"] == 18


def test_no_runner_and_no_history_is_a_usage_error() -> None:
    assert main(["plan", "--cases", str(HERE / "cases.jsonl"), "--estimate"]) == exitcodes.USAGE
