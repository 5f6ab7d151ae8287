"""`run --stop-when-decided` end to end: the stub and a fake paid CLI, the rows not run, refusals."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.rows import NotRunRow, read_responses

FAKE = str(Path(__file__).parent / "fakes" / "fake_cli.py")
# passes on a candidate answer (the stub's, or the fake CLI's echo of the wrapped prompt), fails on
# the baseline's "no"
MODULE = """
def answered(answer):
    return answer != "no"


CHECKS = {%s}
"""


def _workspace(root: Path, n: int, *, base_cost: float | None = 0.5, trials: int = 1) -> Path:
    ids = [f"case-{i:02d}" for i in range(1, n + 1)]
    cases = [
        {"id": i, "category": "c", "prompt": f"Question {i}", "risk": "low", "criteria": ["ok"]} for i in ids
    ]
    (root / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    (root / "checks.py").write_text(MODULE % ", ".join(f"{i!r}: [('ok', answered)]" for i in ids))
    (root / "skill.md").write_text("Be terse.\n")
    rows = []
    for i in ids:
        for trial in range(1, trials + 1):
            row: dict[str, Any] = {
                "case_id": i,
                "trial": trial,
                "condition": "baseline",
                "runner": "x",
                "response": "no",
            }
            if base_cost is not None:
                row["cost_usd"] = base_cost
            rows.append(row)
    (root / "base.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def _run(root: Path, *args: str) -> int:
    return main(
        [
            "run",
            "--condition",
            "candidate",
            "--condition-skill",
            str(root / "skill.md"),
            "--cases",
            str(root / "cases.jsonl"),
            "--output",
            str(root / "out.jsonl"),
            "--backoff",
            "0",
            *args,
        ]
    )


def _curtailed(root: Path, *args: str) -> int:
    return _run(
        root,
        "--stop-when-decided",
        "--baseline",
        str(root / "base.jsonl"),
        "--suite",
        str(root / "checks.py"),
        *args,
    )


def _rows(root: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (root / "out.jsonl").read_text().splitlines()]


def test_thirty_cases_all_up_stop_after_21(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every candidate answer passes and every baseline one fails: each case's Δ is +1. After 21
    up and 9 to come, even 9 down leaves p = 2 · P(Bin(30) ≤ 9) = 0.0428 < 0.05 (test_curtail.py
    works it): 21 rows run, 9 recorded as not run, in one file of 30 whole rows."""
    root = _workspace(tmp_path, 30)
    assert _curtailed(root, "--runner", "stub", "--trials", "1") == exitcodes.OK
    rows = _rows(root)
    ran = [r for r in rows if "response" in r]
    skipped = [r for r in rows if "not_run" in r]
    assert (len(ran), len(skipped), len(rows)) == (21, 9, 30)
    assert {r["case_id"] for r in rows} == {f"case-{i:02d}" for i in range(1, 31)}
    why = "stopped after 21 of 30 cases: the sign-test verdict was already certain (better)"
    assert all(
        r["not_run"] == why and set(r) == {"case_id", "trial", "condition", "runner", "not_run"}
        for r in skipped
    )
    err = capsys.readouterr().err
    assert (
        "stopped after 21 of 30 cases: the sign-test verdict was already certain: better, 21 up, 0 down"
        in err
    )
    assert 'Not run (9 rows, recorded with "not_run" in the output): ' in err
    assert all(f"{r['case_id']} trial 1" in err for r in skipped)
    assert "Money not spent: about $0.0000 (9 calls at $0.0000" in err  # the stub costs nothing
    # the cases ran in a random order, not the catalog's: the ones left are not its tail
    assert [r["case_id"] for r in ran] != sorted(r["case_id"] for r in ran)
    # every reader skips the rows not run, and check counts them
    not_run: list[NotRunRow] = []
    assert len(read_responses(root / "out.jsonl", not_run)) == 21 and len(not_run) == 9
    assert (
        main(
            [
                "check",
                str(root / "out.jsonl"),
                "--cases",
                str(root / "cases.jsonl"),
                "--suite",
                str(root / "checks.py"),
            ]
        )
        == exitcodes.OK
    )
    said = "9 response rows recorded as not run (run --stop-when-decided): "
    assert said + "not checked." in capsys.readouterr().err
    sheet, key = root / "sheet.jsonl", root / "key.jsonl"
    out, cases = str(root / "out.jsonl"), str(root / "cases.jsonl")
    assert main(["blind", out, "--sheet", str(sheet), "--key", str(key), "--cases", cases]) == exitcodes.OK
    assert said + "not on the sheet." in capsys.readouterr().err
    assert len(sheet.read_text().splitlines()) == 21
    page = root / "report.html"
    assert main(["report", "--cases", cases, "--responses", out, "--out", str(page)]) == exitcodes.OK
    assert said + "not in the report." in capsys.readouterr().err


def test_a_rerun_starts_nothing_more(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Resumed, the output's rows are counted again: the verdict is already certain, the rows not
    run are already recorded (done), so nothing starts and nothing is written twice."""
    root = _workspace(tmp_path, 30)
    assert _curtailed(root, "--runner", "stub", "--trials", "1") == exitcodes.OK
    before = (root / "out.jsonl").read_text()
    capsys.readouterr()
    assert _curtailed(root, "--runner", "stub", "--trials", "1") == exitcodes.OK
    assert (root / "out.jsonl").read_text() == before
    err = capsys.readouterr().err
    assert "stopped after 21 of 30 cases" in err and "recorded so by an earlier run" in err


def test_trials_of_a_case_run_together(tmp_path: Path) -> None:
    """Two trials a case: a case counts once both are in; the rows come case by case."""
    root = _workspace(tmp_path, 30, trials=2)
    assert _curtailed(root, "--runner", "stub", "--trials", "2") == exitcodes.OK
    ran = [(r["case_id"], r["trial"]) for r in _rows(root) if "response" in r]
    assert len(ran) == 42  # 21 cases, both trials
    assert all(ran[at][0] == ran[at + 1][0] and ran[at][1] == 1 for at in range(0, 42, 2))


@pytest.mark.long
def test_a_paid_cli_leaves_no_reservation_open(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """10 cases, all up: after 9 up and 1 to come, 9 up 1 down gives 2 · 11/1024 = 0.0215 < 0.05
    (after 8: 8 up 2 down, 2 · 56/1024 = 0.109, not yet): 9 calls at $0.01, the 10th never
    starts, every reservation in the ledger settled, and $0.0100 said not spent."""
    root = _workspace(tmp_path, 10)
    calls = root / "calls.jsonl"
    command = [sys.executable, FAKE, "--format", "claude-json", "--cost", "0.01", "--calls", str(calls)]
    (root / "runners.json").write_text(
        json.dumps({"fake": {"command": command, "response_format": "claude-json"}})
    )
    args = ["--runner", "fake", "--runner-config", str(root / "runners.json"), "--trials", "1"]
    assert _curtailed(root, *args, "--assume-call-usd", "0.05") == exitcodes.OK
    assert len(calls.read_text().splitlines()) == 9
    rows = _rows(root)
    assert sum("response" in r for r in rows) == 9 and sum("not_run" in r for r in rows) == 1
    ledger = [
        json.loads(line) for line in (root / "out.jsonl.ledger").read_text().split("\n") if line.strip()
    ]
    reserved = {e["id"] for e in ledger if "reserve" in e}
    settled = {e["id"] for e in ledger if "charged" in e}
    assert reserved == settled and len(reserved) == 9
    err = capsys.readouterr().err
    assert "stopped after 9 of 10 cases" in err and "Money not spent: about $0.0100 (1 call at $0.0100" in err


def test_five_cases_start_no_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No sign test over 5 cases reaches 5% (2/32 = 0.0625): inconclusive before the first call;
    with no cost anywhere to price a call by, the money not spent is unknown."""
    root = _workspace(tmp_path, 5, base_cost=None)
    assert _curtailed(root, "--runner", "stub", "--trials", "1") == exitcodes.OK
    assert all("not_run" in r for r in _rows(root)) and len(_rows(root)) == 5
    err = capsys.readouterr().err
    assert "stopped after 0 of 5 cases: the sign-test verdict was already certain: inconclusive" in err
    assert "Money not spent: unknown" in err


def test_when_every_case_runs_the_verdict_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """8 cases all up: after 7 up and 1 to come, 7 up 1 down gives 2 · 9/256 = 0.070: not
    certain, so all 8 run; 8 up, 0 down: p = 2/256: better."""
    root = _workspace(tmp_path, 8)
    assert _curtailed(root, "--runner", "stub", "--trials", "1") == exitcodes.OK
    assert len(_rows(root)) == 8 and all("response" in r for r in _rows(root))
    assert "every case ran; the sign-test verdict is better: 8 up, 0 down" in capsys.readouterr().err


def test_a_run_stopped_by_its_budget_says_the_verdict_is_not_yet_certain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A call cap of 3 on 30 cases: 3 run, the verdict is not certain, nothing is recorded not run."""
    root = _workspace(tmp_path, 30)
    command = [sys.executable, FAKE, "--format", "text"]
    (root / "runners.json").write_text(json.dumps({"fake": {"command": command, "response_format": "text"}}))
    args = ["--runner", "fake", "--runner-config", str(root / "runners.json"), "--trials", "1"]
    assert _curtailed(root, *args, "--allow-unmetered", "--max-calls", "3") == exitcodes.BUDGET
    assert len(_rows(root)) == 3 and all("response" in r for r in _rows(root))
    assert "3 of 30 cases complete and the verdict not yet certain" in capsys.readouterr().err


def test_two_jobs_write_each_row_once(tmp_path: Path) -> None:
    """With calls in flight when the verdict becomes certain, those finish; every (case, trial)
    is in the output once, run or not run, and at least the 21 needed ran."""
    root = _workspace(tmp_path, 30)
    assert _curtailed(root, "--runner", "stub", "--trials", "1", "--jobs", "2") == exitcodes.OK
    rows = _rows(root)
    assert sorted(r["case_id"] for r in rows) == [f"case-{i:02d}" for i in range(1, 31)]
    assert sum("response" in r for r in rows) >= 21


@pytest.mark.parametrize(
    ("args", "said"),
    [
        pytest.param(["--condition", "baseline"], "use --condition candidate", id="baseline-condition"),
        pytest.param(["--no-baseline"], "needs --baseline", id="no-baseline"),
        pytest.param(["--shard", "1/2"], "cannot run one --shard", id="shard"),
    ],
)
def test_refusals_with_the_flag(
    tmp_path: Path, args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _workspace(tmp_path, 6)
    argv = ["--runner", "stub", "--stop-when-decided", "--suite", str(root / "checks.py")]
    if args != ["--no-baseline"]:
        argv += ["--baseline", str(root / "base.jsonl"), *args]
    assert _run(root, *argv) == exitcodes.USAGE
    assert said in capsys.readouterr().err
    assert not (root / "out.jsonl").exists()


@pytest.mark.parametrize("option", ["--baseline", "--suite", "--seed", "--anytime"])
def test_its_options_alone_are_refused(
    tmp_path: Path, option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _workspace(tmp_path, 6)
    value = {"--seed": ["3"], "--anytime": []}.get(option, [str(root / "base.jsonl")])
    assert _run(root, "--runner", "stub", option, *value) == exitcodes.USAGE
    assert f"{option} only mean something with --stop-when-decided" in capsys.readouterr().err


def test_a_case_without_a_baseline_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _workspace(tmp_path, 6)
    lines = (root / "base.jsonl").read_text().splitlines()
    (root / "base.jsonl").write_text("\n".join(lines[1:]) + "\n")
    assert _curtailed(root, "--runner", "stub", "--trials", "1") == exitcodes.USAGE
    assert "no baseline check result for 1 case (case-01)" in capsys.readouterr().err
    assert not (root / "out.jsonl").exists()


def test_the_default_suite_is_evals_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _workspace(tmp_path, 6)
    (root / "evals").mkdir()
    (root / "checks.py").rename(root / "evals" / "checks.py")
    monkeypatch.chdir(root)
    argv = [
        "--runner",
        "stub",
        "--trials",
        "1",
        "--stop-when-decided",
        "--baseline",
        str(root / "base.jsonl"),
    ]
    assert _run(root, *argv) == exitcodes.OK
    assert len(_rows(root)) == 6


def test_a_resumed_run_counts_only_its_own_candidate_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Already in the output: 3 of this runner's candidate rows (counted: 3 cases up), one of
    another runner, a trial past --trials and a case outside the catalog (none of them counted).
    The run starts the other 27 cases' calls and stops as a fresh one would, after 21 complete."""
    root = _workspace(tmp_path, 30)
    earlier = [
        {
            "case_id": f"case-{i:02d}",
            "trial": 1,
            "condition": "candidate",
            "runner": "stub",
            "response": "yes",
        }
        for i in (1, 2, 3)
    ]
    earlier += [
        {"case_id": "case-04", "trial": 1, "condition": "candidate", "runner": "other", "response": "yes"},
        {"case_id": "case-05", "trial": 2, "condition": "candidate", "runner": "stub", "response": "yes"},
        {"case_id": "gone", "trial": 1, "condition": "candidate", "runner": "stub", "response": "yes"},
    ]
    (root / "out.jsonl").write_text("".join(json.dumps(r) + "\n" for r in earlier))
    assert _curtailed(root, "--runner", "stub", "--trials", "1") == exitcodes.OK
    new = _rows(root)[len(earlier) :]
    assert sum("response" in r for r in new) == 18 and sum("not_run" in r for r in new) == 9
    assert "stopped after 21 of 30 cases" in capsys.readouterr().err


def test_anytime_stops_once_the_e_process_reaches_20(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --anytime, 30 cases all up: the e-process is 14.37 after 7 and 24.91 after 8
    (test_curtail.py works both), so 8 run and 22 are recorded as not run."""
    root = _workspace(tmp_path, 30)
    assert _curtailed(root, "--runner", "stub", "--trials", "1", "--anytime") == exitcodes.OK
    rows = _rows(root)
    assert sum("response" in r for r in rows) == 8 and sum("not_run" in r for r in rows) == 22
    why = "stopped after 8 of 30 cases: the e-process reached 24.9 (at least 1/α = 20) (better)"
    assert {r["not_run"] for r in rows if "not_run" in r} == {why}
    err = capsys.readouterr().err
    assert (
        "stopped after 8 of 30 cases: the e-process reached 24.9 (at least 1/α = 20): better, 8 up, 0 down "
        "(e-process: anytime-valid at 5%)."
    ) in err


@pytest.mark.parametrize(
    ("cases", "verdict"),
    [
        pytest.param(6, "inconclusive", id="never-reaches-20"),  # 6 up: E = 8.41
        pytest.param(8, "better", id="reaches-20-with-the-last-case"),  # 8 up: E = 24.91
    ],
)
def test_anytime_when_every_case_runs(
    tmp_path: Path, cases: int, verdict: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every case runs when the e-process reaches 20 only with the last one (or never); the
    verdict is the e-process's, never the sign test's (8 up, 0 down: p = 2/256 would say better;
    6 up: p = 2/64 too, yet the e-process says inconclusive)."""
    root = _workspace(tmp_path, cases)
    assert _curtailed(root, "--runner", "stub", "--trials", "1", "--anytime") == exitcodes.OK
    assert all("response" in r for r in _rows(root)) and len(_rows(root)) == cases
    said = f"every case ran; the e-process's verdict is {verdict}: {cases} up, 0 down (e-process"
    assert said in capsys.readouterr().err


def test_audit_of_a_curtailed_run_says_so_and_gives_its_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The 30-case run that stopped after 21: `check` on the baseline and on the candidate's
    output, then `audit --responses` on the output: the 9 rows not run are counted, the run's
    reason repeated, and the exact sign test over the 21 cases' Δ (all up: p = 2/2^21 = 0.0000)
    says better, the run's verdict."""
    root = _workspace(tmp_path, 30)
    assert _curtailed(root, "--runner", "stub", "--trials", "1") == exitcodes.OK
    both = []
    for name in ("base", "out"):
        results = root / f"{name}-results.jsonl"
        argv = ["check", str(root / f"{name}.jsonl"), "--cases", str(root / "cases.jsonl")]
        main([*argv, "--suite", str(root / "checks.py"), "--output", str(results)])
        both.append(results.read_text())
    (root / "results.jsonl").write_text("".join(both))
    capsys.readouterr()
    assert (
        main(["audit", str(root / "results.jsonl"), "--responses", str(root / "out.jsonl")]) == exitcodes.OK
    )
    out = capsys.readouterr().out
    assert "Exact sign test over the cases' Δ: better (21 up, 0 down, p = 0.0000)." in out
    assert "9 response rows recorded as not run (run --stop-when-decided): not audited." in out
    assert (
        "The run that wrote them said: stopped after 21 of 30 cases: the sign-test verdict was already "
        "certain (better)."
    ) in out
