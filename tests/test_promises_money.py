"""Issue 35's money promises: a failed call is charged what can be known (never the whole budget
its flag was handed), and a runner with no budget flag is bound by one sentence of
docs/runs-and-money.md with any CLI: recorded plus charged spend <= budget + the largest cost
one call was seen to cost; real spend (the fake's own books) within the same bound where the CLI
reports its cost honestly.
"""

from __future__ import annotations

import json
import math
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


@pytest.mark.long
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


@pytest.mark.long
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


@pytest.mark.long
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


# --- the no-flag budget battery -------------------------------------------------------------------
#
# The bound (docs/runs-and-money.md): recorded plus charged spend <= budget + the largest cost one
# call was seen to cost; real spend (what the fake's books say) within the same bound where the
# CLI reports what it spent. Each scenario: $1 budget, --assume-call-usd 0.05 where the runner has
# no flag, 12 cases, --retries 2, --timeout 0.5.

HONEST, DISHONEST = True, False
BATTERY = [
    pytest.param(["--cost", "0.30"], None, HONEST, id="a call dearer than the floor"),
    pytest.param(["--cost", "0.04"], None, HONEST, id="calls within the floor"),
    pytest.param(["--first-free", "--rise", "0.05", "--cap", "10"], None, HONEST, id="rising costs"),
    pytest.param(["--first-free", "--rise", "0.5", "--cap", "10"], None, HONEST, id="steeply rising costs"),
    pytest.param(["--cost", "0.30", "--report", "0.01"], None, DISHONEST, id="a CLI that lies"),
    pytest.param(["--cost", "0.30", "--then", "fail"], None, DISHONEST, id="fails after spending"),
    pytest.param(["--cost", "0.30", "--then", "garbage"], None, DISHONEST, id="garbage after spending"),
    pytest.param(["--cost", "0.30", "--then", "hang"], None, DISHONEST, id="hangs after spending"),
    pytest.param(["--cost", "0.05", "--mix"], None, DISHONEST, id="ok, garbage, fail, hang"),
    pytest.param(["--cost", "0.02", "--fail-after", "5"], None, DISHONEST, id="fails after five calls"),
    pytest.param(["--cost", "0.30", "--ignore-flag"], "--max-budget", HONEST, id="ignores its flag"),
    pytest.param(
        ["--first-free", "--rise", "0.2", "--ignore-flag"], "--max-budget", HONEST, id="ignores, rising"
    ),
]
QUICK = {"a call dearer than the floor", "steeply rising costs", "a CLI that lies", "ignores its flag"}


def _battery(work: Path, cheat: list[str], flag: str | None, jobs: str) -> tuple[float, float, float]:
    """(believed, real, the largest cost one call reported) after one run."""
    _cases(work, 12)
    command = [sys.executable, "-S", CHEAT, "--provider", str(work / "p.jsonl"), "--counter", str(work / "n")]
    spec: dict[str, Any] = {"command": [*command, *cheat], "response_format": "claude-json"}
    if flag:
        spec["budget_flag"] = flag
    (work / "runners.json").write_text(json.dumps({"cheat": spec}))
    floor = [] if flag else ["--assume-call-usd", "0.05"]
    code = _run(work, "cheat", "--budget-usd", "1", "--jobs", jobs, "--timeout", "0.5", *floor)
    assert code in (exitcodes.OK, exitcodes.BUDGET, exitcodes.RUNNER)
    rows = _rows(work)
    recorded = sum(row["cost_usd"] for row in rows)
    ledger = _ledger(work) if (work / "out.jsonl.ledger").exists() else []
    settled = {e["id"] for e in ledger if "charged" in e}
    charged = sum(e["charged"] for e in ledger if "charged" in e)
    charged += sum(e["reserve"] for e in ledger if "reserve" in e and e["id"] not in settled)
    books = work / "p.jsonl"
    real = (
        sum(json.loads(line)["spent"] for line in books.read_text().splitlines()) if books.exists() else 0.0
    )
    reported = [row["cost_usd"] for row in rows]
    return recorded + charged, real, max(reported, default=0.0)


def _check_bound(work: Path, cheat: list[str], flag: str | None, honest: bool, jobs: str) -> None:
    believed, real, largest = _battery(work, cheat, flag, jobs)
    assert believed <= 1.0 + largest + 1e-9, (believed, largest)
    if honest:
        assert real <= 1.0 + largest + 1e-9, (real, largest)


@pytest.mark.long
@pytest.mark.parametrize("jobs", ["1", "8"])
@pytest.mark.parametrize(("cheat", "flag", "honest"), [p for p in BATTERY if p.id in QUICK])
def test_the_budget_bound_holds_quick(
    tmp_path: Path, cheat: list[str], flag: str | None, honest: bool, jobs: str
) -> None:
    """Four scenarios of the battery in the default suite (the whole battery runs under `long`).
    Before: $2.40 at --jobs 8 for the call dearer than the floor (8 calls of $0.30 at once)."""
    _check_bound(tmp_path, cheat, flag, honest, jobs)


@pytest.mark.long
@pytest.mark.parametrize("jobs", ["1", "8"])
@pytest.mark.parametrize(("cheat", "flag", "honest"), BATTERY)
def test_the_budget_bound_holds(
    tmp_path: Path, cheat: list[str], flag: str | None, honest: bool, jobs: str
) -> None:
    _check_bound(tmp_path, cheat, flag, honest, jobs)


def test_a_huge_cost_prints_a_few_digits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A CLI reporting 1e308 dollars overspends its $0.05: the message and the summary print
    $1e+308 (4 significant digits), not a 309-digit figure."""
    _cases(tmp_path, 1)
    (tmp_path / "cli.py").write_text('print(\'{"result": "ok", "total_cost_usd": 1e308}\')')
    spec = {"command": [sys.executable, "-S", str(tmp_path / "cli.py")], "response_format": "claude-json"}
    (tmp_path / "runners.json").write_text(json.dumps({"huge": spec}))
    assert _run(tmp_path, "huge", "--assume-call-usd", "0.05") == exitcodes.BUDGET
    err = capsys.readouterr().err
    assert "spent $1e+308 on one call" in err and "(1/1, $1e+308)" in err
    assert max(len(word) for word in err.split()) < 60


@pytest.mark.parametrize(
    ("value", "shown"), [(0.25, "$0.2500"), (9999.5, "$9999.5000"), (12345.6, "$1.235e+04")]
)
def test_dollars_print_by_the_rule(value: float, shown: str) -> None:
    from adhd_evals.text import usd

    assert usd(value) == shown


def test_a_history_cost_that_is_not_dollars_prices_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`plan --estimate` reads recorded costs: Infinity, NaN and -1 are no samples; the one row of
    $0.25 prices the call (low, median and high all $0.25)."""
    from adhd_evals.runs.calling.forecast import read_history

    rows = [
        {
            "case_id": "c1",
            "trial": t,
            "condition": "baseline",
            "runner": "r",
            "response": "x",
            "cost_usd": cost,
        }
        for t, cost in enumerate([math.inf, math.nan, -1, 0.25], start=1)
    ]
    (tmp_path / "h.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert read_history([tmp_path / "h.jsonl"]).cost == {("r", "baseline", "c1"): [0.25]}
