"""skill-creator `evals.json`: {"skill_name", "evals": [{"id", "prompt", ...}]}.

Mapping (see the README, "How each format maps"): `id` and `prompt` are strict; the assertion list is
read under either spelling; documented `content_contains_*` objects become
mechanical checks; everything else a person must judge becomes a placeholder,
carrying the source object verbatim when it has more than a `text`.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import cast

from ..dialect_paths import reach
from ..dialect_words import WHOLE_FILE
from ..model import Case, Refusal, RefusalCode, describe
from ._common import (
    ReadOptions,
    Refuser,
    collecting,
    note,
    read_json_source,
    strict,
    text_problem,
)
from ._evals_json_asserts import success_checks
from ._evals_json_cases import _FileReading, _first_key, _label, _steps
from ._triggers import skill_md_name

# success_checks: the tests import it from the format's module, where it always was.
__all__ = ["NAME", "problems", "read", "success_checks"]

NAME = "evals-json"


# Top-level keys that mean "this is another kind of file", with what it is.
_OTHER_SHAPES = {
    "cases": 'a "cases" list where evals-json has "evals"',
    "tests": 'a "tests" list where evals-json has "evals"',
    "scenarios": 'a "scenarios" list where evals-json has "evals"',
    "test_cases": 'a "test_cases" list (an evalflow dataset? try --format evalflow)',
    "evaluations": 'an "evaluations" list where evals-json has "evals"',
    "should_trigger": "a trigger-eval file (should_trigger lists): try --format trigger-list",
    "results": "a results file (results of a run), not cases",
}


def _read(
    source: Path, display: str, options: ReadOptions, collect: bool
) -> tuple[list[Case], list[Refusal], bool]:
    data, refuse, surrogates = read_json_source(
        source, display, RefusalCode.NOT_EVALS_JSON, "is not an evals-json file"
    )
    reading = _FileReading(refuse, options.dialect, surrogates, default_criteria=options.default_criteria)
    evals, list_key = _evals_list(refuse, data, reading.shape.at)
    top = data if isinstance(data, dict) else {}
    reading.trigger_skill = functools.cache(lambda: _trigger_skill(refuse, top, source, options))
    reading.file_category = _category(refuse, top, source, options)
    reading.risk, reading.display = options.risk, display
    file_notes = [
        note(refuse, f"(file) {k}", v, case="(file)", at=(k,))
        for k, v in top.items()
        if k not in ("skill_name", list_key)
    ]
    cases: list[Case] = []
    refusals: list[Refusal] = []
    at_list: tuple[str | int, ...] = () if list_key == WHOLE_FILE else (list_key,)
    kept: list[tuple[int, object]] = []  # the raw cases read (duplicate ids are told by their raw keys)
    for index, raw in enumerate(evals):
        try:
            if reading.skipped(raw, index, options):
                continue
            cases.append(reading.case(raw, index, (*at_list, index)))
            kept.append((index, raw))
        except Refusal as refusal:
            if not collect:
                raise
            refusals.append(refusal)
    if not refusals:
        refusals += _duplicate_ids(refuse, cases, kept, at_list, reading.shape.id)
    if file_notes and cases:  # keys beside skill_name/evals travel with the first case
        cases[0] = cases[0]._replace(notes=(*file_notes, *cases[0].notes))
    return cases, refusals, surrogates


read = strict(
    _read, RefusalCode.NOT_EVALS_JSON, "is not an evals-json file"
)  # the import: the first refusal stops it


problems = collecting(
    _read, RefusalCode.NOT_EVALS_JSON, "is not an evals-json file"
)  # lint: every refusal in the file, not only the first


def _evals_list(refuse: Refuser, data: object, keys: tuple[str, ...]) -> tuple[list[object], str]:
    """The case list and where it was: "evals", or where the dialect says."""
    for key in keys:
        if key == WHOLE_FILE and isinstance(data, list):
            return _nonempty(refuse, data, ()), key
        if key != WHOLE_FILE and isinstance(data, dict) and key in data:
            return _nonempty(refuse, data[key], (key,)), key
    if keys:
        raise refuse(
            field_path="(top level)" if WHOLE_FILE in keys and not isinstance(data, dict) else keys[0],
            expected="a case list at " + " or ".join(f'"{k}"' for k in keys) + " (as the dialect says)",
            actual=describe(data),
        )
    return _nonempty(refuse, _legacy_list(refuse, data), ("evals",)), "evals"


def _nonempty(refuse: Refuser, evals: object, at: tuple[str, ...]) -> list[object]:
    where = at[0] if at else "(top level)"
    if not isinstance(evals, list):
        raise refuse(field_path=where, at=at, expected="a list of cases", actual=describe(evals))
    if not evals:
        raise refuse(
            code=RefusalCode.FILE_EMPTY,
            field_path=where,
            at=at,
            expected="at least one case",
            actual="an empty list",
        )
    return evals


def _legacy_list(refuse: Refuser, data: object) -> object:
    if isinstance(data, list):
        raise refuse(
            field_path="(top level)",
            expected='an object with an "evals" list',
            actual=describe(data),
            hint='a bare list of cases: wrap it as {"skill_name": "...", "evals": [...]}',
        )
    if not isinstance(data, dict):
        raise refuse(
            field_path="(top level)", expected='an object with an "evals" list', actual=describe(data)
        )
    if "evals" not in data:
        found = next((what for key, what in _OTHER_SHAPES.items() if key in data), None)
        raise refuse(
            field_path="evals",
            expected="a list of cases",
            actual="missing",
            hint=f"found {found}" if found else f"top-level keys are: {', '.join(map(str, data)) or 'none'}",
        )
    return data["evals"]


def _category(refuse: Refuser, data: dict[str, object], source: Path, options: ReadOptions) -> str:
    if options.category is not None:
        return options.category
    if "skill_name" in data:
        problem = text_problem(data["skill_name"])
        if problem:
            raise refuse(
                field_path="skill_name",
                at=("skill_name",),
                expected=problem,
                actual=describe(data["skill_name"]),
            )
        return str(data["skill_name"]).strip()
    return skill_folder(source)


def _trigger_skill(refuse: Refuser, top: dict[str, object], source: Path, options: ReadOptions) -> str:
    """The skill trigger cases name: --skill, the file's skill_name (or `skill`, as trigger files
    name it), or the SKILL.md beside it."""
    given = (top.get(key) for key in ("skill_name", "skill"))
    named = options.skill or next((str(v).strip() for v in given if isinstance(v, str) and v.strip()), None)
    named = named or skill_md_name(source)
    if not named:
        raise refuse(
            field_path="skill_name",
            expected="the skill the should_trigger cases are about",
            actual="none in the file and no SKILL.md beside it",
            hint="pass --skill NAME",
        )
    return named


def skill_folder(source: Path) -> str:
    """The skill's folder: the directory holding `evals/`, else the file's own."""
    folder = source.resolve().parent
    if folder.name == "evals" and folder.parent.name:
        folder = folder.parent
    return folder.name or "evals"


def _duplicate_ids(
    refuse: Refuser,
    cases: list[Case],
    kept: list[tuple[int, object]],
    at_list: tuple[str | int, ...],
    id_keys: tuple[str, ...],
) -> list[Refusal]:
    """Two cases with one catalog id; `kept` is each case's (index, raw case) in the file."""
    if len({case.id for case in cases}) == len(cases):
        return []  # the common file: no id twice (found by a set, not a walk)
    first: dict[str, int] = {}
    found = []
    for position, case in enumerate(cases):
        index, raw = kept[position]
        if case.id in first:
            earlier, earlier_raw = kept[first[case.id]]
            # an object: case() refused anything else (cast here, off the path every case takes)
            key = _first_key(cast("dict[str, object]", raw), id_keys or ("id",))
            found.append(
                refuse(
                    case=_label(raw, index, id_keys),
                    field_path=key,
                    at=(*at_list, index, *_steps(key)),
                    expected="an id no other case has",
                    actual=f"{describe(reach(raw, key)[1])}, the same catalog id "
                    f'"{case.id}" as {_label(earlier_raw, earlier, id_keys)}',
                )
            )
        else:
            first[case.id] = position
    return found
