"""E104 wrong-type: id, category, prompt and risk are strings; criteria is a list of strings.

A number where an id belongs, or one string where a list of criteria belongs,
breaks the tools that read the catalog (or quietly iterates over characters).

Passing: `{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}`
Failing: `{"id": 7, ...}` or `{"criteria": "x", ...}`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..problem import ERROR, Finding
from ..schema import TEXT_FIELDS
from .contract import ROW, TEXT, TEXTS, Field, Predicate, RowCheck, Run
from .position import column_of
from .row import Row

ID = "E104"
NAME = "wrong-type"
SEVERITY = ERROR
SCOPE = ROW
_STRINGS = (*TEXT_FIELDS, "risk")
_TYPE_NAMES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    type(None): "null",
}


def start(run: Run) -> RowCheck:
    return check  # nothing is remembered across rows


# JSON makes no subclass of str, so `type` is `isinstance` here; a set of the items' types
# is one C loop
clean = Predicate(
    " and ".join(f"type(row[{name!r}]) is str" for name in _STRINGS)
    + " and type(row['criteria']) is list and {*map(type, row['criteria'])} <= STR",
    STR={str},
)
facts = (*(Field(name, TEXT) for name in _STRINGS), Field("criteria", TEXTS))


def check(row: Row) -> Iterator[Finding]:
    if not (row.parsed and isinstance(row.value, dict)) or clean(row.value):
        return
    for name in _STRINGS:
        if name in row.value and not isinstance(row.value[name], str):
            yield _problem(row, name, "a string")
    criteria = row.value.get("criteria")
    if "criteria" in row.value and not isinstance(criteria, list):
        yield _problem(row, "criteria", "a list of strings")
    elif isinstance(criteria, list) and any(not isinstance(item, str) for item in criteria):
        yield Finding(
            row.number,
            column_of(row.text, "criteria"),
            "criteria: expected a list of strings, found an item that is not a string",
        )


def _problem(row: Row, name: str, expected: str) -> Finding:
    actual = _TYPE_NAMES.get(type(row.value[name]), type(row.value[name]).__name__)
    return Finding(row.number, column_of(row.text, name), f"{name}: expected {expected}, found {actual}")
