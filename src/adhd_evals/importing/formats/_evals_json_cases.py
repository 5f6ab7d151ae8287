"""One evals-json case read by the format's rules, refined by a dialect (if any): id, prompt,
category, criteria, and every key nothing read kept as a note."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeGuard

from ..dialect_paths import reach, stopped
from ..dialect_words import NO_SHAPE, NUMBERED
from ..model import Case, Check, LeftOut, Note, Refusal, describe
from ._common import (
    ReadOptions,
    Refuser,
    actual_of,
    has_lone_surrogate,
    no_criteria_placeholder,
    placeholder,
    require_text,
    slug,
    text_problem,
)
from ._evals_json_asserts import SUCCESS_KEY, _assertion, documented_kind, success_checks
from ._evals_json_plain import FILES_REMARK, plain_case
from ._triggers import trigger_check
from ._typed import Found, Reading, converted, criteria_checks, is_typed, passed_by, shape_of

if TYPE_CHECKING:
    from ..dialect import Dialect

LIST_KEYS = ("assertions", "expectations")


_PROMPT_LOOKALIKES = ("input", "query", "prompt_sequence", "brief", "task", "question")


def _label(raw: object, index: int, id_keys: tuple[str, ...] = ()) -> str:
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
    raw: dict[str, object], alternatives: tuple[tuple[str, tuple[str, ...] | None], ...]
) -> tuple[str, bool, object]:
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
            value: object = raw
            for step in dotted:
                if not isinstance(value, dict) or step not in value:
                    break
                value = value[step]
            else:
                return key, True, value
            if key in raw:  # a key spelled with a dot: chosen, as _first_key chooses it
                return key, False, None
    key, dotted = alternatives[0]
    if dotted is None:  # the common case (`id`, `prompt`): one lookup, no walk
        return (key, True, raw[key]) if key in raw else (key, False, None)
    present, value = reach(raw, key)
    return key, present, value


def _label_of(key: str, value: object, index: int) -> str:
    """The case's label from the id alternative `_pick` chose (as `_label` reads it)."""
    if key == NUMBERED:
        return f"case #{index + 1}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"case {value}"
    if isinstance(value, str) and value.strip():
        return f'case "{value}"'
    return f"case #{index + 1} (no usable id)"


def _first_key(raw: dict[str, object], keys: tuple[str, ...]) -> str:
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
        self.shape = dialect.cases if dialect is not None else NO_SHAPE
        self.id_keys = self.shape.id or ("id",)
        self.prompt_keys = self.shape.prompt or ("prompt",)
        # Each alternative compiled once: its keys when dotted (`inputs.prompt`), else None.
        self.id_alts = _alternatives(self.id_keys)
        self.prompt_alts = _alternatives(self.prompt_keys)
        # The keys of every dotted alternative (id, prompt, category), split once.
        alternatives = (*self.id_keys, *self.prompt_keys, *self.shape.category)
        self.steps_of = {key: _steps(key) for key in alternatives if "." in key}
        self.trigger_skill: Callable[[], str] = lambda: ""  # _read sets it: the skill trigger cases name
        # Without a dialect, and with no lone surrogate possible, the common case has a shorter way.
        self.plain = dialect is None and not surrogates

    _prefix_of = ("", "case")  # the last (category, its id prefix): the slug made once a file

    @property
    def id_prefix(self) -> str:
        """What an integer id is prefixed with: the category's slug."""
        category, prefix = self._prefix_of
        if category != self.file_category:
            prefix = slug(self.file_category) or "case"
            self._prefix_of = (self.file_category, prefix)
        return prefix

    def case(self, raw: object, index: int, at: tuple[str | int, ...]) -> Case:
        if not isinstance(raw, dict):
            label = _label(raw, index, self.id_keys)
            raise self.refuse(case=label, at=at, expected="an object", actual=describe(raw))
        if self.plain:
            common = plain_case(self, raw, index, at)
            if common is not None:
                return common
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

    def plain_id(self, id_key: str, id_value: object, index: int) -> str | None:
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
        self, reading: Reading, raw: dict[str, object], read: tuple[str, str, str], found: Found
    ) -> list[Note]:
        """The case's keys nothing read, as notes: `read` is its id, prompt and category keys."""
        id_key, prompt_key, category_key = read
        used = {id_key, prompt_key, *LIST_KEYS}
        if self.shape.category:
            used.add(category_key)
        if "should_trigger" in raw:
            used.add("should_trigger")
        notes = self.passed(reading, raw, read, found, used) if found.roots or self.steps_of else []
        for key, value in raw.items():
            if key not in used:
                remark = FILES_REMARK if key == "files" and value else ""
                notes.append(reading.note(key, value, (*reading.at, key), remark))
        return notes

    def passed(
        self,
        reading: Reading,
        raw: dict[str, object],
        read: tuple[str, str, str],
        found: Found,
        used: set[str],
    ) -> list[Note]:
        """What the dialect's paths walked past, as notes; their roots join `used` (the keys
        `left_over` does not list). A case read without a dialect's paths has none."""
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
            nested = raw[root]
            assert isinstance(nested, dict)  # the case's prompt (or id, or category) was read from it
            notes += [
                reading.note(f"{root}.{key}", value, (*reading.at, root, key))
                for key, value in nested.items()
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
        return notes

    def trigger(
        self, reading: Reading, raw: dict[str, object], checks: list[Check], empty: bool
    ) -> tuple[list[Check], bool]:
        """A case with `should_trigger` first asks whether the skill is invoked (formats/_triggers.py);
        its own assertions stay after that, and the no-criteria placeholder goes."""
        value = raw["should_trigger"]
        if not isinstance(value, bool):
            where = (*reading.at, "should_trigger")
            raise reading.refusal("should_trigger", where, "true or false", describe(value))
        return [trigger_check(self.trigger_skill(), value), *([] if empty else checks)], False

    def category(self, reading: Reading, raw: dict[str, object]) -> tuple[str, str]:
        """The case's own category where the dialect says (the file's when the case has none)."""
        key = _first_key(raw, self.shape.category)
        present, value = reach(raw, key)
        if not present:
            return self.file_category, ""
        problem = text_problem(value)
        if problem:
            raise reading.refusal(key, (*reading.at, *_steps(key)), problem, describe(value))
        return str(value).strip(), key

    def skipped(self, raw: object, index: int, options: ReadOptions) -> bool:
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

    def checks(self, reading: Reading, raw: dict[str, object]) -> tuple[list[Check], list[Note], bool, Found]:
        """Checks from the assertion list, then from the dialect's criteria places."""
        if self.dialect is None or not self.dialect.cases.criteria:
            found = _NOTHING_FOUND  # shared: never changed in place (see below)
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
            if checks:  # read as criteria: the key is not a note any more (new sets: `found` may be shared)
                found = found._replace(
                    roots=roots | {SUCCESS_KEY}, consumed=found.consumed | {(SUCCESS_KEY,)}
                )
        if not checks:
            return [no_criteria_placeholder()], notes, True, found
        return checks, notes, False, found

    def listed(
        self, reading: Reading, key: str, items: object, checks: list[Check], notes: list[Note]
    ) -> None:
        """The case's assertion list (under `key`), onto `checks` and `notes`."""
        if not isinstance(items, list):
            raise reading.refusal(key, (*reading.at, key), "a list", describe(items))
        at = reading.at
        surrogates = self.surrogates
        for position, item in enumerate(items):
            # The common case, `prose` without its call, nor the item's path and position built
            # (a string holding more than whitespace is what strip() leaves non-empty).
            if (
                type(item) is str
                and item
                and not item.isspace()
                and not (surrogates and has_lone_surrogate(item))
            ):
                checks.append(placeholder(item))
                continue
            check, extra = self.assertion(reading, item, f"{key}[{position}]", (*at, key, position))
            checks.append(check)
            notes += extra

    def prose(self, item: object) -> TypeGuard[str]:
        """A string `_assertion` would accept as it is (a placeholder for its text)."""
        return type(item) is str and bool(item.strip()) and not (self.surrogates and has_lone_surrogate(item))

    def assertion(
        self, reading: Reading, item: object, path: str, at: tuple[str | int, ...]
    ) -> tuple[Check, list[Note]]:
        """One assertion: a dialect rule's check, a documented kind, prose, or a placeholder."""
        if self.prose(item):
            return placeholder(item), []
        if self.dialect is not None and isinstance(item, dict):
            rule = self.dialect.match(item)
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


# What a case without a dialect's criteria places finds there: nothing. One shared instance (a
# case reads it; `checks` replaces it, never adds to it).
_NOTHING_FOUND = Found([], [], set(), [], set())


def _case_id(reading: Reading, raw: dict[str, object], key: str, index: int, id_prefix: str) -> str:
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


def _prompt(reading: Reading, raw: dict[str, object], key: str, keys: tuple[str, ...] = ()) -> str:
    if any("." in k for k in keys):
        return _nested_text(reading, raw, key, keys)
    hint = None
    if key not in raw:
        found = [other for other in _PROMPT_LOOKALIKES if other in raw and other != key]
        if found:
            hint = f'found "{found[0]}" where evals-json has "{key}"; rename it if it is the prompt'
    return require_text(reading.refuse, raw, key, case=reading.label, at=(*reading.at, key), hint=hint)


def _nested_text(reading: Reading, raw: dict[str, object], key: str, keys: tuple[str, ...]) -> str:
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


def _depth(raw: dict[str, object], path: str) -> int:
    """How many of a dotted path's keys a case has, in order."""
    value: object = raw
    depth = 0
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            break
        value, depth = value[key], depth + 1
    return depth


@functools.lru_cache(maxsize=256)
def _steps(path: str) -> tuple[str, ...]:
    return tuple(path.split(".")) if "." in path else (path,)
