"""Assertion objects and extra criteria under a dialect, shared by the readers.

Without a dialect nothing here runs but `shape_of`: the readers behave as
they always did. With one, an object that matches a rule becomes that rule's
check; its arguments are checked strictly (a missing needle key, a pattern
Python's `re` cannot compile, a count that is not a whole number are refused
by case and field), and keys the check does not use travel as notes.
"""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled one by
# one at import, on every lint and import (see model.py).
import re
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, NamedTuple, cast

from ..dialect_paths import Stop, path_text, regex_problem, trace
from ..dialect_words import (
    COUNTS,
    MAX_COUNT,
    NO_NEEDLE,
    ONE_TEXT,
    PATTERNS,
    SKIP,
    TEXTS,
    TRACE_OPTIONS,
    TRACED,
)
from ..model import Check, CheckKind, Note, Refusal, describe
from ..tracehelpers import _js_regex as js_regex
from ._common import Refuser, compact, note, placeholder, text_problem

if TYPE_CHECKING:  # a dialect is read (dialect.py) before anything here meets one
    from ..dialect import Dialect, Place, Rule

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
    "tool_used": "Calls the tool {0}",
    "file_created": "Creates a file matching {0}",
}


_quoted = encode_basestring  # what compact() makes of a string, without its type dispatch


def shape_of(item: dict[str, object]) -> str:
    """How the summary and survey name an object's shape: its type/kind, else its keys."""
    for key in ("type", "kind"):
        value = item.get(key)
        if isinstance(value, (str, int, float, bool)) or (value is None and key in item):
            return f"{{{key}: {compact(value)}}}"
    return "{" + ", ".join(sorted(map(str, item))) + "}"


def is_typed(item: dict[str, object]) -> bool:
    """An object whose meaning a dialect could declare (not plain prose)."""
    return "type" in item or "kind" in item or "text" not in item


def words(check: str, needle: object, ignore_case: bool | None) -> str:
    """A criterion in plain words for a check that came with no rubric text."""
    if isinstance(needle, list):  # a string needle's JSON is its quoted text: no encoder detour
        shown = ", ".join([_quoted(n) if type(n) is str else compact(n) for n in needle])
    elif isinstance(needle, int) or needle is None:
        shown = str(needle)
    else:
        shown = compact(needle)
    text = _PHRASES[check].format(shown)
    if ignore_case is not None:
        text += " (any letter case)" if ignore_case else " (letter case must match)"
    return text


class Reading(NamedTuple):
    """One case being read: who refuses, the case's label in messages, and where the case
    sits in its file. Each step of reading a case takes this one object rather than the
    three threaded through every call. A NamedTuple: one is built for every case read, and
    a frozen dataclass took four times as long to build."""

    refuse: Refuser
    label: str
    at: Path = ()

    def refusal(self, field_path: str, where: Path, expected: str | None, actual: str | None) -> Refusal:
        """A refusal of this case at `field_path`, located at `where` in the file."""
        return self.refuse(case=self.label, field_path=field_path, at=where, expected=expected, actual=actual)

    def note(self, key: str, value: object, where: Path, remark: str = "") -> Note:
        """A value kept as a note (refused when it is nested too deep to keep)."""
        return note(self.refuse, key, value, case=self.label, at=where, remark=remark)


# A reader's own treatment of one criterion: (item, its path in the case, its place in the file).
Assertion = Callable[[object, str, Path], tuple[Check, list[Note]]]


def converted(
    reading: Reading, rule: "Rule", item: dict[str, object], path: str, at: Path
) -> tuple[Check, list[Note]]:
    """The check a matched object becomes, and its unused keys as notes."""
    used = rule.used
    notes = [
        Note(f"{path}.{key}", value)
        if not isinstance(value, (dict, list))  # a scalar cannot be too deep
        else reading.note(f"{path}.{key}", value, (*at, key))
        for key, value in item.items()
        if key not in used
    ]
    found = item.get(rule.criterion) if rule.criterion is not None else None
    # plain ASCII text: then _criterion has nothing to say
    plain = found if type(found) is str and found.isascii() and found.strip() else None
    if rule.check == "unwritten":
        verbatim = compact(item)
        text = plain if plain is not None else _criterion(reading, rule, item, path, at)
        return Check(text or verbatim, CheckKind.UNWRITTEN, (verbatim,), (), rule.label), notes
    key = rule.text_needle
    needle = item.get(key) if key is not None else None
    if not (type(needle) is str and needle.isascii() and needle.strip()):  # else nothing to refuse
        needle = _needle(reading, rule, item, path, at)
    args = () if rule.check in NO_NEEDLE else (needle,)
    text = plain if plain is not None else _criterion(reading, rule, item, path, at)
    criterion = text or words(rule.check, needle, rule.ignore_case)
    if rule.schema is not None and rule.criterion is None:
        criterion += f" matching the schema of the dialect's {rule.label}"
    if not rule.keywords:
        return Check(criterion, rule.kind, args, rule.options, rule.label), notes
    keywords = _keywords(reading, rule, item, path, at)
    if keywords and not text:
        criterion += " (" + ", ".join(f"{k} {compact(v)}" for k, v in keywords) + ")"
    return Check(criterion, rule.kind, args, rule.options + keywords, rule.label), notes


def _keywords(
    reading: Reading, rule: "Rule", item: dict[str, object], path: str, at: Path
) -> tuple[tuple[str, object], ...]:
    """A trace check's keyword arguments from the keys the rule's `options` names, in the
    helper's own order; a key the object lacks leaves its keyword at the helper's default."""
    named = dict(rule.keywords)
    found: list[tuple[str, object]] = []
    for keyword in TRACE_OPTIONS[rule.check]:
        key = named.get(keyword)
        if key is None or key not in item:
            continue
        expected = _keyword_problem(keyword, item[key])
        if expected is not None:
            raise reading.refusal(f"{path}.{key}", (*at, key), expected, describe(item[key]))
        found.append((keyword, item[key]))
    return tuple(found)


def _keyword_problem(keyword: str, value: object) -> str | None:
    if keyword == "exists":
        return None if isinstance(value, bool) else "true or false"
    if keyword == "input_match":
        if not isinstance(value, str):
            return "a JavaScript regular expression (text)"
        try:
            js_regex(value)
        except re.error as exc:
            return f"a pattern JavaScript and Python read alike ({exc})"
        return None
    whole = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT
    return None if whole else f"a whole number from 0 to {MAX_COUNT:,}"


def _criterion(reading: Reading, rule: "Rule", item: dict[str, object], path: str, at: Path) -> str | None:
    if rule.criterion is None or rule.criterion not in item:
        return None
    value = item[rule.criterion]
    problem = text_problem(value)
    if problem:
        raise reading.refusal(f"{path}.{rule.criterion}", (*at, rule.criterion), problem, describe(value))
    return str(value)


def _needle(reading: Reading, rule: "Rule", item: dict[str, object], path: str, at: Path) -> object:
    key = rule.needle
    if key is None:
        return None
    if key not in item:
        expected = f"the {key!r} key that holds {rule.check}'s argument (the dialect says so)"
        raise reading.refusal(f"{path}.{key}", at, expected, "missing")
    return argument(reading, rule.check, item[key], f"{path}.{key}", (*at, key))


def argument(reading: Reading, check: str, value: object, field: str, where: Path) -> object:
    """The argument a check receives, checked for its kind."""
    if check in COUNTS:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_COUNT:
            raise reading.refusal(field, where, f"a whole number from 0 to {MAX_COUNT:,}", describe(value))
        return value
    if check in TEXTS:
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items or any(text_problem(n) for n in items):
            expected = "a non-empty string or a non-empty list of non-empty strings"
            raise reading.refusal(field, where, expected, describe(value))
        return items
    problem = text_problem(value) if check in ONE_TEXT or check in TRACED else None
    if problem:
        raise reading.refusal(field, where, problem, describe(value))
    if check in PATTERNS:
        bad = regex_problem(cast(str, value))  # PATTERNS are ONE_TEXT: text_problem found a string
        if bad:
            raise reading.refusal(field, where, "a pattern Python's re compiles", f"{compact(value)}: {bad}")
    return value


class Found(NamedTuple):
    """What a case's `cases.criteria` places gave: checks, notes, the case keys the
    dialect read (not notes, not the format's own lists), and one entry label per
    place that gave nothing under `missing: skip`."""

    checks: list[Check]
    notes: list[Note]
    roots: set[str]
    skipped: list[str]
    consumed: set[Path]  # the places read: what a path passed by beside them becomes notes


def criteria_checks(
    reading: Reading, raw: dict[str, object], dialect: "Dialect", assertion: Assertion
) -> Found:
    """Checks from the dialect's `cases.criteria` places, in the order listed.

    `assertion(item, path, where)` is the reader's own treatment of one list
    item (a string is prose, an object goes through the rules). Nothing a
    place reaches is dropped: each item becomes a check, a note (what a path
    passed by, or what `missing: skip` left out), or a refusal naming the
    case, the path and the item. A place whose first key the case lacks is
    not used by that case (with `missing: skip`, it is counted).

    The common places (`k`, `k[]`, `a.b`) are read directly, each compiled once
    on its `Place`; any other path goes through `trace`. Both give the same checks,
    notes and skips: only the walk is shorter.
    """
    walk = _Walk(reading, dialect, assertion, Found([], [], set(), [], set()))
    for entry in dialect.cases.criteria:
        if entry.one_key is not None:  # `k` or `k[]`: one lookup
            walk.one_key(entry, entry.one_key, raw)
        elif entry.nested is not None:  # `a.b`: one object down
            walk.nested(entry, entry.nested, raw)
        else:
            walk.traced(entry, raw)
    return walk.found


class _Walk:
    """One case's walk through the dialect's criteria places, gathering what it finds."""

    # A plain class, not a dataclass: dataclasses (and inspect) stay off lint's path
    __slots__ = ("assertion", "dialect", "found", "reading")

    def __init__(self, reading: Reading, dialect: "Dialect", assertion: Assertion, found: Found) -> None:
        self.reading = reading
        self.dialect = dialect
        self.assertion = assertion
        self.found = found

    def one_key(self, entry: "Place", key: str, raw: dict[str, object]) -> None:
        found = self.found
        if key not in raw:
            if entry.missing == SKIP:
                found.skipped.append(entry.label)
            return
        child = raw[key]
        if entry.spread and type(child) is list:
            self.spread(entry, key, child)
            return
        found.consumed.add((key,))
        found.roots.add(key)
        self.value(entry, (key,), child)

    def spread(self, entry: "Place", key: str, child: list[object]) -> None:
        """`k[]`: each item of the list at `k`."""
        found = self.found
        if not child:  # an empty list walked: nothing reached (the key stays a note)
            if entry.missing == SKIP:
                found.skipped.append(entry.label)
            return
        # The whole key is read: each item's own place needs no entry of its own.
        found.consumed.add((key,))
        found.roots.add(key)
        prose = entry.check is None
        for index, item in enumerate(child):
            if prose and type(item) is str and item.isascii() and item.strip():
                found.checks.append(placeholder(item))  # the common item: prose, no path built
            elif prose and type(item) is dict:  # an object: through the rules
                self.through_rules(item, f"{key}[{index}]", (*self.reading.at, key, index))
            else:
                self.value(entry, (key, index), item)

    def nested(self, entry: "Place", pair: tuple[str, str], raw: dict[str, object]) -> None:
        found = self.found
        first, second = pair
        outer = raw.get(first)
        if not (type(outer) is dict and second in outer):
            if entry.missing == SKIP:
                found.skipped.append(entry.label)
            return
        # An object holding only that key is read whole: nothing beside it to look for.
        found.consumed.add((first,) if len(outer) == 1 else (first, second))
        found.roots.add(first)
        value = outer[second]
        if entry.check is not None and type(value) is list and value:  # a needle list, as value()
            where = (*self.reading.at, first, second)
            found.checks.extend(_needle_checks(self.reading, entry, value, where, (first, second)))
        else:
            self.value(entry, (first, second), value)

    def traced(self, entry: "Place", raw: dict[str, object]) -> None:
        found = self.found
        reached = trace(raw, entry.at)
        if not reached and entry.missing == SKIP:  # the case has nothing there
            found.skipped.append(entry.label)
        for sub, value in reached:
            found.roots.add(str(sub[0]))
            found.consumed.add(sub)
            self.value(entry, sub, value)

    def through_rules(self, item: dict[str, object], path: str, where: Path) -> None:
        """An object a place reached: a dialect rule's check, else the reader's own."""
        rule = self.dialect.match(item)
        if rule is not None:
            check, extra = converted(self.reading, rule, item, path, where)
        else:
            check, extra = self.assertion(item, path, where)
        self.found.checks.append(check)
        self.found.notes.extend(extra)

    def value(self, entry: "Place", sub: Path, value: object) -> None:
        """One value a place reached, at `sub` in the case: needles, prose, objects, or nothing."""
        found = self.found
        if type(value) is str:  # the common needle or prose: straight to its check
            if entry.check is not None:
                where = (*self.reading.at, *sub)
                found.checks.extend(_needle_checks(self.reading, entry, value, where, sub))
            elif value.isascii() and value.strip():  # prose, without building its path
                found.checks.append(placeholder(value))
            else:
                self.items(entry, value, sub)
        elif type(value) is dict and entry.check is None:  # an object: through the rules
            self.through_rules(value, path_text(sub), (*self.reading.at, *sub))
        elif isinstance(value, Stop):
            self.stop(entry, value)
        elif value is None or value == []:
            self.nothing(entry, sub, value)
        elif entry.check is not None:
            where = (*self.reading.at, *sub)
            found.checks.extend(_needle_checks(self.reading, entry, value, where, sub))
        else:
            self.items(entry, value, sub)

    def nothing(self, entry: "Place", sub: Path, value: object) -> None:
        """A place holding null or an empty list: no criterion. `missing: skip` counts it (a null
        kept as a note); under `refuse` a null is refused, and an empty list states that
        nothing is required (as it always did)."""
        if value is None and entry.missing != SKIP:
            expected = f"a value for the dialect's {entry.label} (or missing: skip on that entry)"
            raise self.reading.refusal(path_text(sub), (*self.reading.at, *sub), expected, "null")
        if value is None:
            self.found.notes.append(
                Note(path_text(sub), None, f"null: no criterion ({entry.label}, missing: skip)")
            )
        if entry.missing == SKIP:
            self.found.skipped.append(entry.label)

    def stop(self, entry: "Place", stop: Stop) -> None:
        """An item the path cannot walk through: a refusal, or under `missing: skip` a counted note."""
        where = path_text(stop.at)
        at = (*self.reading.at, *stop.at)
        if entry.missing != SKIP:
            expected = (
                f"what the dialect's {entry.label} walks through ({where}: {stop.why}; "
                "say missing: skip on the entry to leave such items out)"
            )
            raise self.reading.refusal(where, at, expected, describe(stop.value))
        remark = f"no criterion: {stop.why} ({entry.label}, missing: skip)"
        self.found.notes.append(self.reading.note(where, stop.value, at, remark))
        self.found.skipped.append(entry.label)

    def items(self, entry: "Place", value: object, sub: Path) -> None:
        found = self.found
        items = value if isinstance(value, list) else [value]
        for index, item in enumerate(items):
            tail = (*sub, index) if isinstance(value, list) else sub
            found.consumed.add(tail)
            if type(item) is str and item.isascii() and item.strip():  # prose, without building its path
                found.checks.append(placeholder(item))
                continue
            if item is None and entry.missing == SKIP:  # a null in a list: nothing stated here
                found.notes.append(
                    Note(path_text(tail), None, f"null: no criterion ({entry.label}, missing: skip)")
                )
                found.skipped.append(entry.label)
                continue
            check, extra = self.assertion(item, path_text(tail), (*self.reading.at, *tail))
            found.checks.append(check)
            found.notes.extend(extra)


def passed_by(reading: Reading, raw: dict[str, object], roots: set[str], consumed: set[Path]) -> list[Note]:
    """What the dialect's paths walked past (`inputs.context` beside `inputs.prompt`), as
    notes: under a key a path entered, everything no path read."""
    notes: list[Note] = []
    at = reading.at
    deep: set[str | int] | None = None  # first keys of the paths read more than one level down
    for root in sorted(roots):
        if (root,) in consumed:  # the common case: a whole key read
            continue
        value = raw[root]
        if type(value) is dict:
            unread = [key for key in value if (root, key) not in consumed]
            if not unread:  # every key of the object read
                continue
            if deep is None:
                deep = {sub[0] for sub in consumed if len(sub) > 2}
            if root not in deep:
                # one level down (inputs.prompt read, inputs.locale beside it): each key not read
                notes += [reading.note(f"{root}.{key}", value[key], (*at, root, key)) for key in unread]
                continue
        elif type(value) is list and all((root, i) in consumed for i in range(len(value))):
            continue  # every item of the list read
        prefixes = {sub[:n] for sub in consumed if sub[0] == root for n in range(1, len(sub))}
        for sub, left in _residue(value, (root,), consumed, prefixes):
            notes.append(reading.note(path_text(sub), left, (*at, *sub)))
    return notes


def _residue(value: object, sub: Path, consumed: set[Path], prefixes: set[Path]) -> list[tuple[Path, object]]:
    if sub in consumed:
        return []
    if sub not in prefixes:
        return [(sub, value)]
    if isinstance(value, dict):
        return [
            found
            for key, child in value.items()
            for found in _residue(child, (*sub, key), consumed, prefixes)
        ]
    if isinstance(value, list):
        return [
            found for i, child in enumerate(value) for found in _residue(child, (*sub, i), consumed, prefixes)
        ]
    return [(sub, value)]


def _needle_checks(reading: Reading, entry: "Place", value: object, where: Path, sub: Path) -> list[Check]:
    """A needle list's checks: one for the whole list (contains_any, contains_all, in_order),
    else one per needle. Each needle is checked by position (a list may mix in objects)."""
    check = str(entry.check)
    needles = value if isinstance(value, list) else [value]
    one_by_one = entry.checked_one_by_one
    for index, needle in enumerate(needles):
        if type(needle) is str and needle.isascii() and needle.strip() and not one_by_one:
            continue  # a plain needle: nothing to refuse (text_problem would find nothing)
        field = path_text(sub)
        at, path = ((*where, index), f"{field}[{index}]") if isinstance(value, list) else (where, field)
        problem = text_problem(needle)
        if problem:
            raise reading.refusal(path, at, problem, describe(needle))
        if one_by_one:
            argument(reading, check, needle, path, at)
    via = entry.label
    if entry.one_check:
        made = Check(
            words(check, needles, entry.ignore_case),
            entry.kind,
            (list(needles),),
            entry.options,
            via,
        )
        return [made]
    if check == "contains_none":
        return [
            Check(words(check, [n], entry.ignore_case), CheckKind.CONTAINS_NONE, ([n],), entry.options, via)
            for n in needles
        ]
    kind = entry.kind
    return [Check(words(check, n, entry.ignore_case), kind, (n,), entry.options, via) for n in needles]
