"""A plugin eval grader as one criterion and its check.

| grader | criterion | check |
| --- | --- | --- |
| regex on the final message (`target: last_message`, the default) | `NAME: /P/F is found in the final message` | regex / not_regex / regex_count, the pattern translated with JavaScript's meaning |
| llm | its rubric (`criteria`, or a grader file's body trimmed), verbatim | prose: a placeholder a person or an admitted judge decides |
| tool_used, tool_order | `NAME: TYPE {settings}` | tool_used / tool_order over the run's trace (tracehelpers.py) |
| file_exists, baseline, regex on trace/files/a file/mock_calls | `NAME: TYPE {settings} (needs ...)` | a placeholder saying what it needs |
| tool_used, tool_order with a key or pattern no trace check reads the same | `NAME: TYPE {settings} (no trace check says the same: ...)` | a placeholder saying why |

Every placeholder's argument carries the grader itself (`plugin-eval grader: {...}`), so
`export --to plugin-eval` writes it back as it was; a regex check's criterion says everything
its grader said, and so does a trace check's (its settings as written), so the export reads
the grader back from it (and checks it would import to the same check). `weight` and `arm` ride in the criterion (`(weight 2)`, `(arm: with-only)`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Literal, TypedDict, cast, get_args

from ...model import Check, CheckKind
from ...tracehelpers import _js_regex as js_regex
from .._common import compact
from ..promptfoo.jsregex import NotTranslatable, translate

GraderType = Literal["regex", "tool_used", "tool_order", "file_exists", "llm", "baseline"]
TYPES: tuple[GraderType, ...] = get_args(GraderType)
Arm = Literal["with-only", "both"]
ARMS: tuple[Arm, ...] = get_args(Arm)
CARRIED = "plugin-eval grader: "  # begins the placeholder line that holds the grader itself
_COUNT = re.compile(r"count:(0|[1-9][0-9]*)")


class _Common(TypedDict, total=False):
    """What every grader may say, as `validate` leaves it. `name` is the reader's to check
    (plugin_eval._grader); a grader the export reads back may lack one. A grader file's `body`
    rides as written. Keys a type does not read (an llm's `focus`, one plugin eval does not
    document) stay in the mapping untyped: they are read only through `.items()`, as written."""

    name: object
    weight: int | float
    arm: Arm
    body: object


class _Regex(TypedDict):
    type: Literal["regex"]
    pattern: str


class RegexGrader(_Regex, _Common, total=False):
    flags: str
    match: str  # contains, not_contains or count:N
    target: str | dict[str, object]  # a name, or {source: file, path: P}


class _ToolUsed(TypedDict):
    type: Literal["tool_used"]
    tool: str


class ToolUsedGrader(_ToolUsed, _Common, total=False):
    input_match: str
    min: int
    max: int


class _Step(TypedDict):
    tool: str


class Step(_Step, total=False):
    """A tool_order step written as a mapping; its input_match is checked by `untraced`, which
    keeps a grader whose pattern is no regex as a placeholder rather than refusing it."""

    input_match: object


class ToolOrderGrader(_Common):
    type: Literal["tool_order"]
    before: str | Step
    after: str | Step


class LlmGrader(_Common):
    type: Literal["llm"]
    criteria: str


class OtherGrader(_Common):
    """file_exists and baseline: their keys are checked, but only shown (always placeholders)."""

    type: Literal["file_exists", "baseline"]


Grader = RegexGrader | ToolUsedGrader | ToolOrderGrader | LlmGrader | OtherGrader
TraceGrader = ToolUsedGrader | ToolOrderGrader


class GraderProblem(ValueError):
    """A grader plugin eval would not load: the field and what was expected."""

    def __init__(self, field: str, expected: str, actual: str) -> None:
        super().__init__(f"{field}: Expected {expected}, actual {actual}")
        self.field, self.expected, self.actual = field, expected, actual


def needs(grader: RegexGrader | TraceGrader | OtherGrader) -> str | None:
    """What a grader needs that neither the final message nor a trace check gives; None when one
    of them is enough.

    The one place that decides which graders stay placeholders. file_exists stays one: plugin
    eval does not say how it reads `path` (from which folder, whether `*` crosses `/`), and
    file_created matches any trailing part of a created file's path, `*` crossing `/`."""
    if grader["type"] == "tool_used" or grader["type"] == "tool_order":
        why = untraced(grader)
        return None if why is None else f"no trace check says the same: {why}"
    if grader["type"] == "file_exists":
        return "needs the files the run created"
    if grader["type"] == "baseline":
        return "needs a reference transcript and a judge"
    return _regex_needs(grader.get("target", "last_message"))


def _regex_needs(target: str | dict[str, object]) -> str | None:
    if target == "last_message":
        return None
    return {
        "trace": "needs the run's trace",
        "files": "needs the files the run wrote",
        "mock_calls": "needs the run's mocked MCP calls",
    }.get(target if isinstance(target, str) else "", "needs a file the run wrote")


def check_of(grader: Grader) -> Check:
    """The criterion and check of one validated grader (see `validate`)."""
    via = f"plugin-eval {grader['type']}"
    if grader["type"] == "llm":
        return Check(grader["criteria"], CheckKind.UNWRITTEN, (carried(grader["criteria"], grader),), via=via)
    missing = needs(grader)
    if missing is not None:
        criterion = placeholder_criterion(grader, missing)
        return Check(criterion, CheckKind.UNWRITTEN, (carried(criterion, grader),), via=via)
    if grader["type"] == "tool_used" or grader["type"] == "tool_order":
        return trace_check(grader)._replace(via=via)
    assert grader["type"] == "regex"  # file_exists and baseline always need something (see needs)
    return regex_check(grader)._replace(via=via)


def carried(text: str, grader: Grader) -> str:
    """A placeholder's argument: what a person reads, then the grader for the export."""
    return f"{text}\n{CARRIED}{compact(grader)}"


def carried_grader(argument: str) -> dict[str, object] | None:
    """The grader a placeholder's argument carries, or None."""
    _, found, text = argument.rpartition("\n" + CARRIED)
    if not found:
        return None
    try:
        grader = json.loads(text)
    except ValueError:
        return None
    return grader if isinstance(grader, dict) else None


_SHOWN = ("name", "type", "weight", "arm", "body")


def placeholder_criterion(grader: Grader, missing: str) -> str:
    return f"{_settings_criterion(grader)} ({missing})"


def _settings_criterion(grader: Grader) -> str:
    """`NAME: TYPE {settings}` with its weight and arm: every key the grader has, as written."""
    settings: dict[str, object] = {k: v for k, v in grader.items() if k not in _SHOWN}
    if "body" in grader:
        settings["body"] = grader["body"]
    return f"{grader['name']}: {grader['type']} {compact(settings)}{_extras(grader)}"


# The graders a trace check (tracehelpers.py) says the same as, its check, and the keys it reads
# besides name, type, weight and arm: a grader with any other key stays a placeholder.
_TRACE_CHECKS = {
    "tool_used": (CheckKind.TOOL_USED, ("tool", "input_match", "min", "max")),
    "tool_order": (CheckKind.TOOL_ORDER, ("before", "after")),
}
_STEP_KEYS = ("tool", "input_match")  # a tool_order step written as a mapping


def untraced(grader: TraceGrader) -> str | None:
    """Why a tool_used or tool_order grader has no trace check meaning the same; None when it has."""
    kind, read = _TRACE_CHECKS[grader["type"]]
    extra = [key for key in grader if key not in ("name", "type", "weight", "arm", *read)]
    if extra:
        return f"{kind.value} has no {extra[0]}"
    if grader["type"] == "tool_used":
        return _pattern_problem(grader.get("input_match"), "input_match")
    for key, step in (("before", grader["before"]), ("after", grader["after"])):
        if isinstance(step, dict):
            extra = [inner for inner in step if inner not in _STEP_KEYS]
            if extra:
                return f"tool_order has no {key}.{extra[0]}"
            why = _pattern_problem(step.get("input_match"), f"{key}.input_match")
            if why is not None:
                return why
    return None


def _pattern_problem(pattern: object, key: str) -> str | None:
    """Why an input_match cannot be read with JavaScript's meaning (see tracehelpers._js_regex,
    which reads it at check time, and jsregex.translate, which refuses what JavaScript does)."""
    if pattern is None:
        return None
    if not isinstance(pattern, str) or not pattern:
        return f"its {key} {compact(pattern)} is not a regex"
    try:
        translate(pattern, "")
        js_regex(pattern)
    except (NotTranslatable, re.error) as exc:
        return f"its {key} /{pattern}/ reads otherwise in Python ({exc})"
    return None


def trace_check(grader: TraceGrader) -> Check:
    """A tool_used or tool_order grader `untraced` passes, as its trace check: the arguments as
    written (tool_used's min and max only when given; both default as plugin eval's do)."""
    criterion = _settings_criterion(grader)
    if grader["type"] == "tool_order":
        return Check(criterion, CheckKind.TOOL_ORDER, (_step(grader["before"]), _step(grader["after"])))
    written: Mapping[str, object] = grader  # the keys in this order, whatever order they were written in
    options = tuple((key, written[key]) for key in ("input_match", "min", "max") if key in written)
    return Check(criterion, CheckKind.TOOL_USED, (grader["tool"],), options)


def _step(step: str | Step) -> str | list[object]:
    """A tool_order step as tool_order reads it: a name, or [name, input_match]."""
    if isinstance(step, str):
        return step
    return [step["tool"], step["input_match"]] if "input_match" in step else step["tool"]


_TRACE_CRITERION = re.compile(
    r"(?P<name>[^\n]+?): (?P<type>tool_used|tool_order) (?P<settings>\{.*\})"
    r"(?: \(weight (?P<weight>[^)]+)\))?(?: \(arm: (?P<arm>with-only|both)\))?",
    re.DOTALL,
)


def trace_grader_of(criterion: str) -> dict[str, object] | None:
    """The tool_used or tool_order grader a trace check's criterion was made from (the export
    checks it imports back to the same criterion and call)."""
    found = _TRACE_CRITERION.fullmatch(criterion)
    if found is None:
        return None
    try:
        settings = json.loads(found["settings"])
        weight = None if found["weight"] is None else json.loads(found["weight"])
    except ValueError:
        return None
    grader: dict[str, object] = {"name": found["name"], "type": found["type"], **settings}  # {...}: a dict
    if weight is not None:
        grader["weight"] = weight
    if found["arm"] is not None:
        grader["arm"] = found["arm"]
    return grader


def _extras(grader: Grader) -> str:
    weight = f" (weight {compact(grader['weight'])})" if "weight" in grader else ""
    arm = f" (arm: {grader['arm']})" if "arm" in grader else ""
    return weight + arm


def regex_criterion(grader: RegexGrader) -> str:
    match = grader.get("match", "contains")
    how = {"contains": "is found", "not_contains": "is not found"}.get(
        match, f"is found exactly {match.removeprefix('count:')} times"
    )
    shown = f"/{grader['pattern']}/{grader.get('flags', '')}"
    return f"{grader['name']}: {shown} {how} in the final message{_extras(grader)}"


def regex_check(grader: RegexGrader) -> Check:
    """A regex grader on the final message as its check (its pattern validated already)."""
    pattern = translate(grader["pattern"], grader.get("flags", ""))
    criterion = regex_criterion(grader)
    match = grader.get("match", "contains")
    if match == "contains":
        return Check(criterion, CheckKind.REGEX, (pattern,), (("ignore_case", False),))
    if match == "not_contains":
        return Check(criterion, CheckKind.NOT_REGEX, (pattern,), (("ignore_case", False),))
    return Check(criterion, CheckKind.REGEX_COUNT, (pattern, int(match.removeprefix("count:"))))


_REGEX_CRITERION = re.compile(
    r"(?P<name>[^\n]+?): /(?P<pattern>.*)/(?P<flags>[a-z]*) is (?P<not>not )?found "
    r"(?:exactly (?P<count>[0-9]+) times )?in the final message"
    r"(?: \(weight (?P<weight>[^)]+)\))?(?: \(arm: (?P<arm>with-only|both)\))?",
    re.DOTALL,
)


def regex_grader_of(criterion: str) -> dict[str, object] | None:
    """The regex grader a criterion was made from, when it is one this module writes."""
    found = _REGEX_CRITERION.fullmatch(criterion)
    if found is None:
        return None
    grader: dict[str, object] = {"name": found["name"], "type": "regex", "pattern": found["pattern"]}
    if found["flags"]:
        grader["flags"] = found["flags"]
    grader["match"] = "not_contains" if found["not"] else "contains"
    if found["count"] is not None:
        grader["match"] = f"count:{found['count']}"
    if found["weight"] is not None:
        try:
            grader["weight"] = json.loads(found["weight"])
        except ValueError:
            return None
    if found["arm"] is not None:
        grader["arm"] = found["arm"]
    return grader


def validate(grader: dict[str, object]) -> Grader:
    """The grader, typed as what it was checked to be; GraderProblem for what plugin eval refuses
    in a grader (type, weight, arm, and each type's own keys); a pattern Python cannot run with
    JavaScript's meaning is refused too."""
    kind = grader.get("type")
    if not isinstance(kind, str) or kind not in TYPES:
        raise GraderProblem("type", f"one of {', '.join(TYPES)}", _shown(grader, "type"))
    weight = grader.get("weight", 1)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not weight > 0:
        raise GraderProblem("weight", "a number above 0", _shown(grader, "weight"))
    if grader.get("arm", "both") not in ARMS:
        raise GraderProblem("arm", "with-only or both", _shown(grader, "arm"))
    _TYPE_RULES[kind](grader)
    return cast(Grader, grader)  # checked just above: its type, and each key that type reads


def _shown(grader: dict[str, object], key: str) -> str:
    return compact(grader[key]) if key in grader else "missing"


def _text(
    grader: dict[str, object], key: str, expected: str = "a non-empty string", *, blank: bool = False
) -> None:
    """A text the grader needs; `blank`: spaces alone are text (a pattern of one space matches one)."""
    value = grader.get(key)
    if not isinstance(value, str) or not (value if blank else value.strip()):
        raise GraderProblem(key, expected, _shown(grader, key))


# A grader file's body, for the types whose text it holds: read as that key (graders_of).
BODY_KEYS = {"regex": "pattern", "llm": "criteria", "baseline": "criteria"}


def _regex(grader: dict[str, object]) -> None:
    _text(grader, "pattern", "the pattern (pattern, or a grader file's body)", blank=True)
    flags = grader.get("flags", "")
    if not isinstance(flags, str):
        raise GraderProblem("flags", "a string of flags such as i or m", _shown(grader, "flags"))
    match = grader.get("match", "contains")
    if not isinstance(match, str) or not (match in ("contains", "not_contains") or _COUNT.fullmatch(match)):
        raise GraderProblem("match", "contains, not_contains or count:N", _shown(grader, "match"))
    target = grader.get("target", "last_message")
    if not _target_ok(target):
        raise GraderProblem(
            "target",
            "last_message, trace, files, mock_calls or {source: file, path}",
            _shown(grader, "target"),
        )
    try:
        translate(str(grader["pattern"]), flags)  # a string: _text checked it
    except NotTranslatable as exc:
        raise GraderProblem(
            "pattern", "a JavaScript regex Python can run with the same meaning", f"{exc}"
        ) from None


def _target_ok(target: object) -> bool:
    if isinstance(target, str):
        return target in ("last_message", "trace", "files", "mock_calls")
    return (
        isinstance(target, dict)
        and target.get("source") == "file"
        and isinstance(target.get("path"), str)
        and bool(target["path"].strip())
    )


def _tool_used(grader: dict[str, object]) -> None:
    _text(grader, "tool", "the tool's name")
    if "input_match" in grader:
        _text(grader, "input_match", "a regex over the tool's JSON input")
    for key in ("min", "max"):
        value = grader.get(key)
        if key in grader and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise GraderProblem(key, "a whole number of calls, 0 or more", _shown(grader, key))
    low, high = grader.get("min", 1), grader.get("max")
    if isinstance(high, int) and isinstance(low, int) and high < low:
        raise GraderProblem("max", f"at least min ({low})", _shown(grader, "max"))


def _tool_order(grader: dict[str, object]) -> None:
    for key in ("before", "after"):
        value = grader.get(key)
        named = isinstance(value, str) and value.strip()
        if not named and not (isinstance(value, dict) and isinstance(value.get("tool"), str)):
            raise GraderProblem(key, "a tool name or {tool, input_match}", _shown(grader, key))


def _file_exists(grader: dict[str, object]) -> None:
    _text(grader, "path", "a glob of a file the run creates")
    if "exists" in grader and not isinstance(grader["exists"], bool):
        raise GraderProblem("exists", "true or false", _shown(grader, "exists"))


def _llm(grader: dict[str, object]) -> None:
    _text(grader, "criteria", "the rubric (criteria, or a grader file's body)")


def _baseline(grader: dict[str, object]) -> None:
    _text(grader, "baseline_file", "the reference transcript's path")


_TYPE_RULES: dict[str, Callable[[dict[str, object]], None]] = {
    "regex": _regex,
    "tool_used": _tool_used,
    "tool_order": _tool_order,
    "file_exists": _file_exists,
    "llm": _llm,
    "baseline": _baseline,
}
