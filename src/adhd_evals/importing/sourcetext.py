"""Reading source files: bytes, UTF-8, strict JSON, and positions on demand.

The fast path uses the C JSON decoder. Positions are only computed when a
refusal needs one, by re-reading the text with the pure-Python scanner
wrapped so that every value remembers where it started.
"""

from __future__ import annotations

import codecs
import json
import json.decoder
import json.scanner
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .model import Refusal, RefusalCode

# Deeper than this, a note is refused: nothing a person wrote by hand is this
# deep, and rendering it would risk Python's recursion limit.
MAX_NOTE_DEPTH = 64


def read_bytes(path: Path, display: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise Refusal(RefusalCode.FILE_UNREADABLE, display, "cannot be read",
                      actual="no such file") from None
    except IsADirectoryError:
        raise Refusal(RefusalCode.FILE_UNREADABLE, display, "cannot be read",
                      actual="it is a directory, and this format reads one file") from None
    except OSError as exc:
        raise Refusal(RefusalCode.FILE_UNREADABLE, display, "cannot be read",
                      actual=exc.strerror or str(exc)) from exc


def decode_utf8(data: bytes, display: str, code: RefusalCode, reason: str) -> str:
    """Decode UTF-8, accepting (and dropping) a byte-order mark."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        hint = None
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            hint = "the file starts with a UTF-16 byte-order mark: save it as UTF-8"
        raise Refusal(code, display, reason,
                      actual=f"invalid UTF-8 at byte offset {exc.start} ({exc.reason})",
                      line=line, hint=hint) from exc


class DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return obj


def load_json(text: str, display: str) -> Any:
    """Parse strict JSON: duplicate keys and runaway nesting are refused."""
    try:
        return json.loads(text, object_pairs_hook=_unique_pairs)
    except json.JSONDecodeError as exc:
        raise Refusal(RefusalCode.NOT_JSON, display, "is not JSON",
                      actual=exc.msg, line=exc.lineno, column=exc.colno) from exc
    except DuplicateKey as exc:
        line, column = _duplicate_position(text, exc.key)
        raise Refusal(RefusalCode.NOT_JSON, display, "is not JSON",
                      actual=f'duplicate key "{exc.key}" in one object (which one wins is undefined)',
                      line=line, column=column) from exc
    except RecursionError as exc:
        raise Refusal(RefusalCode.NOT_JSON, display, "is not JSON",
                      actual="nesting too deep to read") from exc


def too_deep(value: Any, limit: int = MAX_NOTE_DEPTH) -> bool:
    """True when containers nest deeper than `limit` (iterative, no recursion)."""
    if isinstance(value, list) and not any(isinstance(v, (dict, list)) for v in value):
        return False  # the common case: a flat list of scalars
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return False


# ---- positions, computed only when a message needs them -------------------


@dataclass(frozen=True)
class _Node:
    value: Any  # scalar, list[_Node], or list[tuple[str, _Node]] for objects
    start: int


class _Obj(list):  # marks a list of pairs as an object, not an array
    pass


def _positioned_tree(text: str) -> _Node | None:
    decoder = json.JSONDecoder(object_pairs_hook=_Obj)

    def parse_object(s_and_end, strict, _scan, object_hook, pairs_hook, memo):  # type: ignore[no-untyped-def]
        return json.decoder.JSONObject(s_and_end, strict, scan, object_hook, pairs_hook, memo)

    def parse_array(s_and_end, _scan):  # type: ignore[no-untyped-def]
        return json.decoder.JSONArray(s_and_end, scan)

    decoder.parse_object = parse_object  # type: ignore[attr-defined]
    decoder.parse_array = parse_array  # type: ignore[attr-defined]
    inner = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]

    def scan(string: str, idx: int) -> tuple[_Node, int]:
        value, end = inner(string, idx)
        return _Node(value, idx), end

    start = len(text) - len(text.lstrip(" \t\r\n"))
    try:
        node, _ = scan(text, start)
    except (ValueError, RecursionError):
        return None
    return node


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def locate(text: str, path: tuple[str | int, ...]) -> tuple[int | None, int | None]:
    """Line and column of the deepest existing value along `path`."""
    node = _positioned_tree(text)
    if node is None:
        return None, None
    for step in path:
        child = _child(node, step)
        if child is None:
            break
        node = child
    return _line_col(text, node.start)


def _child(node: _Node, step: str | int) -> _Node | None:
    if isinstance(node.value, _Obj) and isinstance(step, str):
        for key, child in node.value:
            if key == step:
                return child
    elif isinstance(node.value, list) and isinstance(step, int):
        if not isinstance(node.value, _Obj) and 0 <= step < len(node.value):
            return node.value[step]
    return None


def _duplicate_position(text: str, key: str) -> tuple[int | None, int | None]:
    """Where the second occurrence of a duplicated key's value starts."""
    root = _positioned_tree(text)
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node.value, _Obj):
            seen: set[str] = set()
            for name, child in node.value:
                if name == key and name in seen:
                    return _line_col(text, child.start)
                seen.add(name)
            stack.extend(child for _, child in reversed(node.value))
        elif isinstance(node.value, list):
            stack.extend(reversed(node.value))
    return None, None


# ---- lines of values at C speed, for survey's examples ----------------------


_SCAN = json.scanner.make_scanner(json.JSONDecoder())
_BLANK = " \t\r\n"


def _skip_blank(text: str, index: int) -> int:
    while index < len(text) and text[index] in _BLANK:
        index += 1
    return index


def _step_into(text: str, index: int, step: str | int) -> int | None:
    """Offset of the child `step` of the container starting at `index`.

    Siblings before it are skipped with the C scanner, so finding a value
    costs about one parse of the text before it (never a Python-level walk
    of every value, which is what `locate` does for refusals).
    """
    opener, closer = ("{", "}") if isinstance(step, str) else ("[", "]")
    if index >= len(text) or text[index] != opener:
        return None
    index, position = _skip_blank(text, index + 1), 0
    while index < len(text) and text[index] != closer:
        if isinstance(step, str):
            key, index = json.decoder.scanstring(text, index + 1)
            index = _skip_blank(text, _skip_blank(text, index) + 1)  # past the colon
            if key == step:
                return index
        elif position == step:
            return index
        _, index = _SCAN(text, index)
        index = _skip_blank(text, index)
        if index < len(text) and text[index] == ",":
            index = _skip_blank(text, index + 1)
        position += 1
    return None


class Lines:
    """Lines of values in one JSON text, remembering where the case list's items start."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._items: dict[tuple[str | int, ...], list[int]] = {}

    def line(self, list_path: tuple[str | int, ...], index: int,
             inner: tuple[str | int, ...] = ()) -> int | None:
        try:
            starts = self._starts(list_path)
            offset: int | None = starts[index] if index < len(starts) else None
            for step in inner:
                if offset is None:
                    break
                offset = _step_into(self.text, offset, step)
        except (ValueError, IndexError):  # text that json.loads read leniently; give up on a line
            return None
        return None if offset is None else self.text.count("\n", 0, offset) + 1

    def _starts(self, list_path: tuple[str | int, ...]) -> list[int]:
        if list_path not in self._items:
            offset: int | None = _skip_blank(self.text, 0)
            for step in list_path:
                offset = None if offset is None else _step_into(self.text, offset, step)
            starts = []
            if offset is not None and self.text[offset] == "[":
                index = _skip_blank(self.text, offset + 1)
                while index < len(self.text) and self.text[index] != "]":
                    starts.append(index)
                    _, index = _SCAN(self.text, index)
                    index = _skip_blank(self.text, index)
                    if index < len(self.text) and self.text[index] == ",":
                        index = _skip_blank(self.text, index + 1)
            self._items[list_path] = starts
        return self._items[list_path]
