"""The five-field JSONL catalog: its rules, and reading one line by line.

The rules are i-have-adhd's `validate_cases` (required fields, non-empty
unique string ids, risk in low/medium/high, non-empty criteria list) plus
what the README states of the other fields: category and prompt non-empty
strings, every criterion a non-empty string.
"""

# No `from __future__ import annotations`: a NamedTuple's (and a TypedDict's) string annotations
# are compiled one by one (validate's and every run's start-up: see problem.py).
import contextlib
import functools
import importlib
import io
import json
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, NamedTuple, Protocol, TypedDict, cast

from . import __version__, jsonl
from .errors import InputInvalid, UsageError
from .files import open_limited, read_limited
from .jsonread import long_number_column, too_long_number
from .problem import ERROR, Problem
from .schema import SOURCES_RECORD as SOURCES_RECORD  # the importer's name for it
from .schema import Risk

if TYPE_CHECKING:
    import hashlib


def _problem(line: int, message: str, column: int = 0) -> Problem:
    return Problem(line, column, "", message)


class CaseRow(TypedDict):
    """One catalog line that passed the rules: the five fields they require, typed as the rules
    make them. A line may carry more keys, which no code here reads."""

    id: str
    category: str
    prompt: str
    risk: Risk
    criteria: list[str]


class Case(Protocol):
    """What writing a catalog needs of a case (importing.model.Case is one): its line. A
    Protocol, so the core names no importing type."""

    def catalog_line(self) -> str: ...


def catalog_text(cases: Iterable[Case]) -> str:
    return "".join(catalog_chunks(cases))


def catalog_chunks(cases: Iterable[Case], size: int = 256) -> Iterator[str]:
    """The catalog in pieces of `size` lines: streamed to a file, never held whole."""
    batch: list[str] = []
    for case in cases:
        batch.append(case.catalog_line() + "\n")
        if len(batch) == size:
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def case_problems(row: dict[str, object]) -> list[str]:
    """Every rule one catalog row breaks (uniqueness is the file's concern): the catalog's rules'."""
    from .catalogrules.stream import row_problems  # see validate_lines

    return [p.message for p in row_problems(row)]


def iter_rows(lines: Iterable[bytes | str]) -> Iterator[tuple[int, object, Problem | None]]:
    """(line number, parsed value, problem) for each non-blank line."""
    for number, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield (
                    number,
                    None,
                    _problem(number, f"invalid UTF-8 at byte {exc.start + 1} of the line", exc.start + 1),
                )
                continue
        else:
            line = raw
        if not line.strip():
            continue
        try:
            yield number, json.loads(line), None
        except json.JSONDecodeError as exc:
            yield number, None, _problem(number, f"invalid JSON: {exc.msg}", exc.colno)
        except RecursionError:
            yield number, None, _problem(number, "invalid JSON: nesting too deep to read", 1)
        except ValueError as exc:  # a number past Python's digit limit
            message = f"invalid JSON: {too_long_number(line, exc)}"
            yield number, None, _problem(number, message, long_number_column(line))


def validate_lines(lines: Iterable[bytes | str]) -> tuple[int, list[Problem]]:
    """A catalog's cases and its errors, by the catalog's rules (warnings are lint's alone)."""
    # The rules load where a catalog is checked: an import writes catalogs through this module
    # and never reads one back (tests/test_cli_startup.py)
    from .catalogrules.stream import lint_lines

    raw = (line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line for line in lines)
    count, problems, _ = lint_lines(raw)
    return count, sorted((p for p in problems if p.severity == ERROR), key=lambda p: (p.line, p.column))


def open_rows(path: Path, what: str = "file") -> BinaryIO:
    """A row file opened for streaming; never a FIFO, a device or a file past --max-bytes."""
    if not path.exists():
        raise UsageError(f"{path}: no such {what}")
    try:
        return open_limited(path)
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read: {exc.strerror or exc}") from exc


def validate_file(path: Path) -> tuple[int, list[Problem]]:
    with open_rows(path, "catalog file") as stream:
        return validate_lines(stream)


def read_object_rows(
    path: Path, row_problems: Callable[[dict[str, object]], list[str]] | None = None, *, what: str = "file"
) -> list[dict[str, object]]:
    """Every row of a JSONL file of objects, as JSON gave it (its values are the caller's to
    check); all bad rows are named by line, then refused."""
    rows: list[dict[str, object]] = []
    problems: list[str] = []
    with open_rows(path, what) as stream:
        for number, row, problem in iter_rows(stream):
            if problem is not None:
                problems.append(problem.render(str(path)))
            elif not isinstance(row, dict):
                problems.append(f"{path}:{number}: expected a JSON object")
            else:
                problems += [f"{path}:{number}: {p}" for p in (row_problems(row) if row_problems else [])]
                rows.append(row)
    if problems:
        raise InputInvalid(problems)
    return rows


def load_valid(path: Path) -> list[CaseRow]:
    """A catalog's cases, refused with every problem when it breaks the five-field rules."""
    if not path.exists():
        raise UsageError(f"{path}: no such catalog (pass --cases)")
    from .catalogrules.stream import lint_lines  # see validate_lines

    rows: list[dict[str, object]] = []
    with open_rows(path, "catalog file") as stream:  # read once: the rules, and the rows
        _, found, _ = lint_lines(stream, keep=rows)
    problems = sorted((p for p in found if p.severity == ERROR), key=lambda p: (p.line, p.column))
    if problems:
        raise InputInvalid([p.render(str(path)) for p in problems])
    return cast("list[CaseRow]", rows)  # every row passed the rules, which are CaseRow's fields


# Validated once per content (issue 38) ---------------------------------------------------------


def load_valid_once(path: Path, records: Path | None) -> list[CaseRow]:
    """load_valid's cases, the rules run once per catalog content: a record in `records`, named
    by a SHA-256 over the rules' version and the catalog's SHA-256, says those bytes passed, and a
    run then only parses them. The bytes hashed are the bytes parsed (read once), so an edited
    catalog, even one edited while it is read, has no record, whoever wrote the old one; and a
    record that cannot be written costs the next run the rules, never this one its cases.
    `records` None (no folder to keep them in): load_valid, the rules every time."""
    if records is None:
        return load_valid(path)
    if not path.exists():
        raise UsageError(f"{path}: no such catalog (pass --cases)")
    try:
        data = read_limited(path)
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    digest, name = _names(data)
    record = records / f"{name}.valid"
    rows = _parsed(data)
    if rows is not None and _recorded(record):
        _keep_index(records / f"{name}.index", data, digest, rows)
        return cast("list[CaseRow]", rows)  # these bytes passed the rules before
    _, problems = validate_lines(io.BytesIO(data))  # the bytes read, not the file again
    if problems:
        raise InputInvalid([p.render(str(path)) for p in problems])
    if rows is None:  # the rules passed what a plain parse cannot read: theirs is the reading
        return load_valid(path)
    _record(record, f"{path}: {len(rows)} cases passed the rules\n")
    _keep_index(records / f"{name}.index", data, digest, rows)
    return cast("list[CaseRow]", rows)


def _names(data: bytes) -> tuple[str, str]:
    """The catalog's SHA-256, and its records' name: a SHA-256 over the rules' version and that
    digest (so one pass over the bytes serves the records and a shard's sidecar)."""
    digest = sha256_hex(data)
    return digest, sha256_hex(f"{rules_version()}\0{digest}".encode())


SMALL = 256 * 1024  # bytes the builtin SHA-256 hashes in less time than OpenSSL takes to load


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of `data`, in hex. hashlib's (OpenSSL's, the fastest per byte) where hashlib
    is loaded or the data is large; else CPython's builtin SHA-256, the same digest, which spares
    a small call loading OpenSSL (about 4 ms of CPU: `report`'s catalog and the rules' version).
    Never at the top: the hook reads catalogs through this module and never hashes one, and
    hashlib is off its module set (tests/lint/test_startup.py)."""
    if "hashlib" not in sys.modules and len(data) <= SMALL:
        builtin = _builtin_sha256()
        if builtin is not None:
            return builtin(data).hexdigest()
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _builtin_sha256() -> Callable[[bytes], "hashlib._Hash"] | None:
    """CPython's own SHA-256 (`_sha256` to 3.11, `_sha2` from 3.12), or None where it was not
    built (a build that leaves hashing to OpenSSL alone)."""
    for name in ("_sha256", "_sha2"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        found: Callable[[bytes], hashlib._Hash] = module.sha256
        return found
    return None


@functools.cache
def rules_version(package: Path = Path(__file__).parent) -> str:
    """The rules as installed: a digest of the package's version, Python's, and the path, size
    and modification time of each module of the package (as Python decides that a module's
    bytecode is stale), so an edit to a rule, or to any module a rule uses, retires every
    record. About 1 ms: a stat per module, no module read."""
    parts = [f"{__version__}\0{sys.version}\n".encode()]  # hashed whole: one digest of them all
    _digest_modules(parts.append, os.fspath(package), "")
    return sha256_hex(b"".join(parts))


def _digest_modules(update: Callable[[bytes], object], folder: str, prefix: str) -> None:
    """Feed `update` each module under `folder` as os.walk would list them (a folder's modules by
    name, then its folders by name, never __pycache__ nor a linked folder), each as its path from
    the package, size and modification time. A scandir walk carrying the relative path: os.walk
    with an os.path.relpath per module cost three times as much, for the same bytes."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:  # a folder that cannot be listed, as os.walk skips it
        return
    folders = []
    for entry in entries:
        if _is_folder(entry):
            if entry.name != "__pycache__" and not entry.is_symlink():
                folders.append(entry)
        elif entry.name.endswith(".py"):
            info = entry.stat()
            update(f"{prefix}{entry.name}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    for entry in folders:
        _digest_modules(update, entry.path, f"{prefix}{entry.name}{os.sep}")


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # as os.walk counts it: not a folder
        return False


def _parsed(data: bytes) -> list[dict[str, object]] | None:
    """The rows of a catalog as the rules read them (blank lines skipped, Unicode's blanks
    too), or None at a line that is not one JSON object."""
    rows: list[dict[str, object]] = []
    try:
        for _, _, text in _lines(data):
            row = json.loads(text)
            if type(row) is not dict:
                return None
            rows.append(row)
    except (ValueError, RecursionError):
        return None
    return rows


def _lines(data: bytes) -> Iterator[tuple[int, int, str]]:
    """(start, end, text) of each line that is not blank (Unicode's blanks too), as a file splits
    them: at b"\n" alone, the newline kept. Raises UnicodeDecodeError at a line not UTF-8."""
    at = 0
    for raw in io.BytesIO(data):
        start, at = at, at + len(raw)
        if not raw.strip():
            continue
        text = raw.decode("utf-8")
        if text.strip():
            yield start, at, text


def _recorded(record: Path) -> bool:
    """Whether the record is there: a regular file by its name (its text is for a person)."""
    try:
        return stat.S_ISREG(os.stat(record).st_mode)
    except OSError:
        return False


def _record(record: Path, text: str) -> None:
    """Write the record whole (a temporary sibling renamed into place), or not at all."""
    temp = record.with_name(f".{record.name}.{os.getpid()}.tmp")
    try:
        record.parent.mkdir(parents=True, exist_ok=True)
        temp.write_text(text, encoding="utf-8")
        os.replace(temp, record)
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink()


# The catalog's index: a shard parses only its own lines (issue 38) -----------------------------


class Indexed(NamedTuple):  # not a dataclass: dataclasses (and inspect) are off the hook's path
    """A catalog whose bytes passed the rules, with its index: every case's id and the byte span
    of its line, in catalog order. A shard needs every id (the plan is theirs), but parses only
    the lines of the cases it holds."""

    data: bytes
    sha256: str  # of `data`: the bytes hashed are the bytes parsed
    ids: list[str]
    spans: list[int]  # start and end of each case's line, flat: [start0, end0, start1, ...]
    record: Path  # the index's file

    def case(self, at: int) -> CaseRow | None:
        """The case at place `at`, or None when its line is not the index's (never served)."""
        try:
            row = json.loads(self.data[self.spans[2 * at] : self.spans[2 * at + 1]].decode("utf-8"))
        except (ValueError, RecursionError):
            return None
        if type(row) is not dict or row.get("id") != self.ids[at]:
            return None
        return cast("CaseRow", row)  # its bytes passed the rules (the .valid record) as CaseRow's fields


def indexed(path: Path, records: Path | None) -> Indexed | None:
    """The catalog with its index, when its bytes passed the rules before and the index record
    beside that record is whole; None otherwise (missing, damaged, of other bytes or rules,
    unreadable, no folder for records), and the caller takes load_valid_once's path, which says
    what is wrong and writes the index again where a damaged one was dropped here."""
    if records is None:
        return None
    try:
        data = read_limited(path)
    except OSError:
        return None
    digest, name = _names(data)
    record = records / f"{name}.index"
    if not _recorded(records / f"{name}.valid"):
        return None
    try:
        index = json.loads(read_limited(record))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError):
        index = None
    if not isinstance(index, dict) or index.get("check") != _check(
        digest, index.get("ids"), index.get("spans")
    ):
        drop_index(record)
        return None
    # the check is a digest over the catalog's and this content: the index as written for these bytes
    return Indexed(data, digest, cast("list[str]", index["ids"]), cast("list[int]", index["spans"]), record)


def drop_index(record: Path) -> None:
    """Remove an index found wrong, so the next full read writes it whole again."""
    with contextlib.suppress(OSError):
        record.unlink()


def _check(digest: str, ids: object, spans: object) -> str:
    return sha256_hex(f"{digest}\0{json.dumps([ids, spans])}".encode())


def _keep_index(record: Path, data: bytes, digest: str, rows: list[dict[str, object]]) -> None:
    """Write the index of bytes that passed the rules, once: a stat on every later run."""
    if _recorded(record):
        return
    ids = [row["id"] for row in rows]
    spans = [offset for start, end, _ in _lines(data) for offset in (start, end)]
    index = {"ids": ids, "spans": spans, "check": _check(digest, ids, spans)}
    _record(record, jsonl.line(index, ensure_ascii=True) + "\n")
