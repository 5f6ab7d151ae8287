"""skill-creator `evals.json`: {"skill_name", "evals": [{"id", "prompt", ...}]}.

Mapping (see the README, "How each format maps"): `id` and `prompt` are strict; the assertion list is
read under either spelling; documented `content_contains_*` objects become
mechanical checks; everything else a person must judge becomes a placeholder,
carrying the source object verbatim when it has more than a `text`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..dialect import NUMBERED, WHOLE_FILE, CaseShape, Dialect, reach, stopped
from ..model import Case, Check, CheckKind, LeftOut, Note, Refusal, RefusalCode, describe
from ._common import (
    SUCCESS_VIA,
    ReadOptions,
    Refuser,
    actual_of,
    collecting,
    compact,
    has_lone_surrogate,
    no_criteria_placeholder,
    note,
    placeholder,
    read_json_source,
    require_text,
    slug,
    strict,
    text_problem,
)
from ._triggers import skill_md_name, trigger_check
from ._typed import Found, Reading, converted, criteria_checks, is_typed, passed_by, shape_of

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
    "should_trigger": "a trigger-eval file (should_trigger lists): try --format trigger-list",
    "results": "a results file (results of a run), not cases",
}


SUCCESS_KEY = SUCCESS_VIA  # the key, and the `via` its criteria carry


def success_checks(value: Any) -> list[Check]:
    """A case's statement of success as prose criteria (read only when the case states no
    other criteria): a text is one criterion, a list of texts one each, any other non-empty
    value one criterion holding it verbatim. Nothing (null, blank, empty) gives none."""
    if isinstance(value, str):
        return [] if text_problem(value) else [placeholder(value)._replace(via=SUCCESS_KEY)]
    if value is None or value == [] or value == {}:
        return []
    if isinstance(value, list) and all(text_problem(item) is None for item in value):
        return [placeholder(item)._replace(via=SUCCESS_KEY) for item in value]
    verbatim = compact(value)
    if has_lone_surrogate(verbatim):  # no catalog can hold it: it stays a note, as it was
        return []
    return [placeholder(verbatim, verbatim)._replace(via=SUCCESS_KEY)]


def documented_kind(item: dict[str, Any]) -> CheckKind | None:
    """The check a documented `content_contains_*` kind names (a list or object kind names none)."""
    kind = item.get("kind")
    return KINDS.get(kind) if isinstance(kind, str) else None


_PROMPT_LOOKALIKES = ("input", "query", "prompt_sequence", "brief", "task", "question")
FILES_REMARK = (
    "fixture files are not copied into the catalog: the prompt may refer to files the model will not see"
)


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
    kept: list[Any] = []  # the raw cases read (duplicate ids are told by their raw keys)
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


def _evals_list(refuse: Refuser, data: Any, keys: tuple[str, ...]) -> tuple[list[Any], str]:
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


def _nonempty(refuse: Refuser, evals: Any, at: tuple[str, ...]) -> list[Any]:
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


def _legacy_list(refuse: Refuser, data: Any) -> Any:
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


def _category(refuse: Refuser, data: dict[str, Any], source: Path, options: ReadOptions) -> str:
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


def _trigger_skill(refuse: Refuser, top: dict[str, Any], source: Path, options: ReadOptions) -> str:
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


def _label(raw: Any, index: int, id_keys: tuple[str, ...] = ()) -> str:
    if isinstance(raw, dict):
        for key in id_keys or ("id",):
            if key == NUMBERED:
                return f"case #{index + 1}"
            present, case_id = reach(raw, key)
            if isinstance(case_id, int) and not isinstance(case_id, bool):
                return f"case {case_id}"
            if isinstance(case_id, str) and case_id.strip():
                return f'case "{case_id}"'
            if present:
                break
    return f"case #{index + 1} (no usable id)"


def _alternatives(keys: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...] | None], ...]:
    return tuple((key, tuple(key.split(".")) if "." in key else None) for key in keys)


def _pick(
    raw: dict[str, Any], alternatives: tuple[tuple[str, tuple[str, ...] | None], ...]
) -> tuple[str, bool, Any]:
    """`_first_key` and `reach` in one walk: the alternative chosen, whether the case holds
    a value there, and the value (None when it holds none)."""
    if len(alternatives) > 1:
        for key, dotted in alternatives:
            if dotted is None:
                if key in raw:
                    return key, True, raw[key]
                if key == NUMBERED:
                    return key, False, None
                continue
            value: Any = raw
            for step in dotted:
                if not isinstance(value, dict) or step not in value:
                    break
                value = value[step]
            else:
                return key, True, value
            if key in raw:  # a key spelled with a dot: chosen, as _first_key chooses it
                return key, False, None
    key = alternatives[0][0]
    present, value = reach(raw, key)
    return key, present, value


def _label_of(key: str, value: Any, index: int) -> str:
    """The case's label from the id alternative `_pick` chose (as `_label` reads it)."""
    if key == NUMBERED:
        return f"case #{index + 1}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"case {value}"
    if isinstance(value, str) and value.strip():
        return f'case "{value}"'
    return f"case #{index + 1} (no usable id)"


def _first_key(raw: dict[str, Any], keys: tuple[str, ...]) -> str:
    """The first of the dialect's alternatives the case has (else the first); an
    alternative may be a dotted path (`inputs.prompt`)."""
    if len(keys) == 1:
        return keys[0]
    for key in keys:
        if key in raw or key == NUMBERED or ("." in key and reach(raw, key)[0]):
            return key
    return keys[0]


class _FileReading:
    """One file's cases, read by the format's rules refined by a dialect (if any)."""

    file_category = ""  # the category of cases that state none (_read sets these three)
    risk = ""
    display = ""

    def __init__(
        self,
        refuse: Refuser,
        dialect: Dialect | None,
        surrogates: bool = True,
        *,
        default_criteria: bool = True,
    ) -> None:
        self.refuse = refuse
        self.default_criteria = default_criteria
        self.surrogates = surrogates  # False: the file's text cannot hold a lone surrogate
        self.dialect = dialect
        self.shape = dialect.cases if dialect is not None else CaseShape()
        self.id_keys = self.shape.id or ("id",)
        self.prompt_keys = self.shape.prompt or ("prompt",)
        # Each alternative compiled once: its keys when dotted (`inputs.prompt`), else None.
        self.id_alts = _alternatives(self.id_keys)
        self.prompt_alts = _alternatives(self.prompt_keys)
        # The keys of every dotted alternative (id, prompt, category), split once.
        alternatives = (*self.id_keys, *self.prompt_keys, *self.shape.category)
        self.steps_of = {key: _steps(key) for key in alternatives if "." in key}
        self.trigger_skill: Callable[[], str] = lambda: ""  # _read sets it: the skill trigger cases name

    @property
    def id_prefix(self) -> str:
        """What an integer id is prefixed with: the category's slug."""
        return slug(self.file_category) or "case"

    def case(self, raw: Any, index: int, at: tuple[str | int, ...]) -> Case:
        if not isinstance(raw, dict):
            label = _label(raw, index, self.id_keys)
            raise self.refuse(case=label, at=at, expected="an object", actual=describe(raw))
        id_key, id_present, id_value = _pick(raw, self.id_alts)
        if id_present or id_key == NUMBERED:
            label = _label_of(id_key, id_value, index)
        else:  # no alternative there: _label says so as it always has
            label = _label(raw, index, self.id_keys)
        reading = Reading(self.refuse, label, at)
        case_id = self.plain_id(id_key, id_value, index)
        if case_id is None:  # what _case_id refuses (or a key it reads again)
            case_id = _case_id(reading, raw, id_key, index, self.id_prefix)
        prompt_key, _, prompt = _pick(raw, self.prompt_alts)
        if not (isinstance(prompt, str) and prompt.strip()) or self.surrogates:  # else text_problem has none
            prompt = _prompt(reading, raw, prompt_key, self.prompt_keys)
        category, category_key = self.file_category, ""
        if self.shape.category:
            category, category_key = self.category(reading, raw)
        checks, notes, empty, found = self.checks(reading, raw)
        if "should_trigger" in raw:  # a trigger case (issue 33), not an ordinary task
            checks, empty = self.trigger(reading, raw, checks, empty)
        notes += self.left_over(reading, raw, (id_key, prompt_key, category_key), found)
        origin = f"{self.display}, {label}"
        return Case(
            case_id,
            category,
            prompt,
            self.risk,
            tuple(checks),
            tuple(notes),
            origin,
            empty,
            tuple(found.skipped),
        )

    def plain_id(self, id_key: str, id_value: Any, index: int) -> str | None:
        """The common id, without a refusal to look for (None: `_case_id` reads it again)."""
        id_prefix = self.id_prefix
        if id_key == NUMBERED:
            return f"{id_prefix}-{index + 1}"
        if type(id_value) is int:
            return f"{id_prefix}-{id_value}"
        if (
            type(id_value) is str
            and id_value.strip()
            and not (self.surrogates and has_lone_surrogate(id_value))
        ):
            return f"{id_prefix}-{id_value}" if id_value.isdigit() else id_value
        return None

    def left_over(
        self, reading: Reading, raw: dict[str, Any], read: tuple[str, str, str], found: Found
    ) -> list[Note]:
        """The case's keys nothing read, as notes: `read` is its id, prompt and category keys."""
        id_key, prompt_key, category_key = read
        used = {id_key, prompt_key, *LIST_KEYS}
        if self.shape.category:
            used.add(category_key)
        if "should_trigger" in raw:
            used.add("should_trigger")
        roots = found.roots
        consumed = found.consumed
        partly: set[str] = set()
        if roots:
            used.update(roots)  # first keys of paths: never dotted
            partly = {root for root in roots if (root,) not in consumed}  # keys a path went into
        steps_of = self.steps_of
        dotted = [steps_of[key] for key in read if key in steps_of]
        notes: list[Note] = []
        if len(dotted) == 1 and len(dotted[0]) == 2 and not partly and dotted[0][0] not in roots:
            # The common nested key (inputs.prompt), its object read by nothing else: the rest
            # of that object becomes notes, as passed_by would list them, without its walk.
            root, key_read = dotted[0]
            used.discard(f"{root}.{key_read}")
            used.add(root)
            notes += [
                reading.note(f"{root}.{key}", value, (*reading.at, root, key))
                for key, value in raw[root].items()
                if key != key_read
            ]
        elif dotted:  # a nested key's root is the dialect's; what it walked past becomes notes
            used -= {".".join(steps) for steps in dotted}
            roots = {steps[0] for steps in dotted}
            consumed = consumed | set(dotted)
            partly |= roots
            used |= roots
        if partly:
            notes += passed_by(reading, raw, partly, consumed)
        for key, value in raw.items():
            if key not in used:
                remark = FILES_REMARK if key == "files" and value else ""
                notes.append(reading.note(key, value, (*reading.at, key), remark))
        return notes

    def trigger(
        self, reading: Reading, raw: dict[str, Any], checks: list[Check], empty: bool
    ) -> tuple[list[Check], bool]:
        """A case with `should_trigger` first asks whether the skill is invoked (formats/_triggers.py);
        its own assertions stay after that, and the no-criteria placeholder goes."""
        value = raw["should_trigger"]
        if not isinstance(value, bool):
            where = (*reading.at, "should_trigger")
            raise reading.refusal("should_trigger", where, "true or false", describe(value))
        return [trigger_check(self.trigger_skill(), value), *([] if empty else checks)], False

    def category(self, reading: Reading, raw: dict[str, Any]) -> tuple[str, str]:
        """The case's own category where the dialect says (the file's when the case has none)."""
        key = _first_key(raw, self.shape.category)
        present, value = reach(raw, key)
        if not present:
            return self.file_category, ""
        problem = text_problem(value)
        if problem:
            raise reading.refusal(key, (*reading.at, *_steps(key)), problem, describe(value))
        return str(value).strip(), key

    def skipped(self, raw: Any, index: int, options: ReadOptions) -> bool:
        """A case the dialect's `cases.skip` leaves out: remembered with its reason."""
        if not self.shape.skip or not isinstance(raw, dict):
            return False
        entry = next((skip for skip in self.shape.skip if skip.matches(raw)), None)
        if entry is None:
            return False
        label = _label(raw, index, self.id_keys)
        reading = Reading(self.refuse, label)
        try:
            case_id: str | None = _case_id(reading, raw, _first_key(raw, self.id_keys), index, self.id_prefix)
        except Refusal:
            case_id = None  # left out whole: an id it cannot have is not a problem
        options.left_out.append(LeftOut(self.display, label, case_id, entry.reason))
        return True

    def checks(self, reading: Reading, raw: dict[str, Any]) -> tuple[list[Check], list[Note], bool, Found]:
        """Checks from the assertion list, then from the dialect's criteria places."""
        if self.dialect is None or not self.dialect.cases.criteria:
            found = Found([], [], set(), [], set())
        else:
            found = criteria_checks(
                reading,
                raw,
                self.dialect,
                lambda item, path, where: self.assertion(reading, item, path, where),
            )
        roots = found.roots
        # A list key the dialect found criteria in (assertions.objective[]) is the dialect's.
        present = [key for key in LIST_KEYS if key in raw and key not in roots]
        if len(present) == 2:
            expected = 'one list, "assertions" or "expectations"'
            raise reading.refusal("assertions", (*reading.at, "expectations"), expected, "both")
        checks: list[Check] = []
        notes: list[Note] = []
        if present and raw[present[0]] != []:
            self.listed(reading, present[0], raw[present[0]], checks, notes)
        checks += found.checks
        notes += found.notes
        if not checks and self.default_criteria and SUCCESS_KEY in raw and SUCCESS_KEY not in roots:
            checks = success_checks(raw[SUCCESS_KEY])
            if checks:  # read as criteria: the key is not a note any more
                roots.add(SUCCESS_KEY)
                found.consumed.add((SUCCESS_KEY,))
        if not checks:
            return [no_criteria_placeholder()], notes, True, found
        return checks, notes, False, found

    def listed(self, reading: Reading, key: str, items: Any, checks: list[Check], notes: list[Note]) -> None:
        """The case's assertion list (under `key`), onto `checks` and `notes`."""
        if not isinstance(items, list):
            raise reading.refusal(key, (*reading.at, key), "a list", describe(items))
        at = reading.at
        for position, item in enumerate(items):
            if self.prose(item):  # the common case, without building its path and position
                checks.append(placeholder(item))
                continue
            check, extra = self.assertion(reading, item, f"{key}[{position}]", (*at, key, position))
            checks.append(check)
            notes += extra

    def prose(self, item: Any) -> bool:
        """A string `_assertion` would accept as it is (a placeholder for its text)."""
        return type(item) is str and bool(item.strip()) and not (self.surrogates and has_lone_surrogate(item))

    def assertion(
        self, reading: Reading, item: Any, path: str, at: tuple[str | int, ...]
    ) -> tuple[Check, list[Note]]:
        """One assertion: a dialect rule's check, a documented kind, prose, or a placeholder."""
        if self.prose(item):
            return placeholder(item), []
        rule = self.dialect.match(item) if self.dialect is not None and isinstance(item, dict) else None
        if rule is not None:
            return converted(reading, rule, item, path, at)
        check = _assertion(reading, item, path, at)
        notes: list[Note] = []
        if isinstance(item, dict) and documented_kind(item) is not None:
            # Keys beside text/kind/needles do not change the check; keep them.
            notes = [
                reading.note(f"{path}.{extra}", value, (*at, extra))
                for extra, value in item.items()
                if extra not in ("text", "kind", "needles")
            ]
            if self.dialect is not None:  # the vocabulary states letter case in every call
                check = check._replace(options=(("ignore_case", True),))
        elif isinstance(item, dict) and is_typed(item):
            check = Check(check.criterion, check.kind, check.args, check.options, shape_of(item))
        return check, notes


def _case_id(reading: Reading, raw: dict[str, Any], key: str, index: int, id_prefix: str) -> str:
    """Integer (and digit-string) ids are prefixed with the category's slug."""
    if key == NUMBERED:
        return f"{id_prefix}-{index + 1}"
    present, value = reach(raw, key)
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{id_prefix}-{value}"
    problem = text_problem(value) if isinstance(value, str) else "a string or an integer"
    if problem or not isinstance(value, str):
        actual = describe(value) if present else stopped(raw, key) if "." in key else actual_of(raw, key)
        raise reading.refusal(key, (*reading.at, *_steps(key)), problem, actual)
    return f"{id_prefix}-{value}" if value.isdigit() else value


def _prompt(reading: Reading, raw: dict[str, Any], key: str, keys: tuple[str, ...] = ()) -> str:
    if any("." in k for k in keys):
        return _nested_text(reading, raw, key, keys)
    hint = None
    if key not in raw:
        found = [other for other in _PROMPT_LOOKALIKES if other in raw and other != key]
        if found:
            hint = f'found "{found[0]}" where evals-json has "{key}"; rename it if it is the prompt'
    return require_text(reading.refuse, raw, key, case=reading.label, at=(*reading.at, key), hint=hint)


def _nested_text(reading: Reading, raw: dict[str, Any], key: str, keys: tuple[str, ...]) -> str:
    """A prompt at a dotted path; a refusal says where the path stopped ("inputs has no key prompt")."""
    present, value = reach(raw, key)
    problem = text_problem(value)
    if present and problem is None:
        return str(value)
    if present:
        raise reading.refusal(key, (*reading.at, *_steps(key)), problem, describe(value))
    deepest = max(keys, key=lambda k: _depth(raw, k))  # the alternative that got furthest
    shown = " or ".join(keys)
    raise reading.refusal(
        deepest,
        (*reading.at, *_steps(deepest)[: max(_depth(raw, deepest), 1)]),
        f"a non-empty string at {shown} (as the dialect says)",
        stopped(raw, deepest),
    )


def _depth(raw: dict[str, Any], path: str) -> int:
    """How many of a dotted path's keys a case has, in order."""
    value, depth = raw, 0
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            break
        value, depth = value[key], depth + 1
    return depth


def _assertion(reading: Reading, item: Any, path: str, at: tuple[str | int, ...]) -> Check:
    if isinstance(item, str):
        problem = text_problem(item)
        if problem:
            raise reading.refusal(path, at, problem, describe(item))
        return placeholder(item)
    if not isinstance(item, dict):
        raise reading.refusal(path, at, "a string or an object", describe(item))
    if documented_kind(item) is not None:
        return _documented(reading, item, path, at)
    verbatim = compact(item)
    if "text" in item:
        text = _text(reading, item, path, at)
        # Prose; the whole object travels when it says more than its text.
        return placeholder(text, text if set(item) == {"text"} else verbatim)
    if not item:
        raise reading.refusal(path, at, "a non-empty object", "an empty object")
    return placeholder(verbatim, verbatim)


def _text(reading: Reading, item: dict[str, Any], path: str, at: tuple[str | int, ...]) -> str:
    """An assertion object's `text`, strictly."""
    return require_text(
        reading.refuse, item, "text", case=reading.label, at=(*at, "text"), field_path=f"{path}.text"
    )


def _documented(reading: Reading, item: dict[str, Any], path: str, at: tuple[str | int, ...]) -> Check:
    kind = KINDS[item["kind"]]  # documented_kind() said so
    needles = item.get("needles")
    if not isinstance(needles, list) or not needles or any(text_problem(n) for n in needles):
        expected = "a non-empty list of non-empty strings"
        raise reading.refusal(f"{path}.needles", (*at, "needles"), expected, actual_of(item, "needles"))
    if "text" in item:
        criterion = _text(reading, item, path, at)
    else:
        criterion = f"{_KIND_PHRASES[kind]}: " + ", ".join(compact(n) for n in needles)
    return Check(criterion, kind, (tuple(needles),))


def _duplicate_ids(
    refuse: Refuser,
    cases: list[Case],
    kept: list[tuple[int, Any]],
    at_list: tuple[str | int, ...],
    id_keys: tuple[str, ...],
) -> list[Refusal]:
    """Two cases with one catalog id; `kept` is each case's (index, raw case) in the file."""
    first: dict[str, int] = {}
    found = []
    for position, case in enumerate(cases):
        index, raw = kept[position]
        if case.id in first:
            earlier, earlier_raw = kept[first[case.id]]
            key = _first_key(raw, id_keys or ("id",))
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


@functools.lru_cache(maxsize=256)
def _steps(path: str) -> tuple[str, ...]:
    return tuple(path.split(".")) if "." in path else (path,)
