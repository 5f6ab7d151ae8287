"""skill-creator `evals.json`: {"skill_name", "evals": [{"id", "prompt", ...}]}.

Mapping (see DESIGN.md): `id` and `prompt` are strict; the assertion list is
read under either spelling; documented `content_contains_*` objects become
mechanical checks; everything else a person must judge becomes a placeholder,
carrying the source object verbatim when it has more than a `text`.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from ..model import Case, Check, CheckKind, Note, Refusal, RefusalCode, describe
from ..sourcetext import decode_utf8, load_json, locate, read_bytes
from ._common import (
    collecting,
    strict,
    ReadOptions,
    Refuser,
    actual_of,
    compact,
    no_criteria_placeholder,
    note,
    placeholder,
    require_text,
    slug,
    text_problem,
)

NAME = "evals-json"
LIST_KEYS = ("assertions", "expectations")
KINDS = {
    "content_contains_any": CheckKind.CONTAINS_ANY,
    "content_contains_all": CheckKind.CONTAINS_ALL,
    "content_contains_none": CheckKind.CONTAINS_NONE,
}
_KIND_PHRASES = {
    CheckKind.CONTAINS_ANY: "Mentions at least one of",
    CheckKind.CONTAINS_ALL: "Mentions all of",
    CheckKind.CONTAINS_NONE: "Mentions none of",
}
# Top-level keys that mean "this is another kind of file", with what it is.
_OTHER_SHAPES = {
    "cases": 'a "cases" list where evals-json has "evals"',
    "tests": 'a "tests" list where evals-json has "evals"',
    "scenarios": 'a "scenarios" list where evals-json has "evals"',
    "test_cases": 'a "test_cases" list (an evalflow dataset? try --format evalflow)',
    "evaluations": 'an "evaluations" list where evals-json has "evals"',
    "should_trigger": "a trigger-eval file (should_trigger lists), not cases with prompts",
    "results": "a results file (results of a run), not cases",
}
_PROMPT_LOOKALIKES = ("input", "query", "prompt_sequence", "brief", "task", "question")
FILES_REMARK = "fixture files are not copied into the catalog: the prompt may refer to files the model will not see"


def _read(source: Path, display: str, options: ReadOptions,
          collect: bool) -> tuple[list[Case], list[Refusal]]:
    text = decode_utf8(read_bytes(source, display), display,
                       RefusalCode.NOT_JSON, "is not JSON")
    data = load_json(text, display)
    refuse = Refuser(RefusalCode.NOT_EVALS_JSON, display, "is not an evals-json file",
                     functools.partial(locate, text))
    evals = _evals_list(refuse, data)
    category = _category(refuse, data, source, options)
    file_notes = [note(refuse, f"(file) {k}", v, case="(file)", at=(k,))
                  for k, v in data.items() if k not in ("skill_name", "evals")]
    id_prefix = slug(category) or "case"
    cases: list[Case] = []
    refusals: list[Refusal] = []
    for index, raw in enumerate(evals):
        try:
            cases.append(_case(refuse, raw, index, category, id_prefix, options.risk, display))
        except Refusal as refusal:
            if not collect:
                raise
            refusals.append(refusal)
    if not refusals:
        refusals += _duplicate_ids(refuse, cases, evals)
    if file_notes and cases:  # keys beside skill_name/evals travel with the first case
        cases[0] = cases[0]._replace(notes=(*file_notes, *cases[0].notes))
    return cases, refusals



read = strict(_read)  # the import: the first refusal stops it
problems = collecting(_read)  # lint: every refusal in the file, not only the first

def _evals_list(refuse: Refuser, data: Any) -> list[Any]:
    if isinstance(data, list):
        raise refuse(field_path="(top level)", expected='an object with an "evals" list',
                     actual=describe(data),
                     hint='a bare list of cases: wrap it as {"skill_name": "...", "evals": [...]}')
    if not isinstance(data, dict):
        raise refuse(field_path="(top level)", expected='an object with an "evals" list',
                     actual=describe(data))
    if "evals" not in data:
        found = next((what for key, what in _OTHER_SHAPES.items() if key in data), None)
        raise refuse(field_path="evals", expected="a list of cases", actual="missing",
                     hint=f"found {found}" if found else
                     f"top-level keys are: {', '.join(map(str, data)) or 'none'}")
    evals = data["evals"]
    if not isinstance(evals, list):
        raise refuse(field_path="evals", at=("evals",), expected="a list of cases",
                     actual=describe(evals))
    if not evals:
        raise refuse(code=RefusalCode.FILE_EMPTY, field_path="evals", at=("evals",),
                     expected="at least one case", actual="an empty list")
    return evals


def _category(refuse: Refuser, data: dict[str, Any], source: Path, options: ReadOptions) -> str:
    if options.category is not None:
        return options.category
    if "skill_name" in data:
        problem = text_problem(data["skill_name"])
        if problem:
            raise refuse(field_path="skill_name", at=("skill_name",), expected=problem,
                         actual=describe(data["skill_name"]))
        return data["skill_name"].strip()
    return skill_folder(source)


def skill_folder(source: Path) -> str:
    """The skill's folder: the directory holding `evals/`, else the file's own."""
    folder = source.resolve().parent
    if folder.name == "evals" and folder.parent.name:
        folder = folder.parent
    return folder.name or "evals"


def _label(raw: Any, index: int) -> str:
    if isinstance(raw, dict):
        case_id = raw.get("id")
        if isinstance(case_id, int) and not isinstance(case_id, bool):
            return f"case {case_id}"
        if isinstance(case_id, str) and case_id.strip():
            return f'case "{case_id}"'
    return f"case #{index + 1} (no usable id)"


def _case(refuse: Refuser, raw: Any, index: int, category: str, id_prefix: str, risk: str,
          display: str) -> Case:
    label = _label(raw, index)
    at: tuple[str | int, ...] = ("evals", index)
    if not isinstance(raw, dict):
        raise refuse(case=label, at=at, expected="an object", actual=describe(raw))
    case_id = _case_id(refuse, raw, label, at, id_prefix)
    prompt = _prompt(refuse, raw, label, at)
    checks, notes, empty = _checks(refuse, raw, label, at)
    for key, value in raw.items():
        if key not in ("id", "prompt", *LIST_KEYS):
            remark = FILES_REMARK if key == "files" and value else ""
            notes.append(note(refuse, key, value, case=label, at=(*at, key), remark=remark))
    return Case(case_id, category, prompt, risk, tuple(checks), tuple(notes),
                origin=f"{display}, {label}", had_no_criteria=empty)


def _case_id(refuse: Refuser, raw: dict[str, Any], label: str, at: tuple[str | int, ...],
             id_prefix: str) -> str:
    """Integer (and digit-string) ids are prefixed with the category's slug."""
    value = raw.get("id")
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{id_prefix}-{value}"
    problem = text_problem(value) if isinstance(value, str) else "a string or an integer"
    if problem:
        raise refuse(case=label, field_path="id", at=(*at, "id"), expected=problem,
                     actual=actual_of(raw, "id"))
    if value.isdigit():  # type: ignore[union-attr]
        return f"{id_prefix}-{value}"
    return value  # type: ignore[return-value]


def _prompt(refuse: Refuser, raw: dict[str, Any], label: str, at: tuple[str | int, ...]) -> str:
    hint = None
    if "prompt" not in raw:
        found = [key for key in _PROMPT_LOOKALIKES if key in raw]
        if found:
            hint = f'found "{found[0]}" where evals-json has "prompt"; rename it if it is the prompt'
    return require_text(refuse, raw, "prompt", case=label, at=(*at, "prompt"), hint=hint)


def _checks(refuse: Refuser, raw: dict[str, Any], label: str,
            at: tuple[str | int, ...]) -> tuple[list[Check], list[Note], bool]:
    present = [key for key in LIST_KEYS if key in raw]
    if len(present) == 2:
        raise refuse(case=label, field_path="assertions", at=(*at, "expectations"),
                     expected='one list, "assertions" or "expectations"', actual="both")
    if not present or raw[present[0]] == []:
        return [no_criteria_placeholder()], [], True
    key = present[0]
    items = raw[key]
    if not isinstance(items, list):
        raise refuse(case=label, field_path=key, at=(*at, key), expected="a list",
                     actual=describe(items))
    checks: list[Check] = []
    notes: list[Note] = []
    for position, item in enumerate(items):
        where = (*at, key, position)
        path = f"{key}[{position}]"
        checks.append(_assertion(refuse, item, label, path, where))
        if isinstance(item, dict) and item.get("kind") in KINDS:
            # Keys beside text/kind/needles do not change the check; keep them.
            notes.extend(note(refuse, f"{path}.{extra}", value, case=label, at=(*where, extra))
                         for extra, value in item.items()
                         if extra not in ("text", "kind", "needles"))
    return checks, notes, False


def _assertion(refuse: Refuser, item: Any, label: str, path: str,
               at: tuple[str | int, ...]) -> Check:
    if isinstance(item, str):
        problem = text_problem(item)
        if problem:
            raise refuse(case=label, field_path=path, at=at, expected=problem,
                         actual=describe(item))
        return placeholder(item)
    if not isinstance(item, dict):
        raise refuse(case=label, field_path=path, at=at, expected="a string or an object",
                     actual=describe(item))
    if item.get("kind") in KINDS:
        return _documented(refuse, item, label, path, at)
    verbatim = compact(item)
    if "text" in item:
        problem = text_problem(item["text"])
        if problem:
            raise refuse(case=label, field_path=f"{path}.text", at=(*at, "text"),
                         expected=problem, actual=describe(item["text"]))
        # Prose; the whole object travels when it says more than its text.
        return placeholder(item["text"], item["text"] if set(item) == {"text"} else verbatim)
    if not item:
        raise refuse(case=label, field_path=path, at=at, expected="a non-empty object",
                     actual="an empty object")
    return placeholder(verbatim, verbatim)


def _documented(refuse: Refuser, item: dict[str, Any], label: str, path: str,
                at: tuple[str | int, ...]) -> Check:
    kind = KINDS[item["kind"]]
    needles = item.get("needles")
    if not isinstance(needles, list) or not needles or any(text_problem(n) for n in needles):
        raise refuse(case=label, field_path=f"{path}.needles", at=(*at, "needles"),
                     expected="a non-empty list of non-empty strings",
                     actual=actual_of(item, "needles"))
    if "text" in item:
        problem = text_problem(item["text"])
        if problem:
            raise refuse(case=label, field_path=f"{path}.text", at=(*at, "text"),
                         expected=problem, actual=describe(item["text"]))
        criterion = item["text"]
    else:
        criterion = f"{_KIND_PHRASES[kind]}: " + ", ".join(compact(n) for n in needles)
    return Check(criterion, kind, (tuple(needles),))


def _duplicate_ids(refuse: Refuser, cases: list[Case], evals: list[Any]) -> list[Refusal]:
    first: dict[str, int] = {}
    found = []
    for index, case in enumerate(cases):
        if case.id in first:
            earlier = first[case.id]
            found.append(refuse(case=_label(evals[index], index), field_path="id",
                         at=("evals", index, "id"),
                         expected="an id no other case has",
                         actual=f"{describe(evals[index]['id'])}, the same catalog id "
                                f'"{case.id}" as {_label(evals[earlier], earlier)}'))
        else:
            first[case.id] = index
    return found

