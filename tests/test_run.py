"""`adhd-evals run` against real subprocesses: the fake CLIs in tests/fakes/."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main

FAKE = str(Path(__file__).parent / "fakes" / "fake_cli.py")
CASES = [
    {"id": f"case-{n}", "category": "c", "prompt": f"Question {n}", "risk": "low", "criteria": ["x"]}
    for n in range(1, 4)
]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    (tmp_path / "skill.md").write_text("---\nname: terse\n---\nBe terse.\n")
    return tmp_path


def _config(work: Path, **runners: dict[str, Any]) -> Path:
    path = work / "runners.json"
    path.write_text(json.dumps(runners))
    return path


def _run(work: Path, *args: str) -> int:
    return main(
        [
            "run",
            "--cases",
            str(work / "cases.jsonl"),
            "--output",
            str(work / "out.jsonl"),
            "--backoff",
            "0",
            *args,
        ]
    )


def _rows(work: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (work / "out.jsonl").read_text().splitlines()]


def test_stub_runner_needs_no_config(work: Path) -> None:
    assert _run(work, "--runner", "stub", "--condition", "baseline", "--trials", "2") == exitcodes.OK
    rows = _rows(work)
    assert [(r["case_id"], r["trial"]) for r in rows] == [(c["id"], t) for t in (1, 2) for c in CASES]
    assert all(r["runner"] == "stub" and r["cost_usd"] == 0.0 and "elapsed_s" in r for r in rows)
    assert rows[0]["response"] == rows[3]["response"]  # deterministic


@pytest.mark.long
@pytest.mark.parametrize(
    ("fmt", "usage", "unmetered"),
    [
        ("claude-json", {"input_tokens": 10, "output_tokens": 5}, False),
        ("codex-jsonl", {"input_tokens": 7, "output_tokens": 3}, True),
        ("text", {}, True),
    ],
)
def test_each_response_format(work: Path, fmt: str, usage: dict[str, int], unmetered: bool) -> None:
    config = _config(
        work,
        fake={"command": [sys.executable, FAKE, "--format", fmt, "--cost", "0.01"], "response_format": fmt},
    )
    args = ["--runner", "fake", "--runner-config", str(config), "--condition", "baseline", "--trials", "1"]
    if unmetered:
        assert _run(work, *args) == exitcodes.USAGE  # never reports cost: must be allowed explicitly
        args.append("--allow-unmetered")
    assert _run(work, *args) == exitcodes.OK
    rows = _rows(work)
    assert len(rows) == 3 and rows[0]["response"].startswith("answer ") and rows[0]["usage"] == usage
    assert rows[0]["cost_usd"] == (0.01 if fmt == "claude-json" else None)


@pytest.mark.long
def test_fails_then_succeeds_within_retries(work: Path) -> None:
    config = _config(
        work,
        flaky={
            "command": [
                sys.executable,
                FAKE,
                "--format",
                "claude-json",
                "--cost",
                "0",
                "--fail-times",
                "2",
                "--state",
                str(work / "state"),
            ],
            "response_format": "claude-json",
            "assume_call_usd": 0.01,  # what each failed attempt is charged (its cost is unknown)
        },
    )
    assert (
        _run(
            work,
            "--runner",
            "flaky",
            "--runner-config",
            str(config),
            "--condition",
            "baseline",
            "--trials",
            "1",
            "--retries",
            "2",
        )
        == exitcodes.OK
    )
    assert len(_rows(work)) == 3


@pytest.mark.long
def test_failure_after_retries_is_a_clear_message(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(
        work,
        broken={
            "command": [sys.executable, FAKE, "--fail-times", "99", "--state", str(work / "state")],
            "response_format": "text",
        },
    )
    code = _run(
        work,
        "--runner",
        "broken",
        "--runner-config",
        str(config),
        "--condition",
        "baseline",
        "--trials",
        "1",
        "--retries",
        "1",
        "--allow-unmetered",
    )
    err = capsys.readouterr().err
    assert code == exitcodes.RUNNER
    assert "failed after 2 attempts" in err and "exit code 3" in err and "upstream overloaded" in err
    assert "fake_cli.py" in err and "Question" not in err and "Traceback" not in err


def test_timeout_stops_a_hung_cli(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(work, hung={"command": [sys.executable, FAKE, "--hang"], "response_format": "text"})
    code = _run(
        work,
        "--runner",
        "hung",
        "--runner-config",
        str(config),
        "--condition",
        "baseline",
        "--trials",
        "1",
        "--retries",
        "0",
        "--timeout",
        "0.5",
        "--allow-unmetered",
        "--case",
        "case-1",
    )
    assert code == exitcodes.RUNNER and "timed out after 0.5 s" in capsys.readouterr().err


@pytest.mark.long
def test_budget_stops_cleanly_and_counts_earlier_runs(work: Path) -> None:
    config = _config(
        work,
        paid={
            "command": [sys.executable, FAKE, "--format", "claude-json", "--cost", "0.01"],
            "response_format": "claude-json",
            "budget_flag": "--max-budget",
        },
    )
    args = ["--runner", "paid", "--runner-config", str(config), "--condition", "baseline", "--trials", "2"]
    assert _run(work, *args, "--budget-usd", "0.025") == exitcodes.BUDGET
    rows = _rows(work)
    # spent 0.00, 0.01 before each call; then $0.005 is left, less than the dearest call ($0.01):
    # no third call (a CLI ignoring its flag would spend $0.01 on it, past the budget)
    assert len(rows) == 2
    assert [r["response"].split("budget=")[1] for r in rows] == ["0.0250", "0.0150"]
    assert _run(work, *args, "--budget-usd", "0.025") == exitcodes.BUDGET
    assert len(_rows(work)) == 2  # the earlier spend counts
    assert _run(work, *args, "--budget-usd", "1") == exitcodes.OK
    assert len(_rows(work)) == 6


def test_resume_skips_completed_rows(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--runner", "stub", "--condition", "baseline", "--trials", "1"]
    assert _run(work, *args) == exitcodes.OK
    assert _run(work, *args) == exitcodes.OK
    assert len(_rows(work)) == 3 and "skipped 3" in capsys.readouterr().err


def test_torn_last_line_is_repaired_never_duplicated(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--runner", "stub", "--condition", "baseline", "--trials", "1"]
    assert _run(work, *args, "--case", "case-1") == exitcodes.OK
    with (work / "out.jsonl").open("a") as stream:
        stream.write('{"case_id": "case-2", "trial": 1, "condi')  # a killed writer's half line
    assert _run(work, *args) == exitcodes.OK
    assert "torn last line" in capsys.readouterr().err
    assert sorted(r["case_id"] for r in _rows(work)) == ["case-1", "case-2", "case-3"]


def test_candidate_wraps_the_task_with_the_skill(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(work, fake={"command": [sys.executable, FAKE], "response_format": "text"})
    args = [
        "--runner",
        "fake",
        "--runner-config",
        str(config),
        "--condition",
        "candidate",
        "--trials",
        "1",
        "--allow-unmetered",
    ]
    assert _run(work, *args) == exitcodes.USAGE
    assert "--condition-skill is required" in capsys.readouterr().err
    assert _run(work, *args, "--condition-skill", str(work / "skill.md")) == exitcodes.OK
    assert all(r["response"].endswith("<task> seen") for r in _rows(work))


def test_unknown_case_id_is_an_error(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(work, "--runner", "stub", "--condition", "baseline", "--case", "nope") == exitcodes.USAGE
    assert "--case matched no evaluation case: nope" in capsys.readouterr().err


@pytest.mark.long
def test_jobs_write_whole_lines(work: Path) -> None:
    config = _config(
        work,
        slow={
            "command": [sys.executable, FAKE, "--format", "claude-json", "--cost", "0", "--sleep", "0.05"],
            "response_format": "claude-json",
            "assume_call_usd": 0.01,
        },
    )
    assert (
        _run(
            work,
            "--runner",
            "slow",
            "--runner-config",
            str(config),
            "--condition",
            "baseline",
            "--trials",
            "4",
            "--jobs",
            "4",
        )
        == exitcodes.OK
    )
    rows = _rows(work)
    assert sorted((r["case_id"], r["trial"]) for r in rows) == sorted(
        (c["id"], t) for c in CASES for t in range(1, 5)
    )


def test_progress_is_a_bar_on_a_terminal_and_lines_otherwise() -> None:
    import io

    from adhd_evals.runs.calling.workers import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen, log = Terminal(), io.StringIO()
    for stream in (screen, log):
        progress = Progress(2, stream)
        progress.step("baseline trial 1: a", 0.01, failed_attempts=1)
        progress.step("baseline trial 1: b", 0.02)
    assert screen.getvalue().startswith("\r[") and "2/2 failures 1  $0.0200" in screen.getvalue()
    assert log.getvalue().splitlines() == [
        "baseline trial 1: a (1/2, $0.0100)",
        "baseline trial 1: b (2/2, $0.0200)",
    ]
