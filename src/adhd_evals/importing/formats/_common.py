"""Pieces every reader shares: options, refusal building, strict field checks."""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled one by
# one at import, on every lint and import (see model.py).
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ...text import lone_surrogate_at
from ..model import MISSING, Case, Check, CheckKind, LeftOut, Note, Refusal, RefusalCode, describe
from ..sourcetext import decode_utf8, load_json, locate, read_bytes, too_deep

if TYPE_CHECKING:
    from ..dialect import Dialect

Locator = Callable[[tuple[str | int, ...]], tuple[int | None, int | None]]

# The `via` of criteria read from a case's statement of success (evals-json's
# `expected_output`, skill-creator's "description of what success looks like").
SUCCESS_VIA = "expected_output"
# The test a promptfoo config without tests runs each prompt as (its cases' origin ends so).
NO_TESTS = "the prompts without tests"
NO_CRITERIA = "The source case states no criteria: decide what a good answer must show and write this check."


# A reader's cases, its refusals, and whether its text could hold a lone surrogate at all.
ReadAll = Callable[[Path, str, "ReadOptions", bool], tuple[list[Case], list[Refusal], bool]]


def strict(read_all: ReadAll, code: RefusalCode, reason: str) -> Callable[..., list[Case]]:
    """The import's reader: the first refusal stops it."""

    def read(source: Path, *, display: str, options: ReadOptions) -> list[Case]:
        cases, refusals, surrogates = read_all(source, display, options, False)
        refusals += unwritable(cases, display, code, reason) if surrogates else []
        if refusals:
            raise refusals[0]
        return cases

    return read


class SourceProblems(NamedTuple):
    """What lint learns from one source: how many cases, every refusal, the ids read."""

    cases: int
    refusals: list[Refusal]
    ids: list[str]  # of the cases read whole (a YAML folder's collisions are found from these)


def collecting(read_all: ReadAll, code: RefusalCode, reason: str) -> Callable[..., SourceProblems]:
    """Lint's reader: every refusal in the source, and how many cases it read."""

    def problems(source: Path, *, display: str, options: ReadOptions) -> SourceProblems:
        try:
            cases, refusals, surrogates = read_all(source, display, options, True)
        except Refusal as refusal:  # the source as a whole is not of its format
            return SourceProblems(0, [refusal], [])
        found = unwritable(cases, display, code, reason) if surrogates else []
        return SourceProblems(len(cases) + len(refusals), refusals + found, [case.id for case in cases])

    return problems


def unwritable(cases: list[Case], display: str, code: RefusalCode, reason: str) -> list[Refusal]:
    """Cases holding text no UTF-8 catalog can: a lone surrogate (half a UTF-16 pair)
    in an id, a category, a prompt or a criterion, however it got there."""
    found = []
    for case in cases:
        if not has_lone_surrogate(
            "".join((case.id, case.category, case.prompt, *(c.criterion for c in case.checks)))
        ):
            continue  # the common case: one check of all its text at once
        fields = [("id", case.id), ("category", case.category), ("prompt", case.prompt)]
        fields += [(f"criteria[{i}]", c.criterion) for i, c in enumerate(case.checks)]
        bad = next((name for name, text in fields if has_lone_surrogate(text)), None)
        if bad is not None:
            found.append(
                Refusal(
                    code,
                    case.origin.split(", case")[0] if case.origin else display,
                    reason,
                    case=f"case {case.id!r}",
                    field_path=bad,
                    expected="text that UTF-8 can hold",
                    actual="a lone surrogate (half of a UTF-16 pair)",
                )
            )
    return found


class ReadOptions:
    """What a reader is asked, beyond the file. Plain classes here, not dataclasses: every lint
    and import reads through this module, and dataclasses (with the inspect module it imports)
    cost about 7 ms of their start-up (docs/startup.md)."""

    __slots__ = ("category", "default_criteria", "dialect", "left_out", "risk", "skill", "skip_tests")

    def __init__(
        self,
        *,
        risk: str,
        category: str | None = None,
        dialect: "Dialect | None" = None,
        default_criteria: bool = True,
        skip_tests: tuple[int, ...] = (),
        skill: str | None = None,
    ) -> None:
        self.risk = risk
        self.category = category
        self.dialect = dialect
        # False (`--no-default-criteria`): a statement of success (evals-json's `expected_output`)
        # stays a note, and a case with no other criteria gets the no-criteria placeholder.
        self.default_criteria = default_criteria
        # promptfoo: the tests (1-based, across the config) left out by `--skip-test N`.
        self.skip_tests = skip_tests
        self.skill = skill  # --skill: the skill a trigger case is about
        # Where a reader puts the cases a dialect's `cases.skip` leaves out (the reader's
        # signature returns cases only; the import and lint read this list after it).
        self.left_out: list[LeftOut] = []


class Refuser:
    """Builds refusals for one source file, with positions on demand."""

    __slots__ = ("code", "display", "locator", "reason")

    def __init__(self, code: RefusalCode, display: str, reason: str, locator: Locator | None = None) -> None:
        self.code = code
        self.display = display
        self.reason = reason
        self.locator = locator

    def __call__(
        self,
        *,
        case: str | None = None,
        field_path: str | None = None,
        at: tuple[str | int, ...] = (),
        expected: str | None = None,
        actual: str | None = None,
        hint: str | None = None,
        code: RefusalCode | None = None,
    ) -> Refusal:
        line = column = None
        if self.locator is not None and at:  # the top level's position says nothing
            line, column = self.locator(at)
        return Refusal(
            code or self.code,
            self.display,
            self.reason,
            case=case,
            field_path=field_path,
            expected=expected,
            actual=actual,
            line=line,
            column=column,
            hint=hint,
        )


def actual_of(container: Mapping[str, object], key: str) -> str:
    return describe(container[key]) if key in container else MISSING


def read_json_source(source: Path, display: str, code: RefusalCode, reason: str) -> tuple[Any, Refuser, bool]:
    """A JSON source file's data, the refuser that locates its problems, and whether any
    of its strings could hold a lone surrogate (see may_hold_surrogates)."""
    source_bytes = read_bytes(source, display)
    surrogates = may_hold_surrogates(source_bytes)
    text = decode_utf8(source_bytes, display, RefusalCode.NOT_JSON, "is not JSON")
    del source_bytes  # the text is all that is needed from here: not both copies at once
    data = load_json(text, display)
    return data, Refuser(code, display, reason, Relocator(source, display)), surrogates


class Relocator:
    """Where a path of a JSON source is, found in its text read again when a refusal first asks.

    The text is not held while the cases are read: a source of 1,000,000 cases is some 1.4 GB
    of UTF-8 and up to twice that as a str, more than the cases read from it, and most imports
    refuse nothing. Read again, it is the same text (a file changed in between has its refusal
    placed by what it holds now; one gone has it placed nowhere).
    """

    def __init__(self, source: Path, display: str) -> None:
        self.source = source
        self.display = display
        self.text: str | None = None

    def __call__(self, at: tuple[str | int, ...]) -> tuple[int | None, int | None]:
        if self.text is None:
            try:
                self.text = decode_utf8(
                    read_bytes(self.source, self.display), self.display, RefusalCode.NOT_JSON, ""
                )
            except Refusal:
                return None, None
        return locate(self.text, at)


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def may_hold_surrogates(json_bytes: bytes) -> bool:
    """Whether a JSON document could decode to a string holding a lone surrogate.

    Decoded UTF-8 holds none, so only a `\\uD800`-`\\uDFFF` escape makes one:
    when the file has no such escape, no string read from it needs checking
    (a scan of its bytes, 0.5 to 4 ms for 15 MB, instead of an encode of
    every non-ASCII string).
    """
    if json_bytes.find(b"\\") == -1:  # one memchr: many files hold no escape at all
        return False
    return _SURROGATE_ESCAPE.search(json_bytes) is not None


def has_lone_surrogate(text: str) -> bool:
    """Whether `text` holds a lone surrogate, which no catalog line (UTF-8) can hold."""
    return lone_surrogate_at(text) is not None


def text_problem(value: object) -> str | None:
    """Why `value` cannot be a catalog text (None when it can)."""
    if not isinstance(value, str):
        return "a string"
    if not value.strip():
        return "a non-empty string"
    if has_lone_surrogate(value):
        return "text that UTF-8 can hold (this has a lone surrogate)"
    return None


def require_text(
    refuse: Refuser,
    obj: Mapping[str, object],
    key: str,
    *,
    case: str,
    at: tuple[str | int, ...],
    field_path: str | None = None,
    hint: str | None = None,
) -> str:
    value = obj.get(key)
    problem = text_problem(value)
    if problem is not None or not isinstance(value, str):
        raise refuse(
            case=case,
            field_path=field_path or key,
            at=at,
            expected=problem,
            actual=actual_of(obj, key),
            hint=hint,
        )
    return value


def jsonable(value: object) -> Any:
    """Turn YAML-only scalars (dates kept as written, sets, bytes) into JSON values."""
    if isinstance(value, dict):
        return {_key(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _key(key: object) -> str:
    return key if isinstance(key, str) else json.dumps(jsonable(key), ensure_ascii=False)


def note(
    refuse: Refuser, key: str, value: object, *, case: str, at: tuple[str | int, ...], remark: str = ""
) -> Note:
    if isinstance(value, (dict, list)) and too_deep(value):
        raise refuse(
            case=case,
            field_path=key,
            at=at,
            expected="a value nested less than 64 levels deep",
            actual="deeper nesting",
        )
    return Note(key, value, remark)


def placeholder(criterion: str, source_text: str | None = None) -> Check:
    return Check(criterion, _UNWRITTEN, (source_text or criterion,))


_UNWRITTEN = CheckKind.UNWRITTEN  # read once: an enum member's lookup is slow, and this runs per criterion


def no_criteria_placeholder() -> Check:
    return placeholder(NO_CRITERIA)


_SLUG_DROP = re.compile(r"[\W_]+")


def slug(text: str) -> str:
    """Lowercase, runs of anything but letters and digits become one '-'."""
    return _SLUG_DROP.sub("-", text.lower()).strip("-")


def compact(value: object) -> str:
    """`value` as JSON on one line, non-ASCII kept (json.dumps's own separators)."""
    if type(value) is str:
        return _QUOTED(value)  # what the encoder makes of a string, without its dispatch
    if type(value) is dict:
        # The common assertion object ({"text": ..., "type": ...}): its strings quoted as the
        # encoder quotes them, without the encoder built for each call (a third of the time).
        parts = []
        for key, item in value.items():
            if type(key) is not str or type(item) is not str:
                return _ENCODE(value)
            parts.append(f"{_QUOTED(key)}: {_QUOTED(item)}")
        return "{" + ", ".join(parts) + "}"
    return _ENCODE(value)


_ENCODE = json.JSONEncoder(ensure_ascii=False).encode  # built once: json.dumps builds one per call
_QUOTED = json.encoder.encode_basestring  # ensure_ascii=False's quoting of a string
