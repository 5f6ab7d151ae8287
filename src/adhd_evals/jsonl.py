"""The one JSONL writer: every line file the project writes goes through here.

Readers that split on every Unicode line break (Python's `str.splitlines`,
as i-have-adhd's validator does) must still see one row per line, so
U+0085, U+2028 and U+2029 are escaped; json.dumps leaves them raw when
`ensure_ascii` is off.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}
# json.dumps builds a new encoder on every call with non-default arguments; these are built once.
_ENCODE = {False: json.JSONEncoder(ensure_ascii=False).encode, True: json.JSONEncoder().encode}
_QUOTE: Any = getattr(json.encoder, "c_encode_basestring", None) or json.encoder.py_encode_basestring


def line(row: Any, *, ensure_ascii: bool = False) -> str:
    """One row as one line of JSON (without the newline)."""
    return _unbroken(_ENCODE[ensure_ascii](row))


def text_row(fields: tuple[tuple[str, str | list[str]], ...]) -> str:
    """A row of strings and lists of strings, keys in the given order: the same line
    `line` writes for that dict (json.dumps's separators and quoting), without
    building the dict (a catalog line is written for every case of an import)."""
    parts = []
    for key, value in fields:
        shown = _QUOTE(value) if isinstance(value, str) else "[" + ", ".join(map(_QUOTE, value)) + "]"
        parts.append(f"{_QUOTE(key)}: {shown}")
    return _unbroken("{" + ", ".join(parts) + "}")


def _unbroken(text: str) -> str:
    if text.isascii() or not ("\u2028" in text or "\u2029" in text or "\x85" in text):
        return text  # containment tests run at C speed; translate() walks every character in Python
    return text.translate(_LINE_BREAKS)


def text(rows: Iterable[Any]) -> str:
    """Rows as a JSONL document, each line ending in a newline."""
    return "".join(line(row) + "\n" for row in rows)
