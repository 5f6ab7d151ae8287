"""Reading source files: bytes, UTF-8, strict JSON, and positions on demand.

The fast path uses the C JSON decoder. Positions are only computed when a
refusal needs one, by re-reading the text with the pure-Python scanner
wrapped so that every value remembers where it started.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..files import NotAFile, read_limited
from ..jsonpos import SCAN as _SCAN
from ..jsonpos import line_col as _line_col
from ..jsonpos import locate as locate  # positions live in the core; the readers' name for it
from ..jsonpos import scanstring as _scanstring
from ..jsonpos import skip_blank as _skip_blank
from ..jsonpos import step_into as _step_into

# strict JSON's duplicate keys and over-long numbers live in the core (jsonread.py): the
# catalog reads with them too. Still importable from here.
from ..jsonread import LONG_NUMBER as _LONG_NUMBER
from ..jsonread import DuplicateKey as DuplicateKey
from ..jsonread import long_number_column as long_number_column
from ..jsonread import too_long_number as too_long_number
from ..jsonread import unique_pairs as _unique_pairs
from .model import Refusal, RefusalCode

# Deeper than this, a note is refused: nothing a person wrote by hand is this
# deep, and rendering it would risk Python's recursion limit.
MAX_NOTE_DEPTH = 64


def read_bytes(path: Path, display: str) -> bytes:
    try:
        return read_limited(path)
    except OSError as exc:
        # Whether it is a folder is asked once a read failed, not before every read (a stat of
        # each of a tree's files): the refusal is the one that question always gave.
        if path.is_dir():
            actual = "it is a directory, and this format reads one file"
        elif isinstance(exc, FileNotFoundError):
            actual = "no such file"
        elif isinstance(exc, NotAFile):
            actual = str(exc)
        else:
            raise Refusal(
                RefusalCode.FILE_UNREADABLE, display, "cannot be read", actual=exc.strerror or str(exc)
            ) from exc
        raise Refusal(RefusalCode.FILE_UNREADABLE, display, "cannot be read", actual=actual) from None


def decode_utf8(data: bytes, display: str, code: RefusalCode, reason: str) -> str:
    """Decode UTF-8, accepting (and dropping) a byte-order mark."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        hint = None
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            hint = "the file starts with a UTF-16 byte-order mark: save it as UTF-8"
        raise Refusal(
            code,
            display,
            reason,
            actual=f"invalid UTF-8 at byte offset {exc.start} ({exc.reason})",
            line=line,
            hint=hint,
        ) from exc


# One decoder for every file: json.loads with a hook builds a decoder (and its scanner) per call,
# a few microseconds each of a tree's 500 files.
_DECODER = json.JSONDecoder(object_pairs_hook=_unique_pairs)


def _parse(text: str) -> Any:
    """json.loads(text, object_pairs_hook=_unique_pairs), with the decoder made once."""
    if text.startswith("\ufeff"):  # json.loads' own refusal of a byte-order mark, word for word
        return json.loads(text, object_pairs_hook=_unique_pairs)
    return _DECODER.decode(text)


def load_json(text: str, display: str) -> Any:
    """Parse strict JSON: duplicate keys and runaway nesting are refused."""
    try:
        return _parse(text)
    except json.JSONDecodeError as exc:
        raise Refusal(
            RefusalCode.NOT_JSON, display, "is not JSON", actual=exc.msg, line=exc.lineno, column=exc.colno
        ) from exc
    except DuplicateKey as exc:
        line, column = _duplicate_position(text, exc.key)
        raise Refusal(
            RefusalCode.NOT_JSON,
            display,
            "is not JSON",
            actual=f'duplicate key "{exc.key}" in one object (which one wins is undefined)',
            line=line,
            column=column,
        ) from exc
    except RecursionError as exc:
        raise Refusal(
            RefusalCode.NOT_JSON, display, "is not JSON", actual="nesting too deep to read"
        ) from exc
    except ValueError as exc:  # a number past Python's digit limit
        found = _LONG_NUMBER.search(text)
        line, column = _line_col(text, found.start()) if found else (None, None)
        path = _path_of(text, found.start()) if found else None
        raise Refusal(
            RefusalCode.NOT_JSON,
            display,
            "is not JSON",
            field_path=path,
            actual=too_long_number(text, exc),
            line=line,
            column=column,
        ) from exc


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
#
Step = str | int


def _values(text: str) -> Iterator[tuple[tuple[Step, ...], int, bool]]:
    """(path, offset, repeats an earlier key of its object) for every value, in order.

    A small iterative walk (no recursion, so any nesting depth): containers are
    entered, scalars are skipped with the C scanner. Text after a syntax error
    ends the walk quietly (the fast path has reported it).
    """
    path: list[Step] = []
    seen: list[set[str] | None] = []  # per open container: an object's keys, None for an array
    index = _skip_blank(text, 0)
    repeated = False
    try:
        while index < len(text):
            yield tuple(path), index, repeated
            if text[index] in "{[":
                seen.append(set() if text[index] == "{" else None)
                index = _skip_blank(text, index + 1)
                if text[index] not in "}]":
                    index, repeated = _enter(text, index, path, seen[-1])
                    continue
                seen.pop()
                index += 1
            else:
                _, index = _SCAN(text, index)
            while True:  # after a value: the next sibling, or close containers
                index = _skip_blank(text, index)
                if not seen:
                    return
                if text[index] == ",":
                    previous = path.pop()
                    following = previous + 1 if isinstance(previous, int) else 0
                    index, repeated = _enter(text, _skip_blank(text, index + 1), path, seen[-1], following)
                    break
                seen.pop()
                path.pop()
                index += 1
    except (ValueError, IndexError):
        return


def _enter(
    text: str, index: int, path: list[Step], seen: set[str] | None, position: int = 0
) -> tuple[int, bool]:
    """Step into the next child: read an object's `"key":`, or number an array's item."""
    if seen is None:
        path.append(position)
        return index, False
    name, index = _scanstring(text, index + 1)
    path.append(name)
    repeated = name in seen
    seen.add(name)
    return _skip_blank(text, _skip_blank(text, index) + 1), repeated


def _duplicate_position(text: str, key: str) -> tuple[int | None, int | None]:
    """Where the value of the second occurrence of a duplicated key starts."""
    for path, offset, repeated in _values(text):
        if repeated and path and path[-1] == key:
            return _line_col(text, offset)
    return None, None


def _path_of(text: str, offset: int) -> str | None:
    """The field path (`evals[3].id`) of the value starting at `offset`."""
    for path, start, _ in _values(text):
        if start == offset:
            return (
                "".join(f"[{s}]" if isinstance(s, int) else (f".{s}" if i else s) for i, s in enumerate(path))
                or "(top level)"
            )
    return None


# ---- lines of values at C speed, for survey's examples ----------------------


class Lines:
    """Lines of values in one JSON text, remembering where the case list's items start."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._items: dict[tuple[str | int, ...], list[int]] = {}

    def line(
        self, list_path: tuple[str | int, ...], index: int, inner: tuple[str | int, ...] = ()
    ) -> int | None:
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
