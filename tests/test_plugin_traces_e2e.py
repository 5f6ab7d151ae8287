"""A plugin eval suite's trace graders end to end, offline: fixtures/plugin-eval/traces/evals
imported, run with a fake CLI that prints Claude Code's stream-json, and checked over the
traces; and the same run with a runner that records no tool calls.

The fake (tests/fakes/trace_cli.py) calls the Skill tool with {"skill":"pdf-tools"} when the
prompt holds "pdf", then Bash with {"command":"ls",...}, then answers. Worked from that:
- merge-pdfs ("Merge the pdf files..."): Skill then Bash ls, so skill-fired passes (one call
  whose JSON input holds "skill":"pdf-tools", at least min 1) and skill-then-ls passes (the
  first Skill call, 0, comes before the first Bash call whose input holds "command":"ls", 1);
- write-haiku (no "pdf"): Bash ls only, so skill-fired fails (no Skill call) and
  skill-then-ls fails (Skill never called).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.lint import lint_paths

FIXTURE = Path(__file__).parent.parent / "fixtures" / "plugin-eval" / "traces" / "evals"
FAKE = str(Path(__file__).parent / "fakes" / "trace_cli.py")
TEXT_FAKE = str(Path(__file__).parent / "fakes" / "fake_cli.py")


def _checked(tmp_path: Path, runner: dict[str, Any], *run_flags: str) -> list[dict[str, Any]]:
    """import, run (one trial), check: the check result rows."""
    evals = tmp_path / "evals"
    assert main(["import", "--format", "plugin-eval", str(FIXTURE), "--out", str(evals)]) == exitcodes.OK
    (tmp_path / "runners.json").write_text(json.dumps({"agent": runner}))
    run = ["run", "--cases", str(evals / "cases.jsonl"), "--output", str(tmp_path / "responses.jsonl")]
    run += ["--runner", "agent", "--runner-config", str(tmp_path / "runners.json"), "--trials", "1"]
    assert main([*run, "--condition", "baseline", *run_flags]) == exitcodes.OK
    results = tmp_path / "results.jsonl"
    check = ["check", str(tmp_path / "responses.jsonl"), "--cases", str(evals / "cases.jsonl")]
    main([*check, "--suite", str(evals / "checks.py"), "--output", str(results)])
    return [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]


@pytest.mark.long
def test_the_imported_trace_graders_pass_and_fail_from_the_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = [sys.executable, FAKE, "--skill", "pdf-tools", "--trigger-on", "pdf", "--cost", "0.001"]
    rows = _checked(tmp_path, {"command": command, "response_format": "claude-stream-json"})
    assert "4 checks read the run's trace (tool calls): run them with a runner" in capsys.readouterr().err
    found = {(row["case_id"], row["criterion"].split(":")[0]): row["status"] for row in rows}
    assert found == {
        ("merge-pdfs", "skill-fired"): "pass",
        ("merge-pdfs", "skill-then-ls"): "pass",
        ("write-haiku", "skill-fired"): "fail",
        ("write-haiku", "skill-then-ls"): "fail",
    }
    assert len(rows) == 4


def test_a_runner_without_traces_makes_every_trace_grader_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A text runner records no tool calls: all four checks are errors saying so, never a
    pass or a fail."""
    runner = {"command": [sys.executable, TEXT_FAKE], "response_format": "text"}
    rows = _checked(tmp_path, runner, "--allow-unmetered")
    assert [row["status"] for row in rows] == ["error"] * 4
    assert all("this runner records no tool calls" in row["error"] for row in rows)


@pytest.mark.long
def test_lint_leaves_the_trace_checks_alone_and_flags_what_stayed_a_placeholder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The project's good suite imports tool_used a-skill-fired and b-never-pushed and
    tool_order c-read-before-edit as trace checks: lint's unwritten-check warning (W203) no
    longer names them, and still names both file_exists graders, which stay placeholders."""
    suite = FIXTURE.parent.parent / "good" / "suite" / "evals"
    assert main(["import", "--format", "plugin-eval", str(suite), "--out", str(tmp_path / "out")]) == 0
    report = lint_paths([tmp_path / "out"])
    unwritten = {p.message.split(": ")[1] for p in report.problems if p.code == "W203"}
    assert {"a-skill-fired", "b-never-pushed", "c-read-before-edit"}.isdisjoint(unwritten)
    assert {"d-config-created", "e-no-lockfile"} <= unwritten
