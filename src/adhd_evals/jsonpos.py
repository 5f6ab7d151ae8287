"""Positions in JSON text, found only when a message needs one: the core's, since the catalog's
rules (core), lint and the readers all place what they report with it.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
from collections.abc import Callable
from typing import Any

# The fast path never tracks positions. When a message needs one, the text is
# walked along the path with the C scanner skipping every sibling before it,
# so finding a value costs about one parse of the text in front of it.

# The C scanner and string reader behind json.loads, typed for mypy: the json
# module exposes both but its stubs do not.
SCAN: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
scanstring: Callable[[str, int], tuple[str, int]] = getattr(json.decoder, "scanstring")  # noqa: B009
BLANK = " \t\r\n"


def skip_blank(text: str, index: int) -> int:
    while index < len(text) and text[index] in BLANK:
        index += 1
    return index


def line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def step_into(text: str, index: int, step: str | int) -> int | None:
    """Offset of the child `step` of the container starting at `index` (the first
    of a duplicated key), or None when there is no such child."""
    opener, closer = ("{", "}") if isinstance(step, str) else ("[", "]")
    if index >= len(text) or text[index] != opener:
        return None
    index, position = skip_blank(text, index + 1), 0
    while index < len(text) and text[index] != closer:
        if isinstance(step, str):
            key, index = scanstring(text, index + 1)
            index = skip_blank(text, skip_blank(text, index) + 1)  # past the colon
            if key == step:
                return index
        elif position == step:
            return index
        _, index = SCAN(text, index)
        index = skip_blank(text, index)
        if index < len(text) and text[index] == ",":
            index = skip_blank(text, index + 1)
        position += 1
    return None


def _offset(text: str, path: tuple[str | int, ...], start: int | None = None) -> int:
    """Offset of the deepest existing value along `path`."""
    offset = skip_blank(text, 0) if start is None else start
    for step in path:
        try:
            child = step_into(text, offset, step)
        except (ValueError, IndexError):  # text the fast path refused further on
            return offset
        if child is None:
            break
        offset = child
    return offset


def locate(text: str, path: tuple[str | int, ...]) -> tuple[int | None, int | None]:
    """Line and column of the deepest existing value along `path`."""
    return line_col(text, _offset(text, path))
