"""The one JSONL writer: every line file the project writes goes through here.

Readers that split on every Unicode line break (Python's `str.splitlines`,
as i-have-adhd's validator does) must still see one row per line, so
U+0085, U+2028 and U+2029 are escaped; json.dumps leaves them raw when
`ensure_ascii` is off.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .text import lone_surrogate_at

_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}
# json.dumps builds a new encoder on every call with non-default arguments; these are built once.
_ENCODE = {False: json.JSONEncoder(ensure_ascii=False).encode, True: json.JSONEncoder().encode}
_QUOTE: Any = getattr(json.encoder, "c_encode_basestring", None) or json.encoder.py_encode_basestring


def line(row: object, *, ensure_ascii: bool = False) -> str:
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


# ---- many rows of the same keys ----------------------------------------------------------
#
# `text_row` quotes every key of every row and builds each pair with its own format; a writer of
# one row per case (the catalog: every case of an import) fills one format made once instead.

quoted: Callable[[str], str] = _QUOTE  # a string as json.dumps writes it (ensure_ascii off)


def quoted_text(text: str) -> str:
    """`quoted`, for a long text (a prompt). json.dumps escapes only quotes, backslashes and control
    characters, so a printable text without a quote or backslash is itself between quotes: read
    once by isprintable() and copied, where the quoter reads it twice (10,000 prompts of 200-2,000
    characters: 44 -> 33 ms). Below 256 characters the quoter alone is faster."""
    if len(text) > 256 and '"' not in text and "\\" not in text and text.isprintable():
        return f'"{text}"'
    return quoted(text)


def row_format(keys: tuple[str, ...], *, lists: tuple[str, ...] = ()) -> str:
    """A %-format of a one-line object of `keys`, in order, a `%s` for each value. Filled with
    each string value `quoted`, and each list of strings (the keys in `lists`) as its items
    `quoted` and joined by ", ", then passed through `unbroken`, it is the line `text_row`
    writes for those fields."""
    return (
        "{"
        + ", ".join(_QUOTE(key).replace("%", "%%") + (": [%s]" if key in lists else ": %s") for key in keys)
        + "}"
    )


def _unbroken(text: str) -> str:
    if text.isascii() or not ("\u2028" in text or "\u2029" in text or "\x85" in text):
        return text  # containment tests run at C speed; translate() walks every character in Python
    return text.translate(_LINE_BREAKS)


unbroken = _unbroken  # a JSON line with U+0085, U+2028 and U+2029 escaped (the module's docstring)


def text(rows: Iterable[object]) -> str:
    """Rows as a JSONL document, each line ending in a newline."""
    return "".join(line(row) + "\n" for row in rows)


# ---- text UTF-8 cannot carry --------------------------------------------------------------
#
# A lone surrogate (U+D800-U+DFFF) is valid in JSON text as an escape (`"\ud800"`) and so in a
# Python str, but has no UTF-8 bytes: writing it raises. What a model CLI printed is kept, the
# code point written as the six characters `\udXXX` in its place, and the row says so.


def escape_surrogates(text: str) -> tuple[str, bool]:
    """`text` with each lone surrogate written as `\\uXXXX` (lowercase hex), and whether any was."""
    if lone_surrogate_at(text) is None:  # what a lone surrogate is: text.py says it, once
        return text, False
    # A surrogate is the one code point UTF-8 cannot encode, so the codec's own escape reaches
    # exactly those, each as `\udXXX` in lowercase hex
    return text.encode("utf-8", "backslashreplace").decode("utf-8"), True


def escape_value(value: object) -> tuple[object, bool]:
    """A JSON value with every string in it (keys too) escaped, and whether any was."""
    if isinstance(value, str):
        return escape_surrogates(value)
    if isinstance(value, list):
        items = [escape_value(item) for item in value]
        return [item for item, _ in items], any(changed for _, changed in items)
    if isinstance(value, dict):
        pairs = [(escape_value(k), escape_value(v)) for k, v in value.items()]
        return {k: v for (k, _), (v, _) in pairs}, any(a or b for (_, a), (_, b) in pairs)
    return value, False


def escaped_row(row: Mapping[str, object]) -> dict[str, object]:
    """The row with its unencodable text escaped and `escaped` listing the fields that were."""
    fixed: dict[str, object] = {}
    changed = []
    for key, value in row.items():
        (name, _), (fixed_value, was) = escape_surrogates(key), escape_value(value)
        fixed[name] = fixed_value
        if was or name != key:
            changed.append(name)
    return {**fixed, "escaped": changed}
