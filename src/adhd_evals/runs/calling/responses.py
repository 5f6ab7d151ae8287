"""Reading a model CLI's output in each response format: (text, usage, cost or None)."""

from __future__ import annotations

import json
import math
from typing import Any, TypeGuard


class ResponseUnreadable(ValueError):
    pass


def is_dollars(value: Any) -> TypeGuard[int | float]:
    """A finite number, 0 or more (not a bool): NaN or -inf would stop a budget ever stopping."""
    return (
        not isinstance(value, bool)
        and isinstance(value, (int, float))
        and math.isfinite(value)
        and value >= 0
    )


def parse(output: str, response_format: str) -> tuple[str, Any, float | None]:
    """The reference reads a CLI's output with universal newlines (`text=True`): `\r\n` and a lone
    `\r` become `\n` before any format is parsed, so a `text` answer's line ends are `\n`."""
    output = universal_newlines(output)
    try:
        if response_format == "text":
            return output.strip(), {}, None
        if response_format == "claude-json":
            return _claude(output)
        if response_format == "codex-jsonl":
            return _codex(output)
        if response_format == "claude-stream-json":
            return _claude_stream(output)
        if response_format == "trace-jsonl":
            return _trace_jsonl(output)
    except (ValueError, AttributeError, TypeError, RecursionError) as exc:
        raise ResponseUnreadable(f"output is not {response_format}: {exc}") from exc
    raise ResponseUnreadable(f"unknown response format {response_format!r}")


def universal_newlines(output: str) -> str:
    return output.replace("\r\n", "\n").replace("\r", "\n") if "\r" in output else output


def _claude(output: str) -> tuple[str, Any, float | None]:
    # the whole output is one JSON value, as the reference reads it: text after it is unreadable
    payload = json.loads(output)
    cost = payload.get("total_cost_usd")
    if cost is not None and not is_dollars(cost):
        raise ValueError(f"total_cost_usd is {cost!r}, not a finite number of dollars, 0 or more")
    # usage is written as the CLI gave it (any JSON value), as the reference writes it
    return str(payload.get("result", "")).strip(), payload.get("usage", {}) or {}, cost


def _codex(output: str) -> tuple[str, Any, float | None]:
    text: Any = ""
    usage: Any = {}
    for line in output.splitlines():
        if not line.strip():
            continue
        event = json.loads(line)
        item = event.get("item") or {}  # "item": null is no item (the reference raises AttributeError)
        if event.get("type") == "item.completed" and item.get("type") == "agent_message":
            text = item.get("text", text)
        if event.get("type") == "turn.completed":
            usage = event.get("usage", usage)
    return str(text).strip(), usage, None


def _lines(output: str) -> list[Any]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def _claude_stream(output: str) -> tuple[str, Any, float | None]:
    """`claude -p --output-format stream-json --verbose`: one event a line; the text, usage and
    cost are the final `result` event's, read as claude-json reads its one object."""
    results = [event for event in _lines(output) if isinstance(event, dict) and event.get("type") == "result"]
    if not results:
        raise ValueError("no result event (the stream ended before the run did)")
    return _claude(json.dumps(results[-1]))


def _trace_jsonl(output: str) -> tuple[str, Any, float | None]:
    """The generic trace shape (docs/traces.md): one `answer` line (text, optional cost_usd
    and usage) among `tool_call` and `file_created` lines; lines of other types are ignored."""
    events = [event for event in _lines(output) if isinstance(event, dict)]
    for at, event in enumerate(events, start=1):
        _check_trace_event(at, event)
    answers = [event for event in events if event.get("type") == "answer"]
    if len(answers) != 1:
        raise ValueError(f"expected one answer event, found {len(answers)}")
    answer = answers[0]
    cost = answer.get("cost_usd")
    if cost is not None and not is_dollars(cost):
        raise ValueError(f"cost_usd is {cost!r}, not a finite number of dollars, 0 or more")
    return answer["text"].strip(), answer.get("usage", {}) or {}, cost


_NEEDS = {
    "tool_call": ("name", "a string"),
    "file_created": ("path", "a string"),
    "answer": ("text", "a string"),
}


def _check_trace_event(at: int, event: dict[str, object]) -> None:
    need = _NEEDS.get(str(event.get("type")))
    if need is not None and not isinstance(event.get(need[0]), str):
        raise ValueError(f"event {at} ({event['type']}): {need[0]} must be {need[1]}")
    if event.get("type") == "tool_call" and event.get("status", "ok") not in ("ok", "error"):
        raise ValueError(f"event {at} (tool_call): status must be ok or error, not {event['status']!r}")
