"""promptfoo assertions as checks, by promptfoo's own rules (0.120.0, src/assertions/*.ts).

| promptfoo | check | its rule in promptfoo |
| --- | --- | --- |
| equals | equals(strip=False) | String(value) === output |
| contains / icontains | contains | output.includes(String(value)); i: both toLowerCase() |
| contains-any / icontains-any | contains_any | a text value is split on commas (contains-any honours "quoted, items") |
| contains-all / icontains-all | contains_all | a text value is split on commas, each item trimmed |
| regex | regex (translated) | new RegExp(value).test(output), no flags |
| starts-with | starts_with(strip=False) | output.startsWith(value) |
| is-json | is_json (schema as JSON) | JSON.parse(output), then ajv against the schema |
| not-X | the negation | not-contains(-any) → contains_none, not-contains-all → not_contains_all, ... |
| javascript, one line of the safe subset (jssubset.py) | contains, starts_with, regex, their negations | its expression on `output` |
| llm-rubric, g-eval, model-graded-closedqa, factuality | prose | the text is the criterion |
| anything else | unwritten placeholder | the assertion kept as its argument, counted by type |

An assertion promptfoo itself rejects (a `not-contains` given a list, an
unknown type, a regex JavaScript cannot compile) becomes a placeholder
carrying promptfoo's own reason: the file is not refused for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal, NamedTuple, TypedDict, cast

import yaml

from ...model import Check, CheckKind, Note
from .._common import compact
from .jsregex import NotTranslatable, translate
from .jssubset import javascript_check
from .jsvalues import js_json, js_number, js_string, js_truthy

PROSE = ("llm-rubric", "g-eval", "model-graded-closedqa", "factuality", "model-graded-factuality")
# ASSERTION_HANDLERS in promptfoo 0.120.0 (src/assertions/index.ts), and the types handled around them.
KNOWN = frozenset(
    [
        "answer-relevance",
        "bleu",
        "classifier",
        "contains",
        "contains-all",
        "contains-any",
        "contains-html",
        "contains-json",
        "contains-sql",
        "contains-xml",
        "context-faithfulness",
        "context-recall",
        "context-relevance",
        "conversation-relevance",
        "cost",
        "equals",
        "factuality",
        "finish-reason",
        "g-eval",
        "gleu",
        "guardrails",
        "icontains",
        "icontains-all",
        "icontains-any",
        "is-html",
        "is-json",
        "is-refusal",
        "is-sql",
        "is-valid-function-call",
        "is-valid-openai-function-call",
        "is-valid-openai-tools-call",
        "is-xml",
        "javascript",
        "latency",
        "levenshtein",
        "llm-rubric",
        "meteor",
        "model-graded-closedqa",
        "model-graded-factuality",
        "moderation",
        "perplexity",
        "perplexity-score",
        "pi",
        "python",
        "regex",
        "ruby",
        "rouge-n",
        "search-rubric",
        "similar",
        "similar:cosine",
        "similar:dot",
        "similar:euclidean",
        "starts-with",
        "trace-error-spans",
        "trace-span-count",
        "trace-span-duration",
        "webhook",
    ]
)
SPECIAL = ("select-best", "human", "max-score")
CRITERION_KEY = "criterion"  # config.criterion: the catalog's wording, which export writes
NOT_HONOURED = "kept for reference: adhd-evals' gate does not honour it"
Render = Callable[[object], object]

# An assert-set's own list: `assert` is a Python keyword, so it is declared in the functional form.
_AssertSetList = TypedDict("_AssertSetList", {"assert": object}, total=False)


class Assertion(_AssertSetList, total=False):
    """One entry of an `assert` list once it is known to be an object: the keys of promptfoo's
    assertion reference that the import reads, each value as written (narrowed where read)."""

    type: object
    value: object
    threshold: object
    weight: object
    metric: object
    config: object
    provider: object
    transform: object
    contextTransform: object


# The keys of an assertion kept as notes, in the order they are noted.
_Kept = Literal["weight", "metric", "threshold"]
_KEPT: tuple[_Kept, ...] = ("weight", "metric", "threshold")
_KEPT_OF_SET: tuple[_Kept, ...] = ("threshold", "weight", "metric")


class Mapped(NamedTuple):
    checks: list[Check]
    notes: list[Note]


def map_assertion(assertion: object, render: Render, where: str) -> Mapped:
    """One entry of an `assert` list (an assert-set flattened) as checks and notes."""
    if not isinstance(assertion, dict):
        return Mapped([_rejected(assertion, "an assertion must be an object with a type")], [])
    # checked just above: an object, which is all Assertion asks (every key optional, any value)
    return _mapped(cast(Assertion, assertion), render, where)


def _mapped(assertion: Assertion, render: Render, where: str) -> Mapped:
    kind = assertion.get("type")
    if kind == "assert-set":
        return _assert_set(assertion, render, where)
    notes = _kept(assertion, where)
    if not isinstance(kind, str) or not kind:
        return Mapped([_rejected(assertion, f"Assertion must have a type: {js_json(assertion)}")], notes)
    base = kind[4:] if kind.startswith("not-") else kind
    if base not in KNOWN and kind not in SPECIAL:
        return Mapped([_rejected(assertion, f"Unknown assertion type: {kind}")], notes)
    unmapped = _unmapped(assertion, kind)
    if unmapped is not None:
        return Mapped([unmapped], notes)
    rendered = render(assertion.get("value"))  # a refusal (ValueError) reaches the reader, which places it
    check = _check(assertion, kind, base, rendered)
    wording = _wording(assertion)
    if wording and check.kind is not CheckKind.UNWRITTEN:
        check = check._replace(criterion=wording)
    if "provider" in assertion:
        notes.append(Note(f"{where}.provider", assertion["provider"], "the model promptfoo grades this with"))
    return Mapped([check], notes)


def _unmapped(assertion: Assertion, kind: str) -> Check | None:
    """The placeholder for an assertion whose check is promptfoo's alone: a special type, a
    transformed output, a value read from a file when promptfoo runs (None: map it)."""
    if kind in SPECIAL:
        return _placeholder(assertion, kind)
    if any(k in assertion for k in ("transform", "contextTransform")):  # checks a transformed output
        return _placeholder(assertion, kind)._replace(via="promptfoo transform")
    value = assertion.get("value")
    if isinstance(value, str) and value.startswith("file://"):
        return _placeholder(assertion, kind, "its value is read from a file when promptfoo runs")
    return None


def _wording(assertion: Assertion) -> str | None:
    config = assertion.get("config")
    if (
        isinstance(config, dict)
        and isinstance(config.get(CRITERION_KEY), str)
        and config[CRITERION_KEY].strip()
    ):
        return str(config[CRITERION_KEY])
    return None


def _kept(assertion: Assertion, where: str) -> list[Note]:
    notes = []
    for key in _KEPT:
        if key in assertion:
            remark = NOT_HONOURED
            if key == "weight" and assertion[key] == 0:
                remark = (
                    "weight 0: promptfoo counts this assertion as passed whatever the output; " + NOT_HONOURED
                )
            notes.append(Note(f"{where}.{key}", assertion[key], remark))
    return notes


def _assert_set(assertion: Assertion, render: Render, where: str) -> Mapped:
    inner = assertion.get("assert")
    if not isinstance(inner, list):
        return Mapped([_rejected(assertion, "assert-set must have an assert list")], [])
    checks: list[Check] = []
    notes: list[Note] = []
    for key in _KEPT_OF_SET:
        if key in assertion:
            notes.append(
                Note(
                    f"{where}.{key}",
                    assertion[key],
                    f"of an assert-set of {len(inner)}, flattened here: each is its own criterion; "
                    + NOT_HONOURED,
                )
            )
    for position, item in enumerate(inner):
        mapped = map_assertion(item, render, f"{where}.assert[{position}]")
        checks += mapped.checks
        notes += mapped.notes
    return Mapped(checks, notes)


def _rejected(assertion: object, reason: str) -> Check:
    text = f"promptfoo rejects this assertion ({reason}): {compact(assertion)}"
    return Check(text, CheckKind.UNWRITTEN, (text,), via="promptfoo (rejected)")


def _placeholder(assertion: Assertion, kind: str, why: str = "") -> Check:
    text = kind if "value" not in assertion else _label(kind, assertion["value"])
    if "threshold" in assertion:
        text += f" (threshold {compact(assertion['threshold'])})"
    source = compact(assertion) + (f" ({why})" if why else "")
    return Check(_wording(assertion) or text, CheckKind.UNWRITTEN, (source,), via=f"promptfoo {kind}")


def _label(kind: str, value: object) -> str:
    return f"{kind}: {value if isinstance(value, str) else compact(value)}"


def _string(value: object) -> str:
    """String(value) for a value promptfoo stringifies (numbers as JavaScript prints them)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return js_number(value)
    return js_string(value) if value is not None else "null"


_ANY_ITEMS = re.compile(r'(".*?"|[^,]+)(?=\s*,|\s*\Z)')


def _needles(kind: str, base: str, value: object) -> list[str] | str:
    """The needle list of a -any/-all assertion, or promptfoo's reason for rejecting it."""
    if not js_truthy(value):
        return f'"{kind}" assertion type must have a value'
    if isinstance(value, str):
        if base == "contains-any":  # the one that honours "quoted, items"
            return [m.strip().removeprefix('"').removesuffix('"') for m in _ANY_ITEMS.findall(value)]
        return [item.strip() for item in value.split(",")]
    if not isinstance(value, list):
        return f'"{kind}" assertion type must have an array value'
    return [_string(item) for item in value]


def _check(assertion: Assertion, kind: str, base: str, value: object) -> Check:
    label = _wording(assertion) or _label(kind, value)
    if base in PROSE:
        if isinstance(value, str) and value.strip():
            return Check(
                label if _wording(assertion) else value.strip(), CheckKind.UNWRITTEN, (value,), via=""
            )
        return _placeholder(assertion, kind, "a model-graded assertion without a text criterion")
    mapping = _BY_BASE.get(base)
    if mapping is not None:
        return mapping(_Asked(assertion, kind, base, value, label))
    if kind == "javascript" and isinstance(value, str) and not _CHANGES_JS.intersection(assertion):
        converted = javascript_check(value)
        if converted is not None:
            return Check(label, *converted)
    return _placeholder(assertion, kind)


# What changes a javascript assertion's verdict beyond its expression's truth: kept a placeholder.
_CHANGES_JS = frozenset({"threshold", "config"})


class _Asked(NamedTuple):
    """One assertion as _check reads it: its kind, that kind without `not-`, its value, its label."""

    assertion: Assertion  # as written: promptfoo checks each key's value where it reads it
    kind: str
    base: str
    value: object
    label: str

    @property
    def inverse(self) -> bool:
        return self.kind.startswith("not-")


def _contains(asked: _Asked) -> Check:
    assertion, base, value, label = asked.assertion, asked.base, asked.value, asked.label
    if not value or not isinstance(value, (str, int, float)) or isinstance(value, bool):
        return _rejected(assertion, f'"{base}" assertion type must have a string or number value')
    needle, ignore = _string(value), (("ignore_case", base == "icontains"),)
    if asked.inverse:
        return Check(label, CheckKind.CONTAINS_NONE, ([needle],), ignore)
    return Check(label, CheckKind.CONTAINS, (needle,), ignore)


_CONTAINS_SET_KINDS = {
    ("any", False): CheckKind.CONTAINS_ANY,
    ("any", True): CheckKind.CONTAINS_NONE,
    ("all", False): CheckKind.CONTAINS_ALL,
    ("all", True): CheckKind.NOT_CONTAINS_ALL,
}


def _contains_set(asked: _Asked) -> Check:
    needles = _needles(asked.base, asked.base, asked.value)
    if isinstance(needles, str):
        return _rejected(asked.assertion, needles)
    ignore = (("ignore_case", asked.base.startswith("i")),)
    kind = _CONTAINS_SET_KINDS[(asked.base[-3:], asked.inverse)]
    return Check(asked.label, kind, (needles,), ignore)


def _equals(asked: _Asked) -> Check:
    value = asked.value
    if isinstance(value, (dict, list)) or (value is None and "value" in asked.assertion):
        return _placeholder(asked.assertion, asked.kind, "equals with a JSON value compares parsed JSON")
    expected = "undefined" if value is None else _string(value)
    return Check(
        asked.label,
        CheckKind.NOT_EQUALS if asked.inverse else CheckKind.EQUALS,
        (expected,),
        (("ignore_case", False), ("strip", False)),
    )


def _starts_with(asked: _Asked) -> Check:
    value = asked.value
    if not value or not isinstance(value, str):
        return _rejected(asked.assertion, '"starts-with" assertion type must have a string value')
    return Check(
        asked.label,
        CheckKind.NOT_STARTS_WITH if asked.inverse else CheckKind.STARTS_WITH,
        (value,),
        (("ignore_case", False), ("strip", False)),
    )


def _regex(asked: _Asked) -> Check:
    value = asked.value
    if not value or not isinstance(value, str):
        return _rejected(asked.assertion, '"regex" assertion type must have a string value')
    try:
        pattern = translate(value)
    except NotTranslatable as exc:
        return _placeholder(
            asked.assertion, asked.kind, f"a JavaScript pattern with no exact Python form: {exc}"
        )
    return Check(
        asked.label,
        CheckKind.NOT_REGEX if asked.inverse else CheckKind.REGEX,
        (pattern,),
        (("ignore_case", False),),
    )


def _is_json(asked: _Asked) -> Check:
    assertion, value, label = asked.assertion, asked.value, asked.label
    if not value:
        return Check(label, CheckKind.NOT_IS_JSON if asked.inverse else CheckKind.IS_JSON, ())
    if asked.inverse:
        return _placeholder(assertion, asked.kind, "not-is-json with a schema")
    schema = value
    if isinstance(value, str):
        try:
            schema = yaml.safe_load(value)
        except yaml.YAMLError:
            return _rejected(assertion, "its schema is not YAML")
    if not isinstance(schema, dict):
        return _rejected(assertion, "is-json assertion must have a string or object value")
    text = js_json(schema)
    return Check(label, CheckKind.IS_JSON, (), (("schema", text),))


# The assertions _check writes a check for, by their kind without `not-`: one mapping each.
_BY_BASE: dict[str, Callable[[_Asked], Check]] = {
    "contains": _contains,
    "icontains": _contains,
    **dict.fromkeys(("contains-any", "icontains-any", "contains-all", "icontains-all"), _contains_set),
    "equals": _equals,
    "starts-with": _starts_with,
    "regex": _regex,
    "is-json": _is_json,
}
