"""Issue 21's promises about runs, under the attack's own inputs: no dollar unaccounted, nothing
left running, one writer per file by identity.

Money is counted from the provider's side: tests/fakes/cheating_cli.py appends every dollar it
spends to a file the moment it spends it (before it hangs, fails or prints garbage), so what was
really spent is summed, not what adhd-evals believed.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.files import Held, only_writer
from adhd_evals.runs.calling import policy, process, watchdog

CHEAT = str(Path(__file__).parent / "fakes" / "cheating_cli.py")
FAKE = str(Path(__file__).parent / "fakes" / "fake_cli.py")


def _cases(work: Path, count: int) -> Path:
    path = work / "cases.jsonl"
    rows = [
        {"id": f"c{n}", "category": "c", "prompt": f"Q{n}", "risk": "low", "criteria": ["x"]}
        for n in range(1, count + 1)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _config(work: Path, cheat: list[str], **spec: Any) -> Path:
    path = work / "runners.json"
    # -S: the fake needs only the standard library, and started without site-packages it is up in
    # milliseconds even where coverage measures every Python process (.ci/run), so a test's
    # 0.5 s --timeout still comes after the call has spent (seen failing under coverage at load 17)
    command = [
        sys.executable,
        "-S",
        CHEAT,
        "--provider",
        str(work / "provider.jsonl"),
        "--counter",
        str(work / "counter"),
        *cheat,
    ]
    path.write_text(json.dumps({"cheat": {"command": command, "response_format": "claude-json", **spec}}))
    return path


def _argv(work: Path, *extra: str, command: str = "run") -> list[str]:
    return [
        command,
        "--runner",
        "cheat",
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
        "--budget-usd",
        "1",
        *extra,
    ]


def _provider_spent(work: Path) -> float:
    path = work / "provider.jsonl"
    return sum(json.loads(line)["spent"] for line in path.read_text().splitlines()) if path.exists() else 0.0


def _believed(work: Path) -> float:
    """Recorded (rows' cost_usd) plus charged (the ledger's settled charges and open reservations)."""
    out = work / "out.jsonl"
    recorded: float = (
        sum(json.loads(line).get("cost_usd") or 0 for line in out.read_text().splitlines())
        if out.exists()
        else 0
    )
    charged = 0.0
    open_: dict[str, float] = {}  # reservation id -> the amount held
    ledger = work / "out.jsonl.ledger"
    for line in ledger.read_text().splitlines() if ledger.exists() else []:
        if not line.strip():
            continue
        entry = json.loads(line)
        if "reserve" in entry:
            open_[entry["id"]] = entry["reserve"]
        else:
            open_.pop(entry["id"], None)
            charged += entry["charged"]
    return recorded + charged + sum(open_.values())


# --- money -------------------------------------------------------------------------------------


@pytest.mark.long
@pytest.mark.parametrize("jobs", ["1", "8"])
def test_a_free_first_call_then_rising_costs_stay_within_the_budget(tmp_path: Path, jobs: str) -> None:
    """Call 1 costs $0, call n costs (n-1) x $0.05 up to $0.25 (the runner's assume_call_usd).
    By hand: every call holds max(dearest, $0.25) = $0.25, so at most 4 are ever held at once
    and what they spend never passes $1; the old rule (hold the dearest: $0 after call 1) let
    all 8 start at once, and rising costs went on past the budget."""
    _cases(tmp_path, 16)
    _config(tmp_path, ["--first-free", "--rise", "0.05", "--cap", "0.25"], assume_call_usd=0.25)
    assert main(_argv(tmp_path, "--jobs", jobs)) == exitcodes.BUDGET
    assert 0 < _provider_spent(tmp_path) <= 1.0 + 1e-9
    assert _believed(tmp_path) == pytest.approx(_provider_spent(tmp_path))  # every dollar accounted


@pytest.mark.long
@pytest.mark.parametrize("jobs", ["1", "8"])
def test_calls_that_spend_then_time_out_are_charged_their_reservation(
    tmp_path: Path, jobs: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every call spends $0.25 and hangs; --timeout ends it. By hand: each attempt is charged the
    $0.25 it held (its cost is unknown), so after 4 attempts $1 is charged and the run stops for
    the budget, having really spent $1.00 (the old rule believed $0 and kept calling)."""
    _cases(tmp_path, 3)
    _config(tmp_path, ["--cost", "0.25", "--then", "hang"], assume_call_usd=0.25)
    code = main(_argv(tmp_path, "--jobs", jobs, "--timeout", "0.5", "--retries", "5"))
    assert code == exitcodes.BUDGET
    assert _provider_spent(tmp_path) == pytest.approx(1.0)
    assert _believed(tmp_path) == pytest.approx(1.0)
    err = capsys.readouterr().err
    assert "for 4 calls that failed, timed out or printed unreadable output" in err
    assert "charged the reservation: cost unknown" in err


@pytest.mark.long
@pytest.mark.parametrize("jobs", ["1", "8"])
def test_unreadable_output_after_spending_is_charged_what_can_be_known(tmp_path: Path, jobs: str) -> None:
    """A flagged CLI spends what it is told, then prints garbage (no readable cost). Issue 35: an
    attempt is charged what can be known — no cost seen, no floor: the budget's even share per
    planned call ($1 / 2 cases = $0.50) — capped at what it held, never all the flag handed it.
    By hand, --jobs 1: told $1 and $0.50, charged $0.50 each: $1 believed, the budget stops the run
    (exit 7); the CLI really spent $1.50 (it reported none of it: the documented limit).
    --jobs 8: told $1/8, then $0.875/8, ... (one at a time), each charged what it was told (less than
    $0.50): 4 attempts, the case fails (exit 6); real spend within what is believed, within $1."""
    _cases(tmp_path, 2)
    _config(tmp_path, ["--cost", "5", "--then", "garbage"], budget_flag="--max-budget")
    code = main(_argv(tmp_path, "--jobs", jobs, "--retries", "3"))
    assert code == (exitcodes.BUDGET if jobs == "1" else exitcodes.RUNNER)
    assert _believed(tmp_path) <= 1.0 + 1e-9
    if jobs == "1":
        assert _provider_spent(tmp_path) == pytest.approx(1.5, abs=1e-3)
    else:  # a call the failure stopped before it spent is charged all the same: never less
        assert 0 < _provider_spent(tmp_path) <= _believed(tmp_path) + 1e-3


@pytest.mark.long
@pytest.mark.parametrize("jobs", ["1", "8"])
def test_a_cli_ignoring_its_budget_flag_gets_no_further_calls(
    tmp_path: Path, jobs: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every call spends $0.30 whatever it is told. By hand, --jobs 8: the first call runs alone
    (no call has yet kept to its share), told $1/8 = $0.125; it spends $0.30: the run stops, exit
    7, naming the runner; $0.30 spent. --jobs 1: told $1.00, $0.70, $0.40 (each within), then
    $0.10 is left, less than the dearest call ($0.30): no fourth call; $0.90 spent."""
    _cases(tmp_path, 8)
    _config(tmp_path, ["--cost", "0.30", "--ignore-flag"], budget_flag="--max-budget")
    assert main(_argv(tmp_path, "--jobs", jobs)) == exitcodes.BUDGET
    assert _provider_spent(tmp_path) == pytest.approx(0.30 if jobs == "8" else 0.90)
    if jobs == "8":
        assert "runner 'cheat' spent $0.3000 on one call where it was told $0.1250" in capsys.readouterr().err


def test_a_call_costing_more_than_it_held_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No budget flag, --assume-call-usd 0.10, every call costs $0.20. By hand: call 1 holds $0.10,
    reports $0.20: the run stops there (exit 7, the runner named), no second call."""
    _cases(tmp_path, 4)
    _config(tmp_path, ["--cost", "0.20"])
    assert main(_argv(tmp_path, "--assume-call-usd", "0.10")) == exitcodes.BUDGET
    assert (tmp_path / "counter").read_text() == "."  # one call
    err = capsys.readouterr().err
    assert "runner 'cheat' spent $0.2000 on one call where $0.1000 was reserved for it" in err
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 1  # its row is kept: it was paid for


def test_jobs_above_one_without_a_budget_flag_need_a_floor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _cases(tmp_path, 2)
    _config(tmp_path, ["--cost", "0.01"])
    assert main(_argv(tmp_path, "--jobs", "2")) == exitcodes.USAGE
    assert "say the most one call may cost with --assume-call-usd" in capsys.readouterr().err
    assert not (tmp_path / "counter").exists()
    assert main(_argv(tmp_path, "--jobs", "2", "--assume-call-usd", "0.01")) == exitcodes.OK


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_a_floor_that_is_not_dollars_is_refused(tmp_path: Path, value: str) -> None:
    _cases(tmp_path, 1)
    _config(tmp_path, ["--cost", "0.01"])
    assert main(_argv(tmp_path, "--assume-call-usd", value)) == exitcodes.USAGE
    assert not (tmp_path / "counter").exists()


def test_a_killed_runs_open_reservation_is_charged_on_resume(tmp_path: Path) -> None:
    """The ledger holds a reservation of $0.90 never settled (its run was killed mid-call). By
    hand: $0.10 is left of $1, less than the $0.25 a call holds: no call starts, exit 7."""
    _cases(tmp_path, 2)
    _config(tmp_path, ["--cost", "0.01"], assume_call_usd=0.25)
    (tmp_path / "out.jsonl.ledger").write_text(
        json.dumps({"id": "1-2-1", "reserve": 0.9, "condition": "baseline", "runner": "cheat"}) + "\n"
    )
    assert main(_argv(tmp_path)) == exitcodes.BUDGET
    assert not (tmp_path / "counter").exists()


@pytest.mark.parametrize("cost", ["NaN", "-Infinity", "Infinity", "-1", "true", '"0.5"'])
def test_an_earlier_row_with_a_cost_that_is_not_dollars_is_refused_by_line(
    tmp_path: Path, cost: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _cases(tmp_path, 2)
    _config(tmp_path, ["--cost", "0.01"])
    good = '{"case_id": "c1", "trial": 1, "condition": "baseline", "runner": "cheat", "response": "r", "cost_usd": 0.1}'
    (tmp_path / "out.jsonl").write_text(
        good + "\n" + good.replace("c1", "c2").replace("0.1}", cost + "}") + "\n"
    )
    assert main(_argv(tmp_path)) == exitcodes.INPUT
    err = capsys.readouterr().err
    assert f"out.jsonl:2: cost_usd is {json.dumps(json.loads(cost))}, not a finite number of dollars" in err
    assert not (tmp_path / "counter").exists()


def test_a_config_defining_stub_means_that_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reference's own regression test names its fake runner `stub`: the config wins, the
    command is called, and a response without a cost is refused as from any metered runner."""
    _cases(tmp_path, 1)
    config = tmp_path / "runners.json"
    config.write_text(
        json.dumps(
            {
                "stub": {
                    "command": [
                        sys.executable,
                        FAKE,
                        "--format",
                        "claude-json",
                        "--calls",
                        str(tmp_path / "calls.jsonl"),
                    ],
                    "response_format": "claude-json",
                }
            }
        )
    )
    argv = [
        "run",
        "--runner",
        "stub",
        "--runner-config",
        str(config),
        "--condition",
        "baseline",
        "--cases",
        str(tmp_path / "cases.jsonl"),
        "--output",
        str(tmp_path / "out.jsonl"),
        "--trials",
        "1",
        "--retries",
        "0",
    ]
    assert main(argv) == exitcodes.RUNNER
    assert "did not report dollar cost" in capsys.readouterr().err
    assert len((tmp_path / "calls.jsonl").read_text().splitlines()) == 1
    # a config without `stub`: the built-in one, no process at all
    config.write_text(json.dumps({"other": {"command": ["false"]}}))
    (tmp_path / "calls.jsonl").unlink()
    assert main(argv) == exitcodes.OK
    assert not (tmp_path / "calls.jsonl").exists()


# --- the smaller holes -------------------------------------------------------------------------


def test_a_lone_surrogate_is_never_sent_and_never_hangs() -> None:
    started = time.monotonic()
    outcome = process.call(["cat"], stdin_text="a\ud800b", timeout=5, max_output=1000, stop=threading.Event())
    assert time.monotonic() - started < 2
    assert (outcome.started, outcome.ended) == (False, "unsent")
    assert "lone surrogate (U+D800 at character 2)" in outcome.err


def test_a_lone_surrogate_in_a_stdin_prompt_is_refused_by_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cases.jsonl").write_text(
        '{"id": "c1", "category": "c", "prompt": "ab\\ud800", "risk": "low", "criteria": ["x"]}\n'
    )
    _config(tmp_path, ["--cost", "0.01"], prompt_via="stdin")
    code = main(_argv(tmp_path))
    # refused first by the catalog's rules (E110: the file's rows break them, exit 4), or here
    assert code in (exitcodes.USAGE, exitcodes.INPUT)
    assert "surrogate" in capsys.readouterr().err
    assert not (tmp_path / "counter").exists()


def test_max_output_bytes_is_bounded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _cases(tmp_path, 1)
    _config(tmp_path, ["--cost", "0.01"])
    assert main(_argv(tmp_path, "--max-output-bytes", "100000000000")) == exitcodes.USAGE
    assert "--max-output-bytes must be at most 1,073,741,824" in capsys.readouterr().err
    assert main(_argv(tmp_path, "--max-output-bytes", str(policy.MAX_OUTPUT_LIMIT))) == exitcodes.OK


def test_a_huge_error_line_is_cut_with_its_size_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CLI that fails printing one 2 MiB line: the message keeps 4,000 characters of it and
    says how big the output was (2,097,152 + its newline = 2,097,153 bytes)."""
    _cases(tmp_path, 1)
    (tmp_path / "runners.json").write_text(
        json.dumps(
            {
                "cheat": {
                    "command": [
                        sys.executable,
                        "-c",
                        "import sys; print('e' * 2097152, file=sys.stderr); sys.exit(3)",
                    ],
                    "response_format": "claude-json",
                    "assume_call_usd": 0.01,
                }
            }
        )
    )
    assert main(_argv(tmp_path, "--retries", "0")) == exitcodes.RUNNER
    err = capsys.readouterr().err
    assert "[output of 2,097,153 bytes; its last 4,000 characters follow]" in err
    assert len(err) < 6000


# --- one writer per file, by identity -----------------------------------------------------------


def test_a_symlink_and_a_hard_link_meet_the_same_lock(tmp_path: Path) -> None:
    output = tmp_path / "out.jsonl"
    output.write_text("")
    (tmp_path / "link.jsonl").symlink_to(output)
    os.link(output, tmp_path / "hard.jsonl")
    with only_writer(output):
        for other in ("link.jsonl", "hard.jsonl", "out.jsonl"):
            with pytest.raises(Held) as held, only_writer(tmp_path / other):
                pass
            assert held.value.holder == str(os.getpid())
    with only_writer(tmp_path / "hard.jsonl"):  # released: any name may take it
        pass


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_an_output_that_is_not_a_file_is_refused_not_waited_on(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The lock opens the output itself: a FIFO must be refused, never block the open."""
    _cases(tmp_path, 1)
    _config(tmp_path, ["--cost", "0.01"])
    output = tmp_path / "out.jsonl"
    os.mkfifo(output) if kind == "fifo" else output.mkdir()
    assert main(_argv(tmp_path)) in (exitcodes.OUTPUT, exitcodes.USAGE)
    assert "out.jsonl" in capsys.readouterr().err
    assert not (tmp_path / "counter").exists()


def test_a_run_without_calls_leaves_no_ledger(tmp_path: Path) -> None:
    _cases(tmp_path, 2)
    argv = [
        "run",
        "--runner",
        "stub",
        "--condition",
        "baseline",
        "--cases",
        str(tmp_path / "cases.jsonl"),
        "--output",
        str(tmp_path / "out.jsonl"),
        "--trials",
        "1",
    ]
    assert main(argv) == exitcodes.OK
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cases.jsonl", "out.jsonl"]


@pytest.mark.long
@pytest.mark.parametrize("name", ["symlink", "hard link"])
def test_two_runs_on_two_names_of_one_file_one_refuses(tmp_path: Path, name: str) -> None:
    _cases(tmp_path, 4)
    # The first run's calls wait on a file the test creates only once the second run has ended:
    # the first run holds its output for as long as the second one takes to start, however loaded
    # the machine (a fixed sleep raced with the second run's start-up).
    release = tmp_path / "release"
    _config(tmp_path, ["--cost", "0.01", "--hold", str(release)], assume_call_usd=0.01)
    output = tmp_path / "out.jsonl"
    output.write_text("")
    other = tmp_path / "other.jsonl"
    other.symlink_to(output) if name == "symlink" else os.link(output, other)
    first = subprocess.Popen(
        [sys.executable, "-m", "adhd_evals", *_argv(tmp_path)], stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 20
    while not (tmp_path / "counter").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    argv = _argv(tmp_path)
    argv[argv.index("--output") + 1] = str(other)
    second = subprocess.run(
        [sys.executable, "-m", "adhd_evals", *argv], capture_output=True, text=True, timeout=60
    )
    release.touch()
    _, first_err = first.communicate(timeout=60)
    assert first.returncode == 0, first_err
    assert second.returncode == exitcodes.USAGE
    assert f"is being written by another run (pid {first.pid})" in second.stderr
    rows = [json.loads(line) for line in output.read_text().splitlines()]
    assert sorted(r["case_id"] for r in rows) == ["c1", "c2", "c3", "c4"]  # each once
    assert _provider_spent(tmp_path) == pytest.approx(0.04)  # the budget spent once


# --- nothing left running ------------------------------------------------------------------------


def marked(marker: str) -> list[int]:
    """Live processes whose command line carries the marker (zombies have none)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _until(predicate: Any, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return bool(predicate())


def _judge_argv(work: Path) -> list[str]:
    """A blind sheet of 4 rows over the catalog, judged by the cheating CLI."""
    responses = work / "responses.jsonl"
    responses.write_text(
        "".join(
            json.dumps(
                {
                    "case_id": f"c{n}",
                    "trial": 1,
                    "condition": "baseline",
                    "runner": "m",
                    "response": f"answer {n}",
                }
            )
            + "\n"
            for n in range(1, 5)
        )
    )
    assert (
        main(
            [
                "blind",
                str(responses),
                "--sheet",
                str(work / "sheet.jsonl"),
                "--key",
                str(work / "key.jsonl"),
                "--cases",
                str(work / "cases.jsonl"),
            ]
        )
        == 0
    )
    return [
        "judge",
        str(work / "sheet.jsonl"),
        "--runner",
        "cheat",
        "--runner-config",
        str(work / "runners.json"),
        "--cases",
        str(work / "cases.jsonl"),
        "--output",
        str(work / "out.jsonl"),
        "--jobs",
        "2",
    ]


@pytest.mark.long
def test_a_judge_call_that_times_out_is_charged_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Four sheet rows; every judge call spends $0.25 and hangs past --timeout. By hand: each row
    is void and its call charged the $0.25 it held: $1.00 spent, and the summary says why. Every
    row void: the judge judged nothing, so judge exits with its own code (issue 31)."""
    _cases(tmp_path, 4)
    _config(tmp_path, ["--cost", "0.25", "--then", "hang"], assume_call_usd=0.25)
    argv = [*_judge_argv(tmp_path), "--timeout", "0.5", "--retries", "0", "--budget-usd", "1"]
    assert main(argv) == exitcodes.JUDGE_VOID
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert len(rows) == 4 and all("timed out" in row["void"] for row in rows)
    assert _provider_spent(tmp_path) == pytest.approx(1.0)
    err = capsys.readouterr().err
    assert "spent $1.0000" in err and "for 4 calls that failed" in err
    assert "charged the reservation: cost unknown" in err


def _start(work: Path, command: str, marker: str) -> tuple[subprocess.Popen[str], Path]:
    _cases(work, 4)
    _config(work, ["--cost", "0.01", "--sleep", "30", "--grandchild", marker], assume_call_usd=0.01)
    scratch = work / "tmp"
    scratch.mkdir()
    argv = _judge_argv(work) if command == "judge" else _argv(work, "--jobs", "2")
    runner = subprocess.Popen(
        [sys.executable, "-m", "adhd_evals", *argv],
        env={**os.environ, "TMPDIR": str(scratch)},
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    # one call, with its setsid grandchild: a runner without a budget flag starts one call at a
    # time until a call has come back within what it held (issue 35), and these calls sleep 30 s
    assert _until(lambda: len(marked(marker)) == 2), "a call with its setsid grandchild"
    return runner, scratch


@pytest.mark.long
@pytest.mark.parametrize("command", ["run", "judge"])
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_setsid_grandchildren_too(tmp_path: Path, command: str, sig: int, code: int) -> None:
    marker = f"adhd-evals-promise-{os.getpid()}-{command}-{sig}"
    runner, scratch = _start(tmp_path, command, marker)
    runner.send_signal(sig)
    _, err = runner.communicate(timeout=30)
    assert runner.returncode == code, err
    assert _until(lambda: marked(marker) == [], 2), marked(marker)
    assert list(scratch.iterdir()) == []


@pytest.mark.long
@pytest.mark.parametrize("command", ["run", "judge"])
def test_a_sigkilled_run_leaves_no_process_and_no_scratch(tmp_path: Path, command: str) -> None:
    """SIGKILL of adhd-evals (its whole process group, as a CI runner cancelling a job would):
    the calls die with it (PR_SET_PDEATHSIG), their setsid grandchildren are ended by the
    watchdog, and no scratch folder is left, before or after the next start."""
    marker = f"adhd-evals-promise-kill-{os.getpid()}-{command}"
    runner, scratch = _start(tmp_path, command, marker)
    os.killpg(runner.pid, signal.SIGKILL)
    runner.wait()
    assert _until(lambda: marked(marker) == []), marked(marker)
    assert _until(lambda: list(scratch.iterdir()) == [])
    again = subprocess.run(
        [
            sys.executable,
            "-m",
            "adhd_evals",
            "run",
            "--runner",
            "stub",
            "--condition",
            "baseline",
            "--cases",
            str(tmp_path / "cases.jsonl"),
            "--output",
            str(tmp_path / "stub.jsonl"),
            "--trials",
            "1",
        ],
        env={**os.environ, "TMPDIR": str(scratch)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert again.returncode == 0, again.stderr
    assert list(scratch.iterdir()) == []


PARENT = """
import sys, threading
from adhd_evals.runs.calling import process
process._start_watchdog = lambda: None  # the death signal alone, no watchdog to help it
if sys.argv[1] == "preexec":
    process._setpriv = lambda: None
process.call([sys.executable, "-c", "import time; time.sleep(3600)", sys.argv[2] + "-call"], stdin_text=None,
             timeout=None, max_output=1000, stop=threading.Event())
"""


@pytest.mark.parametrize("launch", ["setpriv", "preexec"])
def test_a_calls_leader_dies_with_a_sigkilled_parent(tmp_path: Path, launch: str) -> None:
    """PR_SET_PDEATHSIG on the leader, through `setpriv --pdeathsig KILL` where it exists and a
    preexec_fn where it does not: SIGKILL of the parent takes the call with it."""
    if launch == "setpriv" and not process._setpriv():
        pytest.skip("no setpriv here")
    marker = f"adhd-evals-promise-pdeath-{os.getpid()}-{launch}"
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, launch, marker], env={**os.environ, "TMPDIR": str(tmp_path)}
    )
    # The call carries "<marker>-call"; the parent's own command line (and a forked child's,
    # before its exec) carries only "<marker>", so the parent is never counted as its call.
    call = f"{marker}-call"
    assert _until(lambda: len(marked(call)) == 1)
    parent.kill()
    parent.wait()
    assert _until(lambda: marked(call) == [], 20)  # a bound on the wait, generous for a loaded CI machine


def test_a_command_that_does_not_exist_is_not_charged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It never started, so nothing can have been spent: released, not charged (believed $0)."""
    _cases(tmp_path, 1)
    (tmp_path / "runners.json").write_text(
        json.dumps(
            {
                "cheat": {
                    "command": [str(tmp_path / "no-such-cli")],
                    "response_format": "claude-json",
                    "assume_call_usd": 0.25,
                }
            }
        )
    )
    assert main(_argv(tmp_path, "--retries", "1")) == exitcodes.RUNNER
    assert f"cannot start {tmp_path / 'no-such-cli'}: No such file or directory" in capsys.readouterr().err
    assert _believed(tmp_path) == 0


@pytest.mark.long
def test_the_next_start_sweeps_what_a_dead_owner_left(tmp_path: Path) -> None:
    """A folder named for an owner that is not running (pid 2^22+1 is past Linux's pid_max
    default), and a process tagged as one of its calls: the next start ends the process,
    removes the folder and names it."""
    scratch = tmp_path / "tmp"
    (scratch / f"{watchdog.SCRATCH_PREFIX}4194305-12345-abc" / "cwd").mkdir(parents=True)
    marker = f"adhd-evals-promise-sweep-{os.getpid()}"
    orphan = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(3600)", marker],
        env={**os.environ, watchdog.TAG: "4194305-12345/1/"},
    )
    _cases(tmp_path, 1)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "adhd_evals",
            "run",
            "--runner",
            "stub",
            "--condition",
            "baseline",
            "--cases",
            str(tmp_path / "cases.jsonl"),
            "--output",
            str(tmp_path / "o.jsonl"),
            "--trials",
            "1",
        ],
        env={**os.environ, "TMPDIR": str(scratch)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert orphan.wait(timeout=10) == -signal.SIGKILL
    assert list(scratch.iterdir()) == []
    assert (
        f"{watchdog.SCRATCH_PREFIX}4194305-12345-abc: a scratch folder of adhd-evals pid 4194305"
        in done.stderr
    )


# --- the attack's own style, at scale -------------------------------------------------------------


def _count(counter: Path) -> int:
    return counter.stat().st_size if counter.exists() else 0


FUZZ = int(os.environ.get("ADHD_EVALS_FUZZ", "4"))  # kill/resume cycles; the figure is 200
CYCLES_PER_OUTPUT = 8  # then a fresh output: killed reservations are charged, and budgets run out
BUDGET = 1.0  # 48 rows at up to $0.02, and up to 8 x $0.02 charged per kill: it binds late in an output


def _kill_mid_run(work: Path, scratch: Path, delay: float) -> bool:
    """Start (or resume) the run, wait for a call to start, then SIGKILL its group after `delay`;
    whether it was still running when killed."""
    argv = _argv(work, "--jobs", "8", "--trials", "2", "--timeout", "0.4", "--retries", "1")
    argv[argv.index("--budget-usd") + 1] = str(BUDGET)
    before = _count(work / "counter")
    runner = subprocess.Popen(
        [sys.executable, "-m", "adhd_evals", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "TMPDIR": str(scratch)},
        start_new_session=True,
    )
    _until(lambda: _count(work / "counter") > before or runner.poll() is not None, 3)
    time.sleep(delay)
    running = runner.poll() is None
    with contextlib.suppress(ProcessLookupError):  # it may have finished: the budget spent
        os.killpg(runner.pid, signal.SIGKILL)
    runner.wait()
    return running


@pytest.mark.long
def test_kill_and_resume_a_cheating_cli_never_overspends_nor_orphans(tmp_path: Path) -> None:
    """`run --jobs 8` over a CLI that cheats every way at once (call 1 free, then rising to the
    floor; some calls print garbage, fail or hang after spending; each leaves a setsid grandchild),
    SIGKILLed (its whole group) at a random moment and resumed, ADHD_EVALS_FUZZ times. After
    every kill: what the provider was paid never passes the budget, and no process of the
    calls' is alive once the watchdog has run; at the end no scratch folder remains."""
    import random

    chooser = random.Random(21)
    marker = f"adhd-evals-promise-fuzz-{os.getpid()}"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    overspent = orphaned = killed = 0
    for cycle in range(FUZZ):
        work = tmp_path / f"output-{cycle // CYCLES_PER_OUTPUT}"
        if not work.exists():
            work.mkdir()
            _cases(work, 24)
            _config(
                work,
                [
                    "--first-free",
                    "--rise",
                    "0.005",
                    "--cap",
                    "0.02",
                    "--mix",
                    "--sleep",
                    "0.05",
                    "--grandchild",
                    marker,
                ],
                assume_call_usd=0.02,
            )
        killed += _kill_mid_run(work, scratch, chooser.uniform(0, 0.8))
        overspent += _provider_spent(work) > BUDGET + 1e-9
        orphaned += not _until(lambda: marked(marker) == [], 5)
    calls = sum(_count(c) for c in tmp_path.glob("output-*/counter"))
    assert _until(lambda: list(scratch.iterdir()) == [], 5), list(scratch.iterdir())
    spent = sum(_provider_spent(w) for w in tmp_path.glob("output-*"))
    print(
        f"\nfuzz: {FUZZ} kill/resume cycles ({killed} killed mid-run), {calls} calls, ${spent:.2f} paid over "
        f"{len(list(tmp_path.glob('output-*')))} outputs of ${BUDGET} each: {overspent} overspent, {orphaned} orphaned"
    )
    assert (overspent, orphaned) == (0, 0)
