"""Reading a model CLI's output in each response format: (text, usage, cost or None)."""

from __future__ import annotations

import json
import math
from typing import Any


class ResponseUnreadable(ValueError):
    pass


def is_dollars(value: Any) -> bool:
    """A finite number, 0 or more (not a bool): NaN or -inf would stop a budget ever stopping."""
    return (
        not isinstance(value, bool)
        and isinstance(value, (int, float))
        and math.isfinite(value)
        and value >= 0
    )


def parse(output: str, response_format: str) -> tuple[str, dict[str, Any], float | None]:
    try:
        if response_format == "text":
            return output.strip(), {}, None
        if response_format == "claude-json":
            return _usage_checked(*_claude(output))
        if response_format == "codex-jsonl":
            return _usage_checked(*_codex(output))
    except (ValueError, AttributeError, TypeError, RecursionError) as exc:
        raise ResponseUnreadable(f"output is not {response_format}: {exc}") from exc
    raise ResponseUnreadable(f"unknown response format {response_format!r}")


def _usage_checked(text: str, usage: Any, cost: float | None) -> tuple[str, dict[str, Any], float | None]:
    if not isinstance(usage, dict):  # the row's usage is an object, as the reference reads it
        raise ValueError(f"usage is {usage!r}, not an object")
    return text, usage, cost


def _claude(output: str) -> tuple[str, dict[str, Any], float | None]:
    payload, _ = json.JSONDecoder().raw_decode(output.lstrip())
    cost = payload.get("total_cost_usd")
    if cost is not None and not is_dollars(cost):
        raise ValueError(f"total_cost_usd is {cost!r}, not a finite number of dollars, 0 or more")
    return str(payload.get("result", "")).strip(), payload.get("usage") or {}, cost


def _codex(output: str) -> tuple[str, dict[str, Any], float | None]:
    text: str = ""
    usage: dict[str, Any] = {}
    for line in output.splitlines():
        if not line.strip():
            continue
        event = json.loads(line)
        item = event.get("item") or {}
        if event.get("type") == "item.completed" and item.get("type") == "agent_message":
            text = item.get("text", text)
        if event.get("type") == "turn.completed":
            usage = event.get("usage", usage)
    return str(text).strip(), usage, None
