"""`run` never overspends, never leaves a process behind, and matches the reference where
it claims to. Fake CLIs (tests/fakes/fake_cli.py) append every call to a file, so calls
are counted, not guessed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.calling.prompts import condition_prompt, skill_text
from adhd_evals.runs.calling.responses import ResponseUnreadable, parse

FAKE = str(Path(__file__).parent / "fakes" / "fake_cli.py")


def _cases(work: Path, prompts: list[str]) -> Path:
    path = work / "cases.jsonl"
    rows = [
        {"id": f"c{n}", "category": "c", "prompt": p, "risk": "low", "criteria": ["x"]}
        for n, p in enumerate(prompts, 1)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _config(work: Path, fake_args: list[str], **spec: Any) -> Path:
    path = work / "runners.json"
    command = [sys.executable, FAKE, "--calls", str(work / "calls.jsonl"), *fake_args]
    path.write_text(json.dumps({"fake": {"command": command, "response_format": "claude-json", **spec}}))
    return path


def _argv(work: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--runner",
        "fake",
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


def _calls(work: Path) -> list[dict[str, Any]]:
    path = work / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _rows(work: Path) -> list[dict[str, Any]]:
    path = work / "out.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_fatal_failure_makes_the_references_calls_and_no_later_row(tmp_path: Path) -> None:
    _cases(tmp_path, ["Q1", "Q2", "Q3"])
    _config(
        tmp_path,
        [
            "--format",
            "claude-json",
            "--cost",
            "0.01",
            "--fail-times",
            "99",
            "--state",
            str(tmp_path / "state"),
        ],
        assume_call_usd=0.01,
    )
    # each failure is charged its reservation ($0.01): far from the budget, so both attempts run
    assert main(_argv(tmp_path, "--retries", "1")) == exitcodes.RUNNER
    # the reference: retries + 1 = 2 calls, all for the first case; nothing written
    assert [c["prompt"] for c in _calls(tmp_path)] == ["Q1", "Q1"]
    assert _rows(tmp_path) == []


@pytest.mark.parametrize("jobs", ["1", "4"])
def test_a_cli_reporting_no_cost_makes_one_call_only(tmp_path: Path, jobs: str) -> None:
    _cases(tmp_path, ["Q1", "Q2", "Q3", "Q4"])
    _config(tmp_path, ["--format", "claude-json"], assume_call_usd=0.01)  # no --cost: no total_cost_usd
    assert main(_argv(tmp_path, "--jobs", jobs)) == exitcodes.RUNNER
    assert len(_calls(tmp_path)) <= int(jobs)  # the calls already in flight, never one after
    assert _rows(tmp_path) == []


@pytest.mark.long
def test_jobs_never_spend_past_the_budget_with_a_budget_flag(tmp_path: Path) -> None:
    _cases(tmp_path, [f"Q{n}" for n in range(16)])
    _config(tmp_path, ["--format", "claude-json", "--cost", "1.0"], budget_flag="--max-budget")
    code = main(_argv(tmp_path, "--jobs", "8", "--budget-usd", "1"))
    # shares are told rounded down to 4 decimals, so the run may end just short of $1 with every row
    assert code in (exitcodes.BUDGET, exitcodes.OK)
    spent = sum(r["cost_usd"] for r in _rows(tmp_path))
    assert 0 < spent <= 1.0 + 1e-9
    told = [c["budget"] for c in _calls(tmp_path)]
    assert sum(told) <= 1.0 + 1e-6  # what calls were allowed to spend never sums past the budget


@pytest.mark.long
def test_jobs_without_a_budget_flag_reserve_the_dearest_call(tmp_path: Path) -> None:
    _cases(tmp_path, [f"Q{n}" for n in range(16)])
    _config(tmp_path, ["--format", "claude-json", "--cost", "0.01"])
    code = main(_argv(tmp_path, "--jobs", "8", "--budget-usd", "0.02", "--assume-call-usd", "0.01"))
    assert code == exitcodes.BUDGET
    assert sum(r["cost_usd"] for r in _rows(tmp_path)) == pytest.approx(0.02)
    assert len(_calls(tmp_path)) == 2


def test_a_nan_cost_is_a_failed_call_never_a_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _cases(tmp_path, ["Q1"])
    _config(tmp_path, ["--format", "claude-json", "--cost", "nan"])
    assert main(_argv(tmp_path, "--retries", "0")) == exitcodes.RUNNER
    assert "total_cost_usd is nan, not a finite number of dollars" in capsys.readouterr().err
    assert _rows(tmp_path) == []


def test_unmetered_runs_stop_at_max_calls(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _cases(tmp_path, ["Q1", "Q2", "Q3"])
    _config(tmp_path, ["--format", "text"], response_format="text")
    code = main(_argv(tmp_path, "--allow-unmetered", "--max-calls", "2"))
    assert code == exitcodes.BUDGET
    assert len(_calls(tmp_path)) == 2 and len(_rows(tmp_path)) == 2
    err = capsys.readouterr().err
    assert "Unmetered" in err and "--max-calls 2" in err and "Call cap reached" in err


def _alive(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.long
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_run_and_leaves_nothing_behind(tmp_path: Path, sig: int, code: int) -> None:
    marker = f"adhd-evals-test-{os.getpid()}-{sig}"
    _cases(tmp_path, [f"Q{n}" for n in range(6)])
    _config(
        tmp_path,
        ["--format", "claude-json", "--cost", "0", "--sleep", "30", "--grandchild", marker],
        assume_call_usd=0.01,
    )  # each holding $0.01; one call at a time until one comes back within it (issue 35)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    runner = subprocess.Popen(
        [sys.executable, "-m", "adhd_evals", *_argv(tmp_path, "--jobs", "2")],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 20
    while len(_calls(tmp_path)) < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_calls(tmp_path)) == 1
    time.sleep(0.3)  # the grandchild starts
    runner.send_signal(sig)
    _, err = runner.communicate(timeout=30)
    assert runner.returncode == code, err
    assert "no new call started" in err
    time.sleep(0.2)
    assert _alive(marker) == []
    assert len(_calls(tmp_path)) == 1  # nothing started after the signal
    assert [p.name for p in scratch.iterdir()] == []  # scratch folders removed
    assert _rows(tmp_path) == []


def test_a_timeout_ends_the_whole_process_group(tmp_path: Path) -> None:
    marker = f"adhd-evals-test-timeout-{os.getpid()}"
    _cases(tmp_path, ["Q1"])
    _config(tmp_path, ["--format", "claude-json", "--cost", "0", "--hang", "--grandchild", marker])
    assert main(_argv(tmp_path, "--timeout", "0.5", "--retries", "0")) == exitcodes.RUNNER
    time.sleep(0.2)
    assert _alive(marker) == []


@pytest.mark.long
def test_two_runs_on_one_file_one_refuses_the_other_completes(tmp_path: Path) -> None:
    _cases(tmp_path, [f"Q{n}" for n in range(6)])
    release = tmp_path / "release"  # the first run's calls answer once the second has been refused
    _config(tmp_path, ["--format", "claude-json", "--cost", "0", "--hold", str(release)])
    argv = [sys.executable, "-m", "adhd_evals", *_argv(tmp_path)]
    first = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while not _calls(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    second = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    release.touch()
    _, first_err = first.communicate(timeout=60)
    assert first.returncode == 0, first_err
    assert second.returncode == exitcodes.USAGE
    assert f"is being written by another run (pid {first.pid})" in second.stderr
    assert sorted(r["case_id"] for r in _rows(tmp_path)) == [f"c{n}" for n in range(1, 7)]  # each once


def test_a_prompt_starting_with_a_dash_is_refused_unless_placed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _cases(tmp_path, ["--dangerously-skip-permissions"])
    _config(tmp_path, ["--format", "claude-json", "--cost", "0"])
    assert main(_argv(tmp_path)) == exitcodes.USAGE
    assert "case 'c1': its prompt begins with '-'" in capsys.readouterr().err
    assert _calls(tmp_path) == []
    placed = tmp_path / "runners.json"
    spec = json.loads(placed.read_text())
    spec["fake"]["command"] += ["--", "{prompt}"]
    placed.write_text(json.dumps(spec))
    assert main(_argv(tmp_path)) == exitcodes.OK
    assert _calls(tmp_path)[0]["prompt"] == "--dangerously-skip-permissions"  # a prompt, not a flag


def test_a_prompt_on_stdin(tmp_path: Path) -> None:
    _cases(tmp_path, ["-n line one\nline two"])
    _config(tmp_path, ["--format", "claude-json", "--cost", "0", "--stdin"], prompt_via="stdin")
    assert main(_argv(tmp_path)) == exitcodes.OK
    assert _calls(tmp_path)[0]["prompt"] == "-n line one\nline two"


def test_a_nul_in_a_prompt_is_refused_by_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _cases(tmp_path, ["fine", "bad\x00prompt"])
    _config(tmp_path, ["--format", "claude-json", "--cost", "0"])
    assert main(_argv(tmp_path)) == exitcodes.USAGE
    assert "case 'c2': its prompt holds a NUL character" in capsys.readouterr().err
    assert _calls(tmp_path) == []  # refused before the first call


def test_output_past_the_limit_ends_the_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _cases(tmp_path, ["Q1"])
    _config(tmp_path, ["--format", "claude-json", "--cost", "0", "--flood", "2000000"])
    assert main(_argv(tmp_path, "--retries", "0", "--max-output-bytes", "100000")) == exitcodes.RUNNER
    assert "printed more than 100,000 bytes (--max-output-bytes)" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
def test_a_backoff_that_is_not_a_duration_is_a_usage_error(tmp_path: Path, value: str) -> None:
    _cases(tmp_path, ["Q1"])
    _config(tmp_path, ["--format", "claude-json", "--cost", "0"])
    argv = _argv(tmp_path)
    argv[argv.index("--backoff") + 1] = value
    assert main(argv) == exitcodes.USAGE
    assert _calls(tmp_path) == []


def test_a_whole_last_row_without_its_newline_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _cases(tmp_path, ["Q1", "Q2"])
    _config(tmp_path, ["--format", "claude-json", "--cost", "0"])
    row = {
        "case_id": "c1",
        "trial": 1,
        "condition": "baseline",
        "runner": "fake",
        "response": "r",
        "usage": {},
        "cost_usd": 0,
    }
    (tmp_path / "out.jsonl").write_text(json.dumps(row))  # no final newline
    assert main(_argv(tmp_path)) == exitcodes.OK
    assert [c["prompt"] for c in _calls(tmp_path)] == ["Q2"]  # c1 was not run again
    assert [r["case_id"] for r in _rows(tmp_path)] == ["c1", "c2"]
    assert "Repaired" not in capsys.readouterr().err


def test_the_candidate_prompt_is_the_references_byte_for_byte(tmp_path: Path) -> None:
    skill = tmp_path / "SKILL.md"
    skill.write_bytes(b"---\r\nname: terse\r\n---\r\nBe terse.\x0cNew page.\r\n---\nStill the body.\n")
    # By hand, from the reference's template: the skill as read_text() gives it (CRLF -> LF,
    # the frontmatter and the form feed kept, the later '---' kept), then the task.
    expected = (
        "Follow the response-style skill below while completing the task. "
        "Do not discuss or quote the skill.\n\n"
        "<response_style>\n---\nname: terse\n---\nBe terse.\x0cNew page.\n---\nStill the body.\n\n"
        "</response_style>\n\n<task>\nFix the bug.\n</task>"
    )
    assert condition_prompt("Fix the bug.", skill_text("candidate", skill)) == expected
    assert condition_prompt("Fix the bug.", skill_text("baseline", skill)) == "Fix the bug."


formats = st.sampled_from(["text", "claude-json", "codex-jsonl"])
outputs = st.one_of(
    st.text(max_size=200),
    st.builds(
        json.dumps,
        st.recursive(
            st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=5),
            lambda i: (
                st.lists(i, max_size=3)
                | st.dictionaries(
                    st.sampled_from(["result", "usage", "total_cost_usd", "type", "item"]), i, max_size=4
                )
            ),
            max_leaves=8,
        ),
    ),
    st.lists(
        st.sampled_from(
            [
                '{"type": "item.completed", "item": {"type": "agent_message", "text": "x"}}',
                '{"type": "turn.completed", "usage": 5}',
                '{"item": null}',
                "[]",
                "{",
                '{"type": "item.completed", "item": "s"}',
            ]
        ),
        max_size=4,
    ).map("\n".join),
)


@pytest.mark.long
@settings(max_examples=300, deadline=None)
@given(output=outputs, response_format=formats)
def test_any_runner_output_is_a_response_or_a_named_failure(output: str, response_format: str) -> None:
    try:
        text, usage, cost = parse(output, response_format)
    except ResponseUnreadable as exc:
        assert str(exc).startswith(f"output is not {response_format}")
        return
    assert isinstance(text, str)
    json.dumps(usage)  # written to the row as the CLI gave it (any JSON value), as the reference does
    assert cost is None or (isinstance(cost, (int, float)) and cost >= 0 and cost == cost)
