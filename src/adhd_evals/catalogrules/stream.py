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
import json
import os
import re
from collections.abc import Iterable, Iterator
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


def lint_lines(
    lines: Iterable[bytes], run: Run | None = None, keep: list[Any] | None = None
) -> tuple[int, list[Problem], SeenIds]:
    """The catalog rules, the one home of what a valid catalog is (validate uses them too).
    With `keep`, every row that parsed is appended to it: a caller that needs the rows
    reads the file once. Returns the ids E106 saw."""
    rows = RowRun(run)
    seen = rows.state(DuplicateIds).seen  # the ids E106 saw, for the caller
    clean = rows.clean  # looked up once: it is called on every line
    problems: list[Problem] = []
    cases = 0
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        cases += 1
        if number > 1 or not raw.startswith(codecs.BOM_UTF8):
            try:
                value = _decode(raw.decode("utf-8"))
                # A surrogate escape may be a lone one: the rules look (the fast path records
                # the id, so it must not run for a row the rules will see). A pair (an emoji
                # written ASCII-only) takes the slow path too; plain `\\u00e9` escapes do not.
                if (b"\\u" not in raw or not _SURROGATE_ESCAPE.search(raw)) and clean(value, number):
                    if keep is not None:
                        keep.append(value)
                    continue
            except (ValueError, RecursionError):
                pass  # the rules below say what is wrong
        row = read_row(number, raw)
        # U+00A0, U+3000...: blank, as the reference reads it; but a BOM is not whitespace to its
        # strip(), so a first line of a BOM and blanks is a row there (and E110 here)
        if row.value is None and not row.bom and _blank(row.text):
            cases -= 1
            continue
        if keep is not None and row.value is not None:
            keep.append(row.value)
        problems += rows.check(row)
    problems += check_catalog(CatalogRead(cases))
    return cases, problems, seen


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
