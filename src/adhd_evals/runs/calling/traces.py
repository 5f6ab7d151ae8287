"""What the model did, read from a CLI's own event stream: the tool calls and the files created.

A trace is the optional `trace` of a response row, after the keys the reference writes:

    {"tool_calls": [{"name": "Skill", "input": {"skill": "pdf"}, "status": "ok"}, ...],
     "files_created": ["report.md"]}

`tool_calls` are in the order the CLI reported them; `input` is the call's JSON input as the
CLI gave it; `status` is "ok" or "error" when the CLI reports how the call ended (absent when
it does not). A format that records no tool calls gives no trace at all (None), which is not
the same as an empty one: a trace check on a row without a trace is an error, never a pass.
docs/traces.md says what each format records.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

from .responses import universal_newlines

if TYPE_CHECKING:  # a run imports no row shapes at start-up: rows.py is read by the commands reading rows
    from ..rows import ToolCall
    from ..rows import Trace as Trace  # a trace is a row's field: its shape is rows.py's

TRACED = ("claude-stream-json", "codex-jsonl", "trace-jsonl")  # the formats that carry a trace


def read(output: str, response_format: str) -> Trace | None:
    """The trace in a CLI's output (already parsed once by responses.parse, so it is
    well-formed), or None for a format that records none."""
    if response_format not in TRACED:
        return None
    events = list(_events(universal_newlines(output)))
    if response_format == "claude-stream-json":
        return _claude(events)
    if response_format == "codex-jsonl":
        return _codex(events)
    return _generic(events)


def _events(output: str) -> Iterator[dict[str, object]]:
    """The output's JSON objects, one a line, as parsed (their shape not yet checked)."""
    for line in output.splitlines():
        if line.strip():
            event = json.loads(line)
            if isinstance(event, dict):
                yield event


def _call(name: str, value: object, status: str | None) -> ToolCall:
    call: ToolCall = {"name": name, "input": value}
    if status is not None:
        call["status"] = status
    return call


def _claude(events: list[dict[str, object]]) -> Trace:
    """`tool_use` blocks of `assistant` messages, in order; a `tool_result` block of a later
    `user` message gives the call's status (`is_error`). The files created are the paths the
    Write tool wrote without an error (Claude Code reports no other file events)."""
    calls: list[ToolCall] = []
    by_id: dict[str, ToolCall] = {}
    for event in events:
        for block in _blocks(event):
            if event.get("type") == "assistant" and block.get("type") == "tool_use":
                call = _call(str(block.get("name", "")), block.get("input", {}), None)
                calls.append(call)
                by_id[str(block.get("id", ""))] = call
            elif event.get("type") == "user" and block.get("type") == "tool_result":
                answered = by_id.get(str(block.get("tool_use_id", "")))
                if answered is not None:
                    answered["status"] = "error" if block.get("is_error") else "ok"
    files = [
        c["input"]["file_path"]
        for c in calls
        if c["name"] == "Write"
        and c.get("status") == "ok"
        and isinstance(c["input"], dict)
        and isinstance(c["input"].get("file_path"), str)
    ]
    return {"tool_calls": calls, "files_created": _unique(files)}


def _blocks(event: dict[str, object]) -> list[dict[str, object]]:
    message = event.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


_CODEX_ENDED = {"completed": "ok", "failed": "error", "declined": "error"}


def _codex(events: list[dict[str, object]]) -> Trace:
    """Each tool item once, when it completes (`item.completed`): command_execution (its
    command), file_change (its changes; the paths of kind `add` are the files created),
    mcp_tool_call (named `mcp__SERVER__TOOL`, as Claude Code names MCP tools), web_search."""
    calls: list[ToolCall] = []
    files: list[str] = []
    for event in events:
        item = event.get("item")
        if event.get("type") != "item.completed" or not isinstance(item, dict):
            continue
        kind, status = item.get("type"), _CODEX_ENDED.get(str(item.get("status")))
        if kind == "command_execution":
            failed = item.get("exit_code") not in (0, None)
            calls.append(_call(kind, {"command": item.get("command")}, "error" if failed else status))
        elif kind == "file_change":
            found = item.get("changes")
            changes: list[object] = found if isinstance(found, list) else []
            calls.append(_call(kind, {"changes": changes}, status))
            if status == "ok":
                files += [c["path"] for c in changes if isinstance(c, dict) and c.get("kind") == "add"]
        elif kind == "mcp_tool_call":
            name = f"mcp__{item.get('server')}__{item.get('tool')}"
            calls.append(_call(name, item.get("arguments", {}), status))
        elif kind == "web_search":
            calls.append(_call(kind, {"query": item.get("query")}, None))
    return {"tool_calls": calls, "files_created": _unique(files)}


def _generic(events: list[dict[str, object]]) -> Trace:
    """trace-jsonl: `tool_call` lines (name, input, optional status) and `file_created` lines
    (path), in order; responses.parse has already checked their shape (responses._check_trace_event:
    a name or path a string, a status ok or error), so the casts below say what it checked."""
    calls = [
        _call(cast("str", e["name"]), e.get("input", {}), cast("str | None", e.get("status")))
        for e in events
        if e.get("type") == "tool_call"
    ]
    files = [cast("str", e["path"]) for e in events if e.get("type") == "file_created"]
    return {"tool_calls": calls, "files_created": _unique(files)}


def _unique(paths: list[str]) -> list[str]:
    return list(dict.fromkeys(paths))


def stub_trace(prompt: str) -> Trace:
    """The built-in stub's toy trace, deterministic: it reads one file named from the
    prompt's digest, and invokes the Skill tool (skill "stub") only when the prompt carries a
    skill (the candidate and comparator conditions), so a trace check can pass and fail offline."""
    digest = hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    calls = [_call("Read", {"file_path": f"notes-{digest}.md"}, "ok")]
    if "<response_style>" in prompt:
        calls.insert(0, _call("Skill", {"skill": "stub"}, "ok"))
    return {"tool_calls": calls, "files_created": []}
