"""Crash safety: SIGKILL a --jobs 4 run at random moments, many times, then finish it."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

FAKE = str(Path(__file__).parent / "fakes" / "fake_cli.py")


@pytest.mark.long
def test_killed_runs_resume_to_every_row_exactly_once(tmp_path: Path) -> None:
    cases = [
        {"id": f"case-{n}", "category": "c", "prompt": f"Q{n}", "risk": "low", "criteria": ["x"]}
        for n in range(12)
    ]
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    (tmp_path / "runners.json").write_text(
        json.dumps(
            {
                "slow": {
                    "command": [
                        sys.executable,
                        FAKE,
                        "--format",
                        "claude-json",
                        "--cost",
                        "0",
                        "--sleep",
                        "0.03",
                    ],
                    "response_format": "claude-json",
                    "assume_call_usd": 0.01,
                }
            }
        )
    )
    output = tmp_path / "out.jsonl"
    argv = [
        sys.executable,
        "-m",
        "adhd_evals",
        "run",
        "--runner",
        "slow",
        "--runner-config",
        str(tmp_path / "runners.json"),
        "--condition",
        "baseline",
        "--cases",
        str(tmp_path / "cases.jsonl"),
        "--output",
        str(output),
        "--trials",
        "3",
        "--jobs",
        "4",
        "--backoff",
        "0",
    ]
    chooser = random.Random(20261130)
    for _ in range(10):
        process = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        time.sleep(chooser.uniform(0.05, 0.6))
        os.killpg(process.pid, signal.SIGKILL)  # the runner and its in-flight CLIs, mid-write or not
        process.wait()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in output.read_text().splitlines()]  # every line parses
    keys = [(r["case_id"], r["trial"]) for r in rows]
    assert sorted(keys) == sorted((c["id"], t) for c in cases for t in (1, 2, 3))  # each exactly once
