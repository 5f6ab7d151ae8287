"""The five-field JSONL catalog: its rules, and reading one line by line.

The rules are i-have-adhd's `validate_cases` (required fields, non-empty
unique string ids, risk in low/medium/high, non-empty criteria list) plus
what the README states of the other fields: category and prompt non-empty
strings, every criterion a non-empty string.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from .errors import InputInvalid, UsageError
from .files import check_readable
from .importing.model import FIELDS, RISKS, TEXT_FIELDS, Case
from .importing.sourcetext import long_number_column, too_long_number
from .problem import Problem


def _problem(line: int, message: str, column: int = 0) -> Problem:
    return Problem(line, column, "", message)


def catalog_text(cases: Iterable[Case]) -> str:
    return "".join(case.catalog_line() + "\n" for case in cases)


def _nonempty_string(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def case_problems(row: dict[str, Any]) -> list[str]:
    """Every rule one catalog row breaks (uniqueness is the file's concern)."""
    missing = [name for name in FIELDS if name not in row]
    if missing:
        return [f"missing fields: {', '.join(missing)}"]
    problems = []
    for name in TEXT_FIELDS:
        if not _nonempty_string(row[name]):
            problems.append(f"{name} must be a non-empty string")
    if row["risk"] not in RISKS:
        problems.append("risk must be low, medium, or high")
    criteria = row["criteria"]
    if not isinstance(criteria, list) or not criteria:
        problems.append("criteria must be a non-empty list")
    else:
        problems += [
            f"criteria[{i}] must be a non-empty string"
            for i, item in enumerate(criteria)
            if not _nonempty_string(item)
        ]
    return problems


def iter_rows(lines: Iterable[bytes | str]) -> Iterator[tuple[int, Any, Problem | None]]:
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
    """Check a catalog streamed line by line; returns (cases seen, problems)."""
    first_line: dict[str, int] = {}
    problems: list[Problem] = []
    count = 0
    for number, row, parse_problem in iter_rows(lines):
        count += 1
        if parse_problem is not None:
            problems.append(parse_problem)
            continue
        if not isinstance(row, dict):
            problems.append(_problem(number, "expected a JSON object"))
            continue
        problems += [_problem(number, message) for message in case_problems(row)]
        case_id = row.get("id")
        if isinstance(case_id, str) and case_id:
            if case_id in first_line:
                problems.append(
                    _problem(number, f'duplicate case id "{case_id}" (first on line {first_line[case_id]})')
                )
            else:
                first_line[case_id] = number
    return count, problems


def open_rows(path: Path, what: str = "file") -> BinaryIO:
    """A row file opened for streaming; never a FIFO, a device or a file past --max-bytes."""
    if not path.exists():
        raise UsageError(f"{path}: no such {what}")
    try:
        check_readable(path)
        return path.open("rb")
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read: {exc.strerror or exc}") from exc


def validate_file(path: Path) -> tuple[int, list[Problem]]:
    with open_rows(path, "catalog file") as stream:
        return validate_lines(stream)


def read_object_rows(
    path: Path, row_problems: Callable[[dict[str, Any]], list[str]] | None = None, *, what: str = "file"
) -> list[dict[str, Any]]:
    """Every row of a JSONL file of objects; all bad rows are named by line, then refused."""
    rows: list[dict[str, Any]] = []
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


def load_valid(path: Path) -> list[dict[str, Any]]:
    """A catalog's cases, refused with every problem when it breaks the five-field rules."""
    if not path.exists():
        raise UsageError(f"{path}: no such catalog (pass --cases)")
    _, problems = validate_file(path)
    if problems:
        raise InputInvalid([p.render(str(path)) for p in problems])
    return read_object_rows(path)
