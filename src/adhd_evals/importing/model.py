"""The normalized case model every reader produces and every writer consumes.

One model sits between the source formats and the outputs (as pandoc's AST
does between its readers and writers): a reader turns a source into an
`ImportResult`, or raises a `Refusal`; writers never look at the source.
"""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled one by
# one at import (about 0.7 ms here, on every lint and import: see problem.py).
import enum
import functools
import json
from collections import Counter
from typing import TYPE_CHECKING, Any, NamedTuple

from .. import jsonl
from ..errors import UserError
from ..exitcodes import RefusalCode as RefusalCode  # in the core, with its exit code

# the catalog's fields and risks live in the core (schema.py); still importable from here
from ..schema import DEFAULT_RISK as DEFAULT_RISK
from ..schema import FIELDS as FIELDS
from ..schema import RISKS as RISKS
from ..schema import TEXT_FIELDS as TEXT_FIELDS
from ..text import plural

if TYPE_CHECKING:
    from .dialect import Dialect


class CheckKind(str, enum.Enum):
    """What the check module does for one criterion."""

    CONTAINS_ANY = "contains_any"
    CONTAINS_ALL = "contains_all"
    CONTAINS_NONE = "contains_none"
    MATCHES_EXACTLY = "matches_exactly"
    UNWRITTEN = "unwritten"
    # The rest of the vocabulary (see vocabulary.py); only dialect rules make these.
    CONTAINS = "contains"
    STARTS_WITH = "starts_with"
    EQUALS = "equals"
    REGEX = "regex"
    NOT_REGEX = "not_regex"
    MIN_CHARS = "min_chars"
    MAX_CHARS = "max_chars"
    MIN_WORDS = "min_words"
    MAX_WORDS = "max_words"
    IN_ORDER = "in_order"
    IS_JSON = "is_json"
    # The negations promptfoo's not- forms need (see vocabulary.py).
    NOT_CONTAINS_ALL = "not_contains_all"
    NOT_EQUALS = "not_equals"
    NOT_STARTS_WITH = "not_starts_with"
    NOT_IS_JSON = "not_is_json"
    # A plugin eval regex grader's `match: count:N` (see vocabulary.py).
    REGEX_COUNT = "regex_count"
    # Checks over what the model did (tracehelpers.py): they read the row's trace, not the answer.
    TOOL_USED = "tool_used"
    TOOL_ORDER = "tool_order"
    FILE_CREATED = "file_created"

    @property
    def traced(self) -> bool:
        return self in TRACE_KINDS


TRACE_KINDS = frozenset({CheckKind.TOOL_USED, CheckKind.TOOL_ORDER, CheckKind.FILE_CREATED})


class Check(NamedTuple):
    """One criterion's check.

    `criterion` is the rubric text that lands in the catalog; `args` are the
    literal arguments the generated call receives after the answer (needles,
    an expected output, or for a placeholder the text a person must turn
    into code). A NamedTuple: immutable, and cheap to build by the hundred
    thousand on a large import.
    """

    criterion: str
    kind: CheckKind
    args: tuple[Any, ...] = ()
    options: tuple[tuple[str, Any], ...] = ()  # keyword arguments: ignore_case, schema
    via: str = ""  # the dialect rule that made it, or the shape a placeholder kept

    @property
    def mechanical(self) -> bool:
        return self.kind is not CheckKind.UNWRITTEN


class Note(NamedTuple):
    """A source field kept for people: written as a comment on the case."""

    key: str
    value: Any
    remark: str = ""


class Case(NamedTuple):
    """One five-field case plus what goes to the check module."""

    id: str
    category: str
    prompt: str
    risk: str
    checks: tuple[Check, ...]
    notes: tuple[Note, ...] = ()
    origin: str = ""  # where the case came from, for the module's comments
    had_no_criteria: bool = False
    skipped: tuple[str, ...] = ()  # per dialect place that gave nothing under `missing: skip`, its label

    @property
    def criteria(self) -> list[str]:
        return [check.criterion for check in self.checks]

    def catalog_line(self) -> str:
        """The case as one JSONL line, keys in the catalog's order (`jsonl.text_row`'s line,
        from a format made once: this runs for every case of an import)."""
        criteria = ", ".join([_quoted(check.criterion) for check in self.checks])
        line = _CATALOG_LINE % (
            _quoted(self.id),
            _quoted(self.category),
            _quoted_text(self.prompt),
            _quoted(self.risk),
            criteria,
        )
        return _unbroken(line)


# Filled in FIELDS' order: id, category, prompt, risk, criteria.
_CATALOG_LINE = jsonl.row_format(FIELDS, lists=("criteria",))
_quoted, _quoted_text, _unbroken = jsonl.quoted, jsonl.quoted_text, jsonl.unbroken


class LeftOut(NamedTuple):
    """A case a dialect's `cases.skip` left out of the catalog, and why."""

    source: str
    case: str  # as a person would search for it
    id: str | None  # the catalog id it would have had, when it has one
    reason: str


class ImportResult:
    """What a reader produced from one source (a file or a directory).

    Plain classes here, not dataclasses: this module is on lint's path, and
    importing dataclasses (and the inspect module it needs) was about 7 ms of
    a hook run's 58.
    """

    def __init__(
        self,
        source: str,
        format: str,
        cases: tuple[Case, ...],
        risk: str,
        risk_was_default: bool,
        dialect: "Dialect | None" = None,
        sources: tuple[str, ...] = (),  # each source, when there were several
        left_out: tuple[LeftOut, ...] = (),  # cases the dialect's cases.skip left out
    ) -> None:
        self.source = source
        self.format = format
        self.cases = cases
        self.risk = risk
        self.risk_was_default = risk_was_default
        self.dialect = dialect
        self.sources = sources
        self.left_out = left_out

    def joined(self, others: "list[ImportResult]") -> "ImportResult":
        """This result and `others` as one: every case, every source."""
        results = [self, *others]
        return ImportResult(
            ", ".join(r.source for r in results),
            self.format,
            tuple(c for r in results for c in r.cases),
            self.risk,
            self.risk_was_default,
            self.dialect,
            tuple(r.source for r in results),
            tuple(x for r in results for x in r.left_out),
        )

    @property
    def origin(self) -> str:
        """Where the cases came from, for the module's header and the summary."""
        return self.source if len(self.sources) < 2 else f"{len(self.sources)} sources"

    @property
    def converted(self) -> int:
        return self._tally[0] - self._tally[1]

    @property
    def unconverted(self) -> int:
        """Placeholders for criteria the source stated (not the no-criteria ones)."""
        return self._tally[1] - self.cases_without_criteria

    @property
    def notes(self) -> int:
        return sum(len(case.notes) for case in self.cases)

    @property
    def cases_without_criteria(self) -> int:
        return sum(case.had_no_criteria for case in self.cases)

    @functools.cached_property
    def kinds(self) -> Counter[CheckKind]:
        """How many checks of each kind, counted once: the summary asks several times, per 100,000s."""
        return Counter(check.kind for case in self.cases for check in case.checks)

    @property
    def _tally(self) -> tuple[int, int]:
        """(checks, placeholders)."""
        return self.kinds.total(), self.kinds[CheckKind.UNWRITTEN]


class Refusal(UserError):
    """A source that does not match its format; nothing may be written.

    Carries everything the message needs so callers (the CLI, lint, tests)
    can render or inspect it without parsing text.
    """

    def __init__(
        self,
        code: RefusalCode,
        file: str,
        reason: str,  # e.g. "is not an evals-json file"
        *,
        case: str | None = None,  # "case 47" as a person would search for it
        field_path: str | None = None,  # e.g. "assertions[2].needles"
        expected: str | None = None,
        actual: str | None = None,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
    ) -> None:
        self.code = code
        self.file = file
        self.reason = reason
        self.case = case
        self.field_path = field_path
        self.expected = expected
        self.actual = actual
        self.line = line
        self.column = column
        self.hint = hint
        super().__init__(self.message)

    @property
    def message(self) -> str:
        if self.line is None:
            return self.body
        where = f"line {self.line}" + (f", column {self.column}" if self.column else "")
        return f"{self.body} ({where})"

    @property
    def body(self) -> str:
        """The message without its position (lint puts the position in front)."""
        parts = [f"{self.file} {self.reason}"]
        detail = ", ".join(p for p in (self.case, self.field_path) if p)
        problem = self._problem()
        if detail and problem:
            parts.append(f": {detail}: {problem}")
        elif detail or problem:
            parts.append(f": {detail or problem}")
        return "".join(parts)

    def _problem(self) -> str:
        if self.expected is None:
            return self.actual or ""
        if self.actual is None:
            return f"Expected {self.expected}"
        return f"Expected {self.expected}, actual {self.actual}"

    def __str__(self) -> str:
        return self.message

    @property
    def exit_code(self) -> int:  # type: ignore[override]  # one code per refusal
        return self.code.exit_code

    def lines(self) -> list[str]:
        hint = [f"hint: {self.hint}"] if self.hint else []
        return [f"adhd-evals: refused ({self.code.value}): {self.message}", *hint, "Nothing was written."]


def describe(value: Any, *, limit: int = 60) -> str:
    """A short, unambiguous rendering of a source value for messages."""
    if isinstance(value, dict):
        keys = ", ".join(str(k) for k in list(value)[:6])
        more = ", ..." if len(value) > 6 else ""
        return f"an object with keys {keys}{more}" if value else "an empty object"
    if isinstance(value, list):
        if not value:
            return "an empty list"
        return f"a list of {plural(len(value), 'item')}"
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


MISSING = "missing"
