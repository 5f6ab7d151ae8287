"""Lint a five-field catalog, streamed line by line.

Every rule in rules/ is the documented source of truth. Running ten rule
generators on each of 200,000 clean lines would cost more than parsing
them, so a single fast check first proves a row clean; only rows it cannot
prove clean go through the rules (a test keeps the two in agreement).
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

from ..files import check_readable
from ..importing.model import RISKS
from ..importing.sourcetext import DuplicateKey, _unique_pairs, long_number_column, too_long_number
from ..problem import ERROR, Problem
from .rules import CATALOG_RULES, Row, empty_catalog, stamp
from .rules.bundled_criterion import BUNDLED


def fast_ok(value: Any, seen: dict[str, int], number: int) -> bool:
    """True when no catalog rule would report this row (and records its id)."""
    if type(value) is not dict:
        return False
    try:
        case_id, category, prompt = value["id"], value["category"], value["prompt"]
        risk, criteria = value["risk"], value["criteria"]
    except KeyError:
        return False
    if (
        type(case_id) is not str
        or type(category) is not str
        or type(prompt) is not str
        or risk not in RISKS
        or type(criteria) is not list
        or not criteria
        or case_id in seen
        or not case_id.strip()
        or not category.strip()
        or not prompt.strip()
    ):
        return False
    for item in criteria:
        if type(item) is not str or not item.strip() or BUNDLED.search(item):
            return False
    seen[case_id] = number
    return True


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


def lint_stream(stream: BinaryIO) -> tuple[int, list[Problem], dict[str, int]]:
    """(cases, problems, id -> line) for a catalog stream; memory holds only the ids."""
    return lint_lines(stream)


def lint_lines(lines: Iterable[bytes]) -> tuple[int, list[Problem], dict[str, int]]:
    """The catalog rules, the one home of what a valid catalog is (validate uses them too)."""
    states: dict[str, dict[str, Any]] = {rule.ID: {} for rule in CATALOG_RULES}
    seen: dict[str, int] = states["E106"].setdefault("seen", {})
    problems: list[Problem] = []
    cases = 0
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        cases += 1
        if number > 1 or not raw.startswith(codecs.BOM_UTF8):
            try:
                value = json.loads(raw.decode("utf-8"), object_pairs_hook=_unique_pairs)
                if fast_ok(value, seen, number):
                    continue
            except (ValueError, RecursionError):
                pass  # the rules below say what is wrong
        row = read_row(number, raw)
        for rule in CATALOG_RULES:
            problems += stamp(rule, rule.check(row, states[rule.ID]))
    problems += stamp(empty_catalog, empty_catalog.check(cases))
    return cases, problems, seen


def row_problems(row: dict[str, Any]) -> list[Problem]:
    """The errors the catalog rules find in one row on its own (not a duplicate id)."""
    text = json.dumps(row, ensure_ascii=False)
    found = Row(1, text, row)
    states: dict[str, dict[str, Any]] = {rule.ID: {} for rule in CATALOG_RULES}
    problems = [p for rule in CATALOG_RULES for p in stamp(rule, rule.check(found, states[rule.ID]))]
    return [p for p in problems if p.severity == ERROR]


def lint_catalog(path: Path) -> tuple[int, list[Problem], dict[str, int]]:
    try:
        check_readable(path)
        with path.open("rb") as stream:
            return lint_stream(stream)
    except OSError as exc:  # not a regular file, past --max-bytes, or unreadable
        return 0, [Problem(1, 1, "CaseFileUnreadable", f"{path.name} cannot be read: {_reason(exc)}")], {}


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)
