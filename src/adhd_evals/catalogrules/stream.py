"""A five-field catalog read by its rules, streamed line by line (validate, lint and runs).

Every rule in this package is the documented source of truth. Running ten rule
generators on each of 200,000 clean lines would cost more than parsing
them, so the fast path (engine.RowRun.clean) first proves a row clean by what
each rule declares lets it be skipped; only rows it cannot prove clean go
through the rules (a property test keeps the two in agreement).
"""

from __future__ import annotations

import codecs
import functools
import itertools
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from ..files import open_limited
from ..jsonread import DuplicateKey, long_number_column, too_long_number
from ..jsonread import unique_pairs as _unique_pairs
from ..problem import ERROR, Problem
from .contract import CatalogRead, Run
from .duplicate_id import DuplicateIds, SeenIds
from .engine import RowRun, check_catalog
from .row import Row


def read_row(number: int, raw: bytes) -> Row:
    bom = number == 1 and raw.startswith(codecs.BOM_UTF8)
    if bom:
        raw = raw[len(codecs.BOM_UTF8) :]
    try:
        text = raw.decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError as exc:
        return Row(number, None, None, decode_offset=exc.start, bom=bom)
    try:
        return Row(number, text, json.loads(text, object_pairs_hook=_unique_pairs), bom=bom)
    except json.JSONDecodeError as exc:
        return Row(number, text, None, parse_error=exc.msg, parse_column=exc.colno, bom=bom)
    except DuplicateKey as exc:  # keep linting the row as a last-key-wins reader sees it
        try:
            return Row(number, text, json.loads(text), duplicate_key=exc.key, bom=bom)
        except json.JSONDecodeError as later:  # and the line breaks JSON after the duplicate too
            return Row(number, text, None, parse_error=later.msg, parse_column=later.colno, bom=bom)
    except RecursionError:
        return Row(number, text, None, parse_error="nesting too deep", bom=bom)
    except ValueError as exc:  # an integer past Python's digit limit
        column = long_number_column(text)
        return Row(number, text, None, parse_error=too_long_number(text, exc), parse_column=column, bom=bom)


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
# One decoder for every line: json.loads with a hook builds a decoder (and its scanner) per call.
_decode = json.JSONDecoder(object_pairs_hook=_unique_pairs).decode


def lint_stream(stream: BinaryIO) -> tuple[int, list[Problem], SeenIds]:
    """(cases, problems, ids) for a catalog stream; memory holds only the ids."""
    return lint_lines(stream)


# The line pattern is compiled (a few milliseconds) only for a catalog longer than this: a
# hook's twenty cases are read faster without it.
PATTERN_AFTER = 1000


def lint_lines(
    lines: Iterable[bytes],
    run: Run | None = None,
    keep: list[Any] | None = None,
    *,
    pattern_after: int = PATTERN_AFTER,
) -> tuple[int, list[Problem], SeenIds]:
    """The catalog rules, the one home of what a valid catalog is (validate uses them too).
    With `keep`, every row that parsed is appended to it: a caller that needs the rows
    reads the file once. Returns the ids E106 saw. After `pattern_after` lines, each line
    meets the rules' line pattern first (RowRun.line_clean), then the parse if it must."""
    rows = RowRun(run)
    seen = rows.state(DuplicateIds).seen  # the ids E106 saw, for the caller
    read = _Read(rows, keep)
    numbered = enumerate(lines, start=1)
    for number, raw in itertools.islice(numbered, pattern_after):
        read.line(number, raw)
    following = next(numbered, None)
    if following is not None:  # a long catalog: the pattern is worth compiling
        vouch = rows.line_clean()
        rest = itertools.chain((following,), numbered)
        if vouch is None:
            for number, raw in rest:
                read.line(number, raw)
        else:
            _vouched(read, vouch, rest)
    read.problems += check_catalog(CatalogRead(read.cases))
    return read.cases, read.problems, seen


def _vouched(read: _Read, vouch: Callable[[str, int], bool], lines: Iterable[tuple[int, bytes]]) -> None:
    """Lines the pattern vouches for are counted (and kept, parsed); the rest are `read.line`."""
    loads = json.loads  # no hook: the pattern admits no repeated key
    keep = read.keep
    for number, raw in lines:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            read.line(number, raw)  # E110 says where
            continue
        if vouch(text, number):
            read.cases += 1
            if keep is not None:
                keep.append(loads(text))
        else:
            read.line(number, raw)


class _Read:
    """One catalog read line by line: its non-blank lines so far, and the rules' problems."""

    def __init__(self, rows: RowRun, keep: list[Any] | None) -> None:
        self.rows = rows
        self.clean = rows.clean  # looked up once: it is called on every line
        self.keep = keep
        self.cases = 0
        self.problems: list[Problem] = []

    def line(self, number: int, raw: bytes) -> None:
        """A line through the fast path of the parse and the rules' predicates, else the rules."""
        if not raw.strip():
            return
        self.cases += 1
        keep = self.keep
        if number > 1 or not raw.startswith(codecs.BOM_UTF8):
            try:
                value = _decode(raw.decode("utf-8"))
                # A surrogate escape may be a lone one: the rules look (the fast path records
                # the id, so it must not run for a row the rules will see). A pair (an emoji
                # written ASCII-only) takes the slow path too; plain `\\u00e9` escapes do not.
                if (b"\\u" not in raw or not _SURROGATE_ESCAPE.search(raw)) and self.clean(value, number):
                    if keep is not None:
                        keep.append(value)
                    return
            except (ValueError, RecursionError):
                pass  # the rules below say what is wrong
        row = read_row(number, raw)
        # U+00A0, U+3000...: blank, as the reference reads it; but a BOM is not whitespace to its
        # strip(), so a first line of a BOM and blanks is a row there (and E110 here)
        if row.value is None and not row.bom and _blank(row.text):
            self.cases -= 1
            return
        if keep is not None and row.value is not None:
            keep.append(row.value)
        self.problems += self.rows.check(row)


def _blank(text: str | None) -> bool:
    """A line of only whitespace, Unicode's included: i-have-adhd's validator reads the file as
    text and skips every line whose `strip()` is empty (a line of U+00A0 is no row there)."""
    return text is not None and not text.strip()


def row_problems(row: dict[str, object]) -> list[Problem]:
    """The errors the catalog rules find in one row on its own (not a duplicate id)."""
    text = json.dumps(row, ensure_ascii=False)
    return [p for p in RowRun().check(Row(1, text, row)) if p.severity == ERROR]


def lint_catalog(path: Path, *, keep_ids: bool = False) -> tuple[int, list[Problem], SeenIds]:
    """Lint a catalog file. Its ids are kept as hashes (lines read again on a repeat)
    unless `keep_ids`, for a caller that needs every id and its line."""
    try:
        with open_limited(path) as stream:
            size = os.fstat(stream.fileno()).st_size
            run = Run() if keep_ids else Run(functools.partial(_rows_in, path), _rows_expected(stream, size))
            return lint_lines(stream, run)
    except OSError as exc:  # not a regular file, past --max-bytes, or unreadable
        problem = Problem(1, 1, "CaseFileUnreadable", f"{path.name} cannot be read: {_reason(exc)}")
        return 0, [problem], SeenIds()


def _rows_expected(stream: BinaryIO, size: int, sample: int = 1 << 16) -> int:
    """About how many rows the file holds, from its size and its first 64 KiB's lines
    (with a margin), so the id table rarely has to grow. The stream is left at its start."""
    head = stream.read(sample)
    stream.seek(0)
    lines = head.count(b"\n") or 1
    return size * lines // max(len(head), 1) * 5 // 4


def _rows_in(path: Path) -> Iterator[Row]:
    """The file's rows read again (E106 finds the line of an id's first appearance in them)."""
    with open_limited(path) as stream:
        for number, raw in enumerate(stream, start=1):
            if raw.strip():
                yield read_row(number, raw)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)
