"""Columns inside one catalog line, found only when a problem needs one."""

from __future__ import annotations

import json


def column_of(text: str | None, key: str) -> int:
    """1-based column of the value of `key` in a one-line JSON object (1 if not found)."""
    if not text:
        return 1
    quoted = json.dumps(key) + ":"
    at = text.find(quoted)
    if at < 0:
        at = text.find(json.dumps(key))
        return at + 1 if at >= 0 else 1
    at += len(quoted)
    while at < len(text) and text[at] in " \t":
        at += 1
    return at + 1
