"""Traces read from each CLI's own event stream (fixtures/traces/ holds one real-shaped
transcript per format); the text and cost come from the same stream.

Every expected trace below is worked by hand from the fixture's lines, in their order."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.errors import UsageError
from adhd_evals.runs.calling import traces
from adhd_evals.runs.calling.config import load_runner
from adhd_evals.runs.calling.responses import ResponseUnreadable, parse
from helpers import FIXTURES

SAMPLES = FIXTURES / "traces"
FAKE = str(Path(__file__).parent / "fakes" / "trace_cli.py")


def _sample(name: str) -> str:
    return (SAMPLES / f"{name}.jsonl").read_text(encoding="utf-8")


def test_claude_stream_json_sample() -> None:
    """Three tool_use blocks (Skill, Bash, Write); the Bash result has is_error true, the
    others none (ok); Write wrote /tmp/eval-work/summary.md without an error, so it is the one
    file created. Text and cost are the result event's."""
    output = _sample("claude-stream-json")
    text, usage, cost = parse(output, "claude-stream-json")
    assert (text, cost, usage["output_tokens"]) == ("I wrote the summary to summary.md.", 0.0412, 256)
    trace = traces.read(output, "claude-stream-json")
    assert trace is not None
    assert [(c["name"], c["status"]) for c in trace["tool_calls"]] == [
        ("Skill", "ok"),
        ("Bash", "error"),
        ("Write", "ok"),
    ]
    assert trace["tool_calls"][0]["input"] == {"skill": "pdf"}
    assert trace["files_created"] == ["/tmp/eval-work/summary.md"]


def test_codex_jsonl_sample() -> None:
    """item.started lines are skipped (each call counted once, when it completes); `ls`
    exits 0 (ok), pytest exits 1 (error); the file_change adds NOTES.md and updates
    app.py (only the added one is created); the MCP call is named mcp__docs__search; the
    reasoning and agent_message items are no calls."""
    output = _sample("codex-jsonl")
    text, usage, cost = parse(output, "codex-jsonl")
    assert (text, cost) == ("Added NOTES.md and fixed src/app.py; one test still fails.", None)
    assert usage == {"input_tokens": 24763, "cached_input_tokens": 24448, "output_tokens": 122}
    trace = traces.read(output, "codex-jsonl")
    assert trace is not None
    assert [(c["name"], c["status"]) for c in trace["tool_calls"]] == [
        ("command_execution", "ok"),
        ("command_execution", "error"),
        ("file_change", "ok"),
        ("mcp__docs__search", "ok"),
    ]
    assert trace["tool_calls"][1]["input"] == {"command": "bash -lc 'pytest -q'"}
    assert trace["tool_calls"][3]["input"] == {"query": "pytest fixtures"}
    assert trace["files_created"] == ["/tmp/eval-work/NOTES.md"]


def test_codex_web_search_is_a_call_without_a_status() -> None:
    line = {"type": "item.completed", "item": {"id": "i", "type": "web_search", "query": "q"}}
    trace = traces.read(json.dumps(line), "codex-jsonl")
    expected: traces.Trace = {
        "tool_calls": [{"name": "web_search", "input": {"query": "q"}}],
        "files_created": [],
    }
    assert trace == expected


def test_trace_jsonl_sample() -> None:
    """Two tool_call lines (ok, error), one file_created line, the `progress` line ignored."""
    output = _sample("trace-jsonl")
    text, usage, cost = parse(output, "trace-jsonl")
    assert (text, cost, usage) == (
        "Refunds are accepted within 30 days.",
        0.003,
        {"input_tokens": 812, "output_tokens": 40},
    )
    assert traces.read(output, "trace-jsonl") == {
        "tool_calls": [
            {"name": "search_docs", "input": {"query": "refund policy"}, "status": "ok"},
            {"name": "send_email", "input": {"to": "customer@example.com"}, "status": "error"},
        ],
        "files_created": ["out/reply.txt"],
    }


@pytest.mark.parametrize("fmt", ["text", "claude-json"])
def test_formats_without_events_record_no_trace(fmt: str) -> None:
    assert traces.read('{"result": "x"}', fmt) is None


@pytest.mark.parametrize(
    ("lines", "said"),
    [
        pytest.param(
            [{"type": "tool_call", "name": "a", "input": {}}], "expected one answer event, found 0", id="none"
        ),
        pytest.param([{"type": "answer", "text": "a"}] * 2, "expected one answer event, found 2", id="two"),
        pytest.param(
            [{"type": "tool_call", "input": {}}], "event 1 (tool_call): name must be a string", id="name"
        ),
        pytest.param(
            [{"type": "file_created", "path": 3}], "event 1 (file_created): path must be", id="path"
        ),
        pytest.param(
            [{"type": "tool_call", "name": "a", "status": "done"}], "status must be ok or error", id="status"
        ),
        pytest.param([{"type": "answer", "text": "a", "cost_usd": -1}], "cost_usd is -1", id="cost"),
    ],
)
def test_trace_jsonl_refusals(lines: list[dict[str, Any]], said: str) -> None:
    with pytest.raises(ResponseUnreadable, match="output is not trace-jsonl") as raised:
        parse("\n".join(json.dumps(line) for line in lines), "trace-jsonl")
    assert said in str(raised.value)


def test_a_stream_without_its_result_event_is_unreadable() -> None:
    cut = "\n".join(_sample("claude-stream-json").splitlines()[:-1])
    with pytest.raises(ResponseUnreadable, match="no result event"):
        parse(cut, "claude-stream-json")


@pytest.mark.parametrize(("fmt", "metered"), [("claude-stream-json", True), ("trace-jsonl", True)])
def test_runner_config_takes_the_new_formats(tmp_path: Path, fmt: str, metered: bool) -> None:
    config = tmp_path / "runners.json"
    config.write_text(json.dumps({"r": {"command": ["x"], "response_format": fmt}}))
    assert load_runner("r", config).metered is metered


def test_an_unknown_format_is_still_refused(tmp_path: Path) -> None:
    config = tmp_path / "runners.json"
    config.write_text(json.dumps({"r": {"command": ["x"], "response_format": "stream-json"}}))
    with pytest.raises(UsageError, match="claude-stream-json, trace-jsonl"):
        load_runner("r", config)


CASES = [
    {"id": "pdf", "category": "c", "prompt": "Make a PDF of this", "risk": "low", "criteria": ["x"]},
    {"id": "sum", "category": "c", "prompt": "Add 2 and 2", "risk": "low", "criteria": ["x"]},
]


def _run(tmp_path: Path, runner: dict[str, Any], *extra: str) -> list[dict[str, Any]]:
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    (tmp_path / "runners.json").write_text(json.dumps({"agent": runner}))
    argv = ["run", "--cases", str(tmp_path / "cases.jsonl"), "--output", str(tmp_path / "out.jsonl")]
    argv += ["--runner", "agent", "--runner-config", str(tmp_path / "runners.json"), "--trials", "1", *extra]
    assert main([*argv, "--condition", "baseline"]) == exitcodes.OK
    return [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]


def test_run_writes_the_trace_after_the_reference_keys(tmp_path: Path) -> None:
    """The fake triggers on "pdf": case pdf calls Skill then Bash, case sum only Bash; the
    cost is the result event's 0.01."""
    command = [sys.executable, FAKE, "--skill", "pdf", "--trigger-on", "pdf", "--cost", "0.01"]
    rows = _run(tmp_path, {"command": command, "response_format": "claude-stream-json"})
    assert list(rows[0])[:8] == [
        "case_id",
        "trial",
        "condition",
        "runner",
        "response",
        "usage",
        "cost_usd",
        "elapsed_s",
    ]
    assert list(rows[0])[-1] == "trace" and rows[0]["cost_usd"] == 0.01
    assert [c["name"] for c in rows[0]["trace"]["tool_calls"]] == ["Skill", "Bash"]
    assert [c["name"] for c in rows[1]["trace"]["tool_calls"]] == ["Bash"]


def test_run_reads_codex_item_events(tmp_path: Path) -> None:
    command = [sys.executable, FAKE, "--format", "codex-jsonl", "--write", "out/n.md", "--skill", "pdf"]
    command += ["--trigger-on", "pdf"]
    rows = _run(tmp_path, {"command": command, "response_format": "codex-jsonl"}, "--allow-unmetered")
    assert [c["input"] for c in rows[0]["trace"]["tool_calls"][:2]] == [
        {"command": "bash -lc 'cat ~/.codex/skills/pdf/SKILL.md'"},
        {"command": "bash -lc 'ls'"},
    ]
    assert rows[1]["trace"]["files_created"] == ["out/n.md"]


def test_a_text_runner_writes_no_trace(tmp_path: Path) -> None:
    command = [sys.executable, str(Path(__file__).parent / "fakes" / "fake_cli.py")]
    rows = _run(tmp_path, {"command": command, "response_format": "text"}, "--allow-unmetered")
    assert all("trace" not in row for row in rows)


def test_the_stub_trace_is_deterministic_and_skill_only_with_a_skill() -> None:
    """Baseline prompts carry no <response_style>: one Read; a candidate prompt calls Skill first."""
    bare = traces.stub_trace("Add 2 and 2")
    assert [c["name"] for c in bare["tool_calls"]] == ["Read"] and bare == traces.stub_trace("Add 2 and 2")
    wrapped = traces.stub_trace("<response_style>\nx\n</response_style>\n\n<task>\nAdd\n</task>")
    assert [c["name"] for c in wrapped["tool_calls"]] == ["Skill", "Read"]


def test_a_cached_row_keeps_its_trace(tmp_path: Path) -> None:
    command = [sys.executable, FAKE, "--skill", "pdf", "--trigger-on", "pdf"]
    cache = ["--cache", str(tmp_path / "cache")]
    first = _run(tmp_path, {"command": command, "response_format": "claude-stream-json"}, *cache)
    (tmp_path / "out.jsonl").unlink()
    again = _run(tmp_path, {"command": command, "response_format": "claude-stream-json"}, *cache)
    assert all(row.get("cached") for row in again)
    assert [row["trace"] for row in again] == [row["trace"] for row in first]


def test_stream_lines_that_are_not_events_and_unanswered_calls() -> None:
    """A JSON line that is not an object is no event; a tool_result for an id no tool_use had
    changes nothing; a call never answered has no status; a Write never answered created no file."""
    lines = [
        "[1, 2]",
        "",
        json.dumps({"type": "assistant", "message": {"content": "text only"}}),
        json.dumps(
            {
                "type": "assistant",
                "message": {
                    "content": [
                        {"type": "tool_use", "id": "t1", "name": "Write", "input": {"file_path": "x"}}
                    ]
                },
            }
        ),
        json.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t9"}]}}),
        json.dumps({"type": "result", "result": "done", "total_cost_usd": 0}),
    ]
    trace = traces.read("\n".join(lines), "claude-stream-json")
    expected: traces.Trace = {
        "tool_calls": [{"name": "Write", "input": {"file_path": "x"}}],
        "files_created": [],
    }
    assert trace == expected


def test_codex_items_that_are_no_calls() -> None:
    """agent_message, reasoning and todo_list items, and an item.completed without an item, are no calls."""
    lines = [
        {"type": "item.completed", "item": {"id": "a", "type": "reasoning", "text": "t"}},
        {"type": "item.completed", "item": {"id": "b", "type": "todo_list", "items": []}},
        {"type": "item.completed", "item": None},
        {
            "type": "item.completed",
            "item": {"id": "c", "type": "file_change", "changes": "bad", "status": "failed"},
        },
    ]
    trace = traces.read("\n".join(json.dumps(line) for line in lines), "codex-jsonl")
    expected: traces.Trace = {
        "tool_calls": [{"name": "file_change", "input": {"changes": []}, "status": "error"}],
        "files_created": [],
    }
    assert trace == expected


def test_a_cache_entry_with_a_trace_that_is_no_object_is_a_miss(tmp_path: Path) -> None:
    """An entry's digest covers its trace: the entry as written is served, the same entry with
    its trace edited is not, and a trace that is no object is never served."""
    from adhd_evals.runs.calling.cache import Hit, _content, _hit

    entry: dict[str, Any] = {"key": "k", "response": "r", "usage": {}, "cost_usd": 0.0, "elapsed_s": 1.0}
    trace: dict[str, Any] = {"tool_calls": []}
    sealed = {**entry, "trace": trace, "sha256": _content("k", Hit("r", {}, 0.0, 1.0, trace))}
    assert _hit(sealed, "k") == Hit("r", {}, 0.0, 1.0, trace)
    assert _hit({**sealed, "trace": {"tool_calls": [{"name": "Skill"}]}}, "k") is None
    assert _hit({**sealed, "trace": ["Skill"]}, "k") is None
