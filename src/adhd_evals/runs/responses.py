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
