"""Assertion objects and extra criteria under a dialect, shared by the readers.

Without a dialect nothing here runs but `shape_of`: the readers behave as
they always did. With one, an object that matches a rule becomes that rule's
check; its arguments are checked strictly (a missing needle key, a pattern
Python's `re` cannot compile, a count that is not a whole number are refused
by case and field), and keys the check does not use travel as notes.
"""

from __future__ import annotations

from typing import Any

from ..dialect import (
    COUNTS,
    MAX_COUNT,
    NO_NEEDLE,
    ONE_TEXT,
    PATTERNS,
    TEXTS,
    Dialect,
    NeedleList,
    Rule,
    options,
    path_text,
    regex_problem,
    walk,
)
from ..model import Check, CheckKind, Note, describe
from ._common import Refuser, compact, note, text_problem

Path = tuple[str | int, ...]

_PHRASES = {
    "contains": "Contains {0}",
    "contains_any": "Contains any of {0}",
    "contains_all": "Contains all of {0}",
    "contains_none": "Contains none of {0}",
    "starts_with": "Starts with {0}",
    "equals": "Is exactly {0}",
    "matches_exactly": "Matches {0} (evalflow's exact match)",
    "regex": "Matches the pattern {0}",
    "not_regex": "Does not match the pattern {0}",
    "min_chars": "Has at least {0} characters",
    "max_chars": "Has at most {0} characters",
    "min_words": "Has at least {0} words",
    "max_words": "Has at most {0} words",
    "in_order": "Contains, in this order, {0}",
    "is_json": "Is valid JSON",
}


def shape_of(item: dict[str, Any]) -> str:
    """How the summary and survey name an object's shape: its type/kind, else its keys."""
    for key in ("type", "kind"):
        value = item.get(key)
        if isinstance(value, (str, int, float, bool)) or (value is None and key in item):
            return f"{{{key}: {compact(value)}}}"
    return "{" + ", ".join(sorted(map(str, item))) + "}"


def is_typed(item: dict[str, Any]) -> bool:
    """An object whose meaning a dialect could declare (not plain prose)."""
    return "type" in item or "kind" in item or "text" not in item


def words(check: str, needle: Any, ignore_case: bool | None) -> str:
    """A criterion in plain words for a check that came with no rubric text."""
    if isinstance(needle, list):
        shown = ", ".join(compact(n) for n in needle)
    elif isinstance(needle, int) or needle is None:
        shown = str(needle)
    else:
        shown = compact(needle)
    text = _PHRASES[check].format(shown)
    if ignore_case is not None:
        text += " (any letter case)" if ignore_case else " (letter case must match)"
    return text


def converted(
    refuse: Refuser, rule: Rule, item: dict[str, Any], label: str, path: str, at: Path
) -> tuple[Check, list[Note]]:
    """The check a matched object becomes, and its unused keys as notes."""
    used = rule.used
    notes = [
        note(refuse, f"{path}.{key}", value, case=label, at=(*at, key))
        for key, value in item.items()
        if key not in used
    ]
    if rule.check == "unwritten":
        verbatim = compact(item)
        text = _criterion(refuse, rule, item, label, path, at) or verbatim
        return Check(text, CheckKind.UNWRITTEN, (verbatim,), via=rule.label), notes
    needle = _needle(refuse, rule.check, rule.needle, item, label, path, at)
    args = () if rule.check in NO_NEEDLE else (needle,)
    criterion = _criterion(refuse, rule, item, label, path, at) or words(rule.check, needle, rule.ignore_case)
    if rule.schema is not None and rule.criterion is None:
        criterion += f" matching the schema of the dialect's {rule.label}"
    return Check(criterion, rule.kind, args, rule.options, via=rule.label), notes


def _criterion(
    refuse: Refuser, rule: Rule, item: dict[str, Any], label: str, path: str, at: Path
) -> str | None:
    if rule.criterion is None or rule.criterion not in item:
        return None
    value = item[rule.criterion]
    problem = text_problem(value)
    if problem:
        raise refuse(
            case=label,
            field_path=f"{path}.{rule.criterion}",
            at=(*at, rule.criterion),
            expected=problem,
            actual=describe(value),
        )
    return str(value)


def _needle(
    refuse: Refuser, check: str, key: str | None, item: dict[str, Any], label: str, path: str, at: Path
) -> Any:
    if key is None:
        return None
    where, field = (*at, key), f"{path}.{key}"
    if key not in item:
        raise refuse(
            case=label,
            field_path=field,
            at=at,
            expected=f"the {key!r} key that holds {check}'s argument (the dialect says so)",
            actual="missing",
        )
    return argument(refuse, check, item[key], label, field, where)


def argument(refuse: Refuser, check: str, value: Any, label: str, field: str, where: Path) -> Any:
    """The argument a check receives, checked for its kind."""
    if check in COUNTS:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_COUNT:
            raise refuse(
                case=label,
                field_path=field,
                at=where,
                expected=f"a whole number from 0 to {MAX_COUNT:,}",
                actual=describe(value),
            )
        return value
    if check in TEXTS:
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items or any(text_problem(n) for n in items):
            raise refuse(
                case=label,
                field_path=field,
                at=where,
                expected="a non-empty string or a non-empty list of non-empty strings",
                actual=describe(value),
            )
        return items
    problem = text_problem(value) if check in ONE_TEXT else None
    if problem:
        raise refuse(case=label, field_path=field, at=where, expected=problem, actual=describe(value))
    if check in PATTERNS:
        bad = regex_problem(value)
        if bad:
            raise refuse(
                case=label,
                field_path=field,
                at=where,
                expected="a pattern Python's re compiles",
                actual=f"{compact(value)}: {bad}",
            )
    return value


def criteria_checks(
    refuse: Refuser, raw: dict[str, Any], dialect: Dialect, label: str, at: Path, assertion: Any
) -> tuple[list[Check], list[Note], set[str]]:
    """Checks from the dialect's `cases.criteria` places, in the order listed.

    `assertion(item, path, where)` is the reader's own treatment of one list
    item (a string is prose, an object goes through the rules). Also returns
    the case keys where something was found: those are the dialect's, not
    notes and not the format's own lists. A place that holds nothing leaves
    its key to the format (never silently dropped).
    """
    checks: list[Check] = []
    notes: list[Note] = []
    roots: set[str] = set()
    for entry in dialect.cases.criteria:
        if isinstance(entry, NeedleList):
            found = _needle_list(refuse, raw, entry, label, at)
            checks += found
            roots.update(str(sub[0]) for sub, _ in walk(raw, entry.at))
            continue
        for sub, value in walk(raw, entry):
            roots.add(str(sub[0]))
            items = value if isinstance(value, list) else [value]
            for index, item in enumerate(items):
                tail = (*sub, index) if isinstance(value, list) else sub
                check, extra = assertion(item, path_text(tail), (*at, *tail))
                checks.append(check)
                notes += extra
    return checks, notes, roots


def _needle_list(
    refuse: Refuser, raw: dict[str, Any], entry: NeedleList, label: str, at: Path
) -> list[Check]:
    checks = []
    for sub, value in walk(raw, entry.at):
        field = path_text(sub)
        if value == []:  # nothing required (or forbidden) for this case
            continue
        needles = argument(refuse, "contains_all", value, label, field, (*at, *sub))
        for needle in needles:
            if entry.check == "contains_none":
                check = Check(
                    words("contains_none", [needle], entry.ignore_case),
                    CheckKind.CONTAINS_NONE,
                    ([needle],),
                    options(entry.ignore_case),
                )
            else:
                argument(refuse, entry.check, needle, label, field, (*at, *sub))
                check = Check(
                    words(entry.check, needle, entry.ignore_case),
                    CheckKind(entry.check),
                    (needle,),
                    options(entry.ignore_case),
                )
            checks.append(check._replace(via=f"criteria {entry.at} -> {entry.check}"))
    return checks
