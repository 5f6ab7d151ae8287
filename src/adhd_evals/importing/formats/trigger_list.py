"""Trigger lists: queries that should, and should not, make the model invoke a skill.

Two shapes, both read whole:
- skill-creator's `[{"query": ..., "should_trigger": true|false}, ...]`;
- two lists, `{"should_trigger": [...], "should_not_trigger": [...]}`, each item a query
  (a string) or an object with a `query` (or `prompt`) and optionally an `id`.

Each query becomes a trigger case (formats/_triggers.py): its prompt is the query, its one
criterion says whether the skill is invoked, its check reads the run's trace. The skill's
name is --skill NAME, else the file's `skill_name` or `skill`, else the SKILL.md beside it.
Every other key is kept as a note; a query that is not text, a `should_trigger` that is not
true or false, or two cases with one id refuse the file whole.
"""

from __future__ import annotations

from pathlib import Path

from ..model import Case, Refusal, RefusalCode, describe
from ._common import (
    ReadOptions,
    Refuser,
    actual_of,
    collecting,
    note,
    read_json_source,
    require_text,
    slug,
    strict,
    text_problem,
)
from ._triggers import skill_md_name, trigger_check

NAME = "trigger-list"
REASON = "is not a trigger list"
CODE = RefusalCode.NOT_TRIGGER_LIST
LISTS = {"should_trigger": True, "should_not_trigger": False}  # the two-list shape's keys
SKILL_KEYS = ("skill_name", "skill")
SHAPES = (
    'a list of {"query", "should_trigger"} objects, or {"should_trigger": [...], "should_not_trigger": [...]}'
)

Entry = tuple[object, bool | None, tuple[str | int, ...]]  # (item, its list's polarity, where)


def _read(
    source: Path, display: str, options: ReadOptions, collect: bool
) -> tuple[list[Case], list[Refusal], bool]:
    data, refuse, surrogates = read_json_source(source, display, CODE, REASON)
    entries, top = _entries(refuse, data)
    skill = _skill(refuse, options, top, source)
    category = options.category or skill
    prefix = slug(skill) or "trigger"
    cases: list[Case] = []
    refusals: list[Refusal] = []
    for index, entry in enumerate(entries):
        try:
            cases.append(_case(refuse, entry, index, prefix, skill, category, options.risk, display))
        except Refusal as refusal:
            if not collect:
                raise
            refusals.append(refusal)
    refusals += [] if refusals else _duplicates(refuse, cases)
    notes = [note(refuse, f"(file) {k}", v, case="(file)", at=(k,)) for k, v in top.items() if k not in LISTS]
    if notes and cases:  # what the file says beside its lists travels with the first case
        cases[0] = cases[0]._replace(notes=(*notes, *cases[0].notes))
    return cases, refusals, surrogates


read = strict(_read, CODE, REASON)
problems = collecting(_read, CODE, REASON)


def _entries(refuse: Refuser, data: object) -> tuple[list[Entry], dict[str, object]]:
    """Every query's item, with its list's polarity in the two-list shape, and the top
    level's other keys (the two-list shape's)."""
    if isinstance(data, list):
        found: list[Entry] = [(item, None, (at,)) for at, item in enumerate(data)]
        top: dict[str, object] = {}
    elif isinstance(data, dict) and any(key in data for key in LISTS):
        found, top = [], data
        for key, polarity in LISTS.items():
            items = data.get(key, [])
            if not isinstance(items, list):
                raise refuse(field_path=key, at=(key,), expected="a list of queries", actual=describe(items))
            found += [(item, polarity, (key, at)) for at, item in enumerate(items)]
    else:
        raise refuse(field_path="(top level)", expected=SHAPES, actual=describe(data))
    if not found:
        raise refuse(
            code=RefusalCode.FILE_EMPTY,
            field_path="(top level)",
            expected="at least one query",
            actual="none",
        )
    return found, top


def _skill(refuse: Refuser, options: ReadOptions, top: dict[str, object], source: Path) -> str:
    if options.skill is not None:
        return options.skill
    for key in SKILL_KEYS:
        if key in top:
            problem = text_problem(top[key])
            if problem is not None:
                raise refuse(field_path=key, at=(key,), expected=problem, actual=describe(top[key]))
            return str(top[key]).strip()
    named = skill_md_name(source)
    if named is None:
        raise refuse(
            field_path="skill",
            expected="the name of the skill the queries are for",
            actual="none in the file and no SKILL.md beside it",
            hint="pass --skill NAME",
        )
    return named


def _case(
    refuse: Refuser,
    entry: Entry,
    index: int,
    prefix: str,
    skill: str,
    category: str,
    risk: str,
    display: str,
) -> Case:
    raw, polarity, at = entry
    label = _label(raw, at)
    if isinstance(raw, str) and polarity is not None:  # a two-list item may be the query alone
        raw = {"query": raw}
    if not isinstance(raw, dict):
        raise refuse(case=label, at=at, expected="an object with a query", actual=describe(raw))
    key = "query" if "query" in raw or "prompt" not in raw else "prompt"
    query = require_text(refuse, raw, key, case=label, at=(*at, key))
    if polarity is None:
        polarity = raw.get("should_trigger")
        if not isinstance(polarity, bool):
            where = (*at, "should_trigger")
            raise refuse(
                case=label, field_path="should_trigger", at=where, expected="true or false",
                actual=actual_of(raw, "should_trigger"),
            )  # fmt: skip
    used = {key, "id", "should_trigger"}
    notes = tuple(note(refuse, k, v, case=label, at=(*at, k)) for k, v in raw.items() if k not in used)
    case_id = _case_id(refuse, raw, prefix, at, label)
    check = trigger_check(skill, polarity)
    return Case(case_id, category, query, risk, (check,), notes, f"{display}, {label}")


def _label(raw: object, at: tuple[str | int, ...]) -> str:
    where = f"{at[0]}[{at[1]}]" if len(at) == 2 else f"#{int(at[0]) + 1}"
    case_id = raw.get("id") if isinstance(raw, dict) else None
    if isinstance(case_id, (str, int)) and not isinstance(case_id, bool) and str(case_id).strip():
        return f"query {case_id!r} ({where})" if isinstance(case_id, str) else f"query {case_id} ({where})"
    return f"query {where}"


def _case_id(
    refuse: Refuser, raw: dict[str, object], prefix: str, at: tuple[str | int, ...], label: str
) -> str:
    """The item's own id (a digit-only one after the skill's slug), else its place."""
    if "id" not in raw:
        return f"{prefix}-{slug(str(at[0])) + '-' if len(at) == 2 else ''}{int(at[-1]) + 1}"
    value = raw["id"]
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{prefix}-{value}"
    problem = text_problem(value)
    if problem is not None:
        raise refuse(case=label, field_path="id", at=(*at, "id"), expected=problem, actual=describe(value))
    text = str(value).strip()
    return f"{prefix}-{text}" if text.isdigit() else text


def _duplicates(refuse: Refuser, cases: list[Case]) -> list[Refusal]:
    seen: dict[str, Case] = {}
    for case in cases:
        first = seen.setdefault(case.id, case)
        if first is not case:
            return [
                refuse(
                    case=case.origin.rsplit(", ", 1)[-1],
                    field_path="id",
                    expected="an id no other query has",
                    actual=f'"{case.id}", which {first.origin.rsplit(", ", 1)[-1]} has too',
                )
            ]
    return []


__all__ = ["NAME", "problems", "read"]
