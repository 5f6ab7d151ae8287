"""Dialect files: a team declares what its own case-file shapes mean.

Nothing is guessed: what `{"type": "contains"}` means (letter case? which
key holds the needle?) differs between repositories, so a dialect file says
it once. It is read with ruamel.yaml (positions for messages, and the same
library `survey` writes it with), checked against
`schemas/dialect.schema.json` with jsonschema, then against the rules a
schema cannot say well (a text check must decide letter case). A bad file is
refused naming the dialect file, the entry, and its line and column.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from .dialect_paths import position, reach, steps
from .dialect_schema import INVALID, _kind, _plain, _refusal, _validate
from .dialect_schema import SCHEMA_PATH as SCHEMA_PATH  # found as dialect.SCHEMA_PATH, as before

# The vocabulary's home is dialect_words.py; it is still found as dialect.NAME, as before
from .dialect_words import CASE_FREE as CASE_FREE
from .dialect_words import COUNTS as COUNTS
from .dialect_words import MAX_COUNT as MAX_COUNT
from .dialect_words import NO_NEEDLE as NO_NEEDLE
from .dialect_words import NO_SHAPE, NUMBERED, ONE_CHECK_LISTS, PATTERNS, REFUSE, TRACE_OPTIONS, CaseShape
from .dialect_words import ONE_TEXT as ONE_TEXT
from .dialect_words import SKIP as SKIP
from .dialect_words import TEXTS as TEXTS
from .dialect_words import TRACED as TRACED
from .dialect_words import VOCABULARY as VOCABULARY
from .dialect_words import WHOLE_FILE as WHOLE_FILE
from .model import CheckKind, Refusal, RefusalCode
from .sourcetext import decode_utf8, read_bytes

VERSION = 1


@dataclass(frozen=True)
class Rule:
    """One `assertions:` entry: objects matching `when` become `check`."""

    index: int
    when: tuple[tuple[str, Any], ...]
    check: str
    needle: str | None = None
    ignore_case: bool | None = None
    criterion: str | None = None
    schema: str | None = None  # for is_json: the JSON Schema as JSON text
    has: tuple[str, ...] = ()  # keys the object must also have
    keywords: tuple[tuple[str, str], ...] = ()  # a trace check's (keyword, the key holding its value)

    @functools.cached_property
    def label(self) -> str:
        shown = ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in self.when)
        if not self.when:  # a rule matched by its keys alone
            return f"rule {self.index + 1} (has {', '.join(self.has)} -> {self.check})"
        return f"rule {self.index + 1} ({{{shown}}} -> {self.check})"

    @functools.cached_property
    def kind(self) -> CheckKind:
        return CheckKind(self.check)

    @functools.cached_property
    def options(self) -> tuple[tuple[str, Any], ...]:
        """The keyword arguments every check this rule makes is called with."""
        return options(self.ignore_case, self.schema)

    @functools.cached_property
    def used(self) -> frozenset[str | None]:
        """Keys of a matched object the check uses; the rest travel as notes."""
        return frozenset(
            {key for key, _ in self.when} | {self.needle, self.criterion} | {k for _, k in self.keywords}
        )

    @functools.cached_property
    def text_needle(self) -> str | None:
        """The needle's key when the needle is one text and no pattern (a plain ASCII
        string there needs no checking), else None."""
        return self.needle if self.check in ONE_TEXT and self.check not in PATTERNS else None

    @functools.cached_property
    def keys(self) -> frozenset[str]:
        """The `has` keys, as a set: `keys <= obj.keys()` tests them all at once."""
        return frozenset(self.has)

    def matches(self, obj: dict[str, object]) -> bool:
        return all(key in obj and _same(obj[key], value) for key, value in self.when) and all(
            key in obj for key in self.has
        )


def options(rule_case: bool | None, schema: str | None = None) -> tuple[tuple[str, Any], ...]:
    """A check's keyword arguments: letter case when the dialect decided it, a schema."""
    found: tuple[tuple[str, Any], ...] = ()
    if rule_case is not None:
        found += (("ignore_case", rule_case),)
    if schema is not None:
        found += (("schema", schema),)
    return found


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same JSON type (True is not 1 here)."""
    return (type(a) is type(b) and a == b) or (
        isinstance(a, (int, float))
        and isinstance(b, (int, float))
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and a == b
    )


@dataclass(frozen=True)
class Place:
    """A `criteria:` entry: where on a case more criteria live.

    Without `check`, strings found there are prose and objects go through the
    assertion rules; with one, the value is needles (`{at, check, case}`).
    """

    at: str
    check: str | None = None
    ignore_case: bool | None = None
    missing: str = REFUSE

    @functools.cached_property
    def label(self) -> str:
        return f"criteria {self.at}" + (f" -> {self.check}" if self.check else "")

    # Compiled once per dialect, read once per case: what the path is, and what its checks take.

    @functools.cached_property
    def walk(self) -> tuple[tuple[str, bool], ...]:
        """The path's keys, each with whether it walks a list (`k[]`)."""
        return steps(self.at)

    @functools.cached_property
    def one_key(self) -> str | None:
        """The key of a one-key place (`k` or `k[]`), read without the general walk."""
        return self.walk[0][0] if len(self.walk) == 1 else None

    @functools.cached_property
    def spread(self) -> bool:
        return self.walk[0][1]

    @functools.cached_property
    def nested(self) -> tuple[str, str] | None:
        """`a.b` (one object down, no list): its two keys."""
        if len(self.walk) == 2 and not self.walk[0][1] and not self.walk[1][1]:
            return self.walk[0][0], self.walk[1][0]
        return None

    @functools.cached_property
    def options(self) -> tuple[tuple[str, Any], ...]:
        return options(self.ignore_case)

    @functools.cached_property
    def kind(self) -> CheckKind:
        """The kind of the checks a place with `check` makes (an enum call per case is slow)."""
        return CheckKind(str(self.check))

    @functools.cached_property
    def one_check(self) -> bool:
        """The whole needle list is one check's argument."""
        return self.check in ONE_CHECK_LISTS

    @functools.cached_property
    def checked_one_by_one(self) -> bool:
        """Each needle's text is checked as the check's own argument (a pattern compiles)."""
        return self.check in PATTERNS or self.check in ONE_TEXT


NeedleList = Place  # the name a needle-list entry had before places grew options


@dataclass(frozen=True)
class Skip:
    """A `cases.skip` entry: cases the catalog cannot hold, left out by declaration."""

    index: int
    reason: str
    has: tuple[str, ...] = ()
    when: tuple[tuple[str, Any], ...] = ()

    def matches(self, case: dict[str, object]) -> bool:
        return all(reach(case, key)[0] for key in self.has) and all(
            _reached_same(case, key, value) for key, value in self.when
        )


def _reached_same(case: dict[str, object], key: str, value: Any) -> bool:
    found, got = reach(case, key)
    return found and _same(got, value)


@dataclass(frozen=True)
class Dialect:
    display: str
    digest: str
    format: str
    cases: CaseShape = NO_SHAPE
    rules: tuple[Rule, ...] = ()
    _index: dict[tuple[str, ...], dict[tuple[Any, ...], list[Rule]]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        # Rules grouped by their `when` keys, so matching an object costs one
        # dict lookup per distinct key set instead of a scan of every rule.
        for rule in self.rules:
            keys = tuple(k for k, _ in rule.when)
            values = tuple(_typed(v) for _, v in rule.when)
            self._index.setdefault(keys, {}).setdefault(values, []).append(rule)

    def match(self, obj: dict[str, object]) -> Rule | None:
        """The first rule (in file order) whose `when` (and `has`) the object matches."""
        index = self._index
        if len(index) == 1 and () in index:  # only `has` rules: the first whose keys the object has
            for rule in index[()][()]:
                if rule.keys <= obj.keys():
                    return rule
            return None
        best: Rule | None = None
        for keys, table in index.items():
            probe = _probe(keys, obj)
            if probe is None:  # the object lacks one of the keys
                continue
            try:
                candidates = table.get(probe)
            except TypeError:  # an unhashable value (a list) matches no scalar
                continue
            first = next((r for r in candidates or () if not r.has or r.keys <= obj.keys()), None)
            if first is not None and (best is None or first.index < best.index):
                best = first
        return best

    @property
    def header(self) -> str:
        return f"Dialect: {self.display} (blake2s {self.digest})."


def _probe(keys: tuple[str, ...], obj: dict[str, object]) -> tuple[Any, ...] | None:
    """The object's typed values at a rule group's `when` keys (None: it lacks one)."""
    try:
        if len(keys) == 1:  # one key (`type`) is the common `when`: no generator for it
            return (_typed(obj[keys[0]]),)
        return tuple(_typed(obj[k]) for k in keys)  # `has`-only rules sit under the empty probe
    except KeyError:
        return None


def _typed(value: Any) -> tuple[str, Any]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ("number", value)
    return (type(value).__name__, value)


def load(path: Path, display: str | None = None) -> Dialect:
    """Read, validate and build a dialect; raises Refusal (DialectInvalid)."""
    import hashlib  # here: every reader imports this module, few runs read a dialect (survey none)

    shown = display if display is not None else str(path)
    data = read_bytes(path, shown)
    text = decode_utf8(data, shown, RefusalCode.DIALECT_INVALID, INVALID)
    tree = _parse(text, shown)
    _validate(tree, shown)
    _format_rules(tree, shown)
    digest = hashlib.blake2s(data, digest_size=8).hexdigest()
    return Dialect(
        shown,
        digest,
        str(tree["format"]),
        _case_shape(tree, shown),
        tuple(_rule(tree, i, shown) for i in range(len(tree.get("assertions") or []))),
    )


def _parse(text: str, shown: str) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        tree = YAML(typ="rt").load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise _refusal(
            shown,
            actual=str(exc.problem or exc.context or "not YAML"),
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
        ) from exc
    except (
        YAMLError,
        RecursionError,
        ValueError,
    ) as exc:  # a duplicate key, too deep, an int past the digit limit
        raise _refusal(shown, actual=f"not YAML ({exc})") from exc
    if not isinstance(tree, dict):
        raise _refusal(
            shown,
            field_path="(top level)",
            expected='a mapping starting "adhd-evals-dialect: 1"',
            actual=_kind(tree),
        )
    return tree


def _format_rules(tree: Any, shown: str) -> None:
    """What a yaml file's dialect cannot say: `id: "#"` numbers the cases of a list
    (`cases.at`); a file that is one case has no order to number it by."""
    cases = tree.get("cases") or {}
    if tree["format"] != "yaml" or "at" in cases:
        return
    if "id" in cases and NUMBERED in _keys(cases.get("id")):
        line, column = position(tree, ("cases", "id"))
        raise _refusal(
            shown,
            field_path="cases.id",
            line=line,
            column=column,
            expected='no cases.id of "#" for yaml without cases.at: a file that is one case has no '
            "number in a list",
            actual=_kind(cases["id"]),
        )


def _keys(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    return (str(value),) if isinstance(value, str) else tuple(str(v) for v in value)


def _case_shape(tree: Any, shown: str) -> CaseShape:
    cases = tree.get("cases") or {}
    criteria: list[Place] = []
    for index, entry in enumerate(cases.get("criteria") or []):
        if isinstance(entry, str):
            criteria.append(Place(str(entry)))
            continue
        missing = str(entry.get("missing") or REFUSE)
        if entry.get("check") is None:
            criteria.append(Place(str(entry["at"]), missing=missing))
            continue
        if entry.get("case") is None:
            line, column = position(tree, ("cases", "criteria", index))
            raise _refusal(
                shown,
                field_path=f"cases.criteria[{index}].case",
                expected=f"sensitive or insensitive: {entry['check']} compares text, and "
                "whether letter case matters is yours to decide",
                actual="missing",
                line=line,
                column=column,
            )
        criteria.append(
            Place(str(entry["at"]), str(entry["check"]), _ignore_case(entry.get("case")), missing)
        )
    skips = tuple(
        Skip(
            index,
            str(entry["reason"]),
            tuple(str(k) for k in entry.get("has") or ()),
            tuple((str(k), _plain(v)) for k, v in (entry.get("when") or {}).items()),
        )
        for index, entry in enumerate(cases.get("skip") or [])
    )
    return CaseShape(
        _keys(cases.get("at")),
        _keys(cases.get("prompt")),
        _keys(cases.get("id")),
        tuple(criteria),
        _keys(cases.get("category")),
        skips,
    )


def _ignore_case(value: Any) -> bool | None:
    return None if value is None else value == "insensitive"


def _rule(tree: Any, index: int, shown: str) -> Rule:
    entry = tree["assertions"][index]
    where = ("assertions", index)
    check = str(entry["check"])

    def refuse(key: str, expected: str, actual: str) -> Refusal:
        line, column = position(tree, (*where, key) if key in entry else where)
        return _refusal(
            shown,
            field_path=f"assertions[{index}].{key}",
            expected=expected,
            actual=actual,
            line=line,
            column=column,
        )

    if check not in CASE_FREE and entry.get("case") is None:
        raise refuse(
            "case",
            f"sensitive or insensitive: {check} compares text, and whether "
            "letter case matters is yours to decide",
            "missing",
        )
    if check not in NO_NEEDLE and entry.get("needle") is None:
        raise refuse("needle", f"the key that holds {check}'s argument", "missing")
    schema = entry.get("schema")
    if schema is not None and check != "is_json":
        raise refuse("schema", "a schema only with check: is_json", f"check: {check}")
    keywords = {str(k): str(v) for k, v in (entry.get("options") or {}).items()}
    allowed = TRACE_OPTIONS.get(check, ())
    if any(keyword not in allowed for keyword in keywords):
        wanted = (
            f"keywords of {check}: {', '.join(allowed)}" if allowed else f"no options: {check} takes none"
        )
        raise refuse("options", wanted, ", ".join(keywords))
    return Rule(
        index,
        tuple((str(k), _plain(v)) for k, v in (entry.get("when") or {}).items()),
        check,
        None if entry.get("needle") is None else str(entry["needle"]),
        None if check in CASE_FREE else _ignore_case(entry.get("case")),
        None if entry.get("criterion") is None else str(entry["criterion"]),
        None if schema is None else _schema_text(schema, refuse),
        tuple(str(k) for k in entry.get("has") or ()),
        tuple(keywords.items()),
    )


def _schema_text(schema: Any, refuse: Any) -> str:
    import jsonschema

    # dialect.schema.json checked it is an object or a boolean; the stubs name only the dict
    # (check_schema takes both), and `_plain` gives str keys
    plain = cast("dict[str, object]", _plain(schema))
    try:
        jsonschema.validators.validator_for(plain).check_schema(plain)
        return json.dumps(plain, ensure_ascii=False, allow_nan=False, sort_keys=True)
    except jsonschema.exceptions.SchemaError as exc:
        raise refuse("schema", "a valid JSON Schema", exc.message) from exc
    except ValueError as exc:
        raise refuse("schema", "a schema JSON can write", str(exc)) from exc
