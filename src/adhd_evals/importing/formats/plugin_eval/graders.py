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
from typing import Any

from ...model import Check, CheckKind
from ...tracehelpers import _js_regex as js_regex
from .._common import compact
from ..promptfoo.jsregex import NotTranslatable, translate

TYPES = ("regex", "tool_used", "tool_order", "file_exists", "llm", "baseline")
ARMS = ("with-only", "both")
CARRIED = "plugin-eval grader: "  # begins the placeholder line that holds the grader itself
_COUNT = re.compile(r"count:(0|[1-9][0-9]*)")


class GraderProblem(ValueError):
    """A grader plugin eval would not load: the field and what was expected."""

    def __init__(self, field: str, expected: str, actual: str) -> None:
        super().__init__(f"{field}: Expected {expected}, actual {actual}")
        self.field, self.expected, self.actual = field, expected, actual


def needs(grader: dict[str, Any]) -> str | None:
    """What a grader needs that neither the final message nor a trace check gives; None when one
    of them is enough.

    The one place that decides which graders stay placeholders. file_exists stays one: plugin
    eval does not say how it reads `path` (from which folder, whether `*` crosses `/`), and
    file_created matches any trailing part of a created file's path, `*` crossing `/`."""
    kind = grader["type"]
    if kind in _TRACE_CHECKS:
        why = untraced(grader)
        return None if why is None else f"no trace check says the same: {why}"
    if kind == "file_exists":
        return "needs the files the run created"
    if kind == "baseline":
        return "needs a reference transcript and a judge"
    target = grader.get("target", "last_message")
    if kind == "regex" and target != "last_message":
        return {
            "trace": "needs the run's trace",
            "files": "needs the files the run wrote",
            "mock_calls": "needs the run's mocked MCP calls",
        }.get(target if isinstance(target, str) else "", "needs a file the run wrote")
    return None


def check_of(grader: dict[str, Any]) -> Check:
    """The criterion and check of one validated grader (see `validate`)."""
    kind = grader["type"]
    via = f"plugin-eval {kind}"
    if kind == "llm":
        return Check(rubric(grader), CheckKind.UNWRITTEN, (carried(rubric(grader), grader),), via=via)
    missing = needs(grader)
    if missing is not None:
        criterion = placeholder_criterion(grader, missing)
        return Check(criterion, CheckKind.UNWRITTEN, (carried(criterion, grader),), via=via)
    if kind in _TRACE_CHECKS:
        return trace_check(grader)._replace(via=via)
    return regex_check(grader)._replace(via=via)


def rubric(grader: dict[str, Any]) -> str:
    found: str = grader["criteria"]
    return found


def carried(text: str, grader: dict[str, Any]) -> str:
    """A placeholder's argument: what a person reads, then the grader for the export."""
    return f"{text}\n{CARRIED}{compact(grader)}"


def carried_grader(argument: str) -> dict[str, Any] | None:
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


def placeholder_criterion(grader: dict[str, Any], missing: str) -> str:
    return f"{_settings_criterion(grader)} ({missing})"


def _settings_criterion(grader: dict[str, Any]) -> str:
    """`NAME: TYPE {settings}` with its weight and arm: every key the grader has, as written."""
    settings = {k: v for k, v in grader.items() if k not in _SHOWN}
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


def untraced(grader: dict[str, Any]) -> str | None:
    """Why a tool_used or tool_order grader has no trace check meaning the same; None when it has."""
    kind, read = _TRACE_CHECKS[grader["type"]]
    extra = [key for key in grader if key not in ("name", "type", "weight", "arm", *read)]
    if extra:
        return f"{kind.value} has no {extra[0]}"
    if grader["type"] == "tool_used":
        return _pattern_problem(grader.get("input_match"), "input_match")
    for key in ("before", "after"):
        step = grader[key]
        if isinstance(step, dict):
            extra = [inner for inner in step if inner not in _STEP_KEYS]
            if extra:
                return f"tool_order has no {key}.{extra[0]}"
            why = _pattern_problem(step.get("input_match"), f"{key}.input_match")
            if why is not None:
                return why
    return None


def _pattern_problem(pattern: Any, key: str) -> str | None:
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


def trace_check(grader: dict[str, Any]) -> Check:
    """A tool_used or tool_order grader `untraced` passes, as its trace check: the arguments as
    written (tool_used's min and max only when given; both default as plugin eval's do)."""
    kind = _TRACE_CHECKS[grader["type"]][0]
    criterion = _settings_criterion(grader)
    if kind is CheckKind.TOOL_ORDER:
        return Check(criterion, kind, (_step(grader["before"]), _step(grader["after"])))
    options = tuple((key, grader[key]) for key in ("input_match", "min", "max") if key in grader)
    return Check(criterion, kind, (grader["tool"],), options)


def _step(step: str | dict[str, Any]) -> str | list[str]:
    """A tool_order step as tool_order reads it: a name, or [name, input_match]."""
    if isinstance(step, str):
        return step
    return [step["tool"], step["input_match"]] if "input_match" in step else step["tool"]


_TRACE_CRITERION = re.compile(
    r"(?P<name>[^\n]+?): (?P<type>tool_used|tool_order) (?P<settings>\{.*\})"
    r"(?: \(weight (?P<weight>[^)]+)\))?(?: \(arm: (?P<arm>with-only|both)\))?",
    re.DOTALL,
)


def trace_grader_of(criterion: str) -> dict[str, Any] | None:
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
    grader: dict[str, Any] = {"name": found["name"], "type": found["type"], **settings}  # {...}: a dict
    if weight is not None:
        grader["weight"] = weight
    if found["arm"] is not None:
        grader["arm"] = found["arm"]
    return grader


def _extras(grader: dict[str, Any]) -> str:
    weight = f" (weight {compact(grader['weight'])})" if "weight" in grader else ""
    arm = f" (arm: {grader['arm']})" if "arm" in grader else ""
    return weight + arm


def pattern_of(grader: dict[str, Any]) -> str:
    found: str = grader["pattern"]
    return found


def regex_criterion(grader: dict[str, Any]) -> str:
    match = grader.get("match", "contains")
    how = {"contains": "is found", "not_contains": "is not found"}.get(
        match, f"is found exactly {match.removeprefix('count:')} times"
    )
    shown = f"/{pattern_of(grader)}/{grader.get('flags', '')}"
    return f"{grader['name']}: {shown} {how} in the final message{_extras(grader)}"


def regex_check(grader: dict[str, Any]) -> Check:
    """A regex grader on the final message as its check (its pattern validated already)."""
    pattern = translate(pattern_of(grader), grader.get("flags", ""))
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


def regex_grader_of(criterion: str) -> dict[str, Any] | None:
    """The regex grader a criterion was made from, when it is one this module writes."""
    found = _REGEX_CRITERION.fullmatch(criterion)
    if found is None:
        return None
    grader: dict[str, Any] = {"name": found["name"], "type": "regex", "pattern": found["pattern"]}
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


def validate(grader: dict[str, Any]) -> None:
    """Raise GraderProblem for what plugin eval refuses in a grader (type, weight, arm, and each
    type's own keys); a pattern Python cannot run with JavaScript's meaning is refused too."""
    kind = grader.get("type")
    if kind not in TYPES:
        raise GraderProblem("type", f"one of {', '.join(TYPES)}", _shown(grader, "type"))
    weight = grader.get("weight", 1)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not weight > 0:
        raise GraderProblem("weight", "a number above 0", _shown(grader, "weight"))
    if grader.get("arm", "both") not in ARMS:
        raise GraderProblem("arm", "with-only or both", _shown(grader, "arm"))
    _TYPE_RULES[kind](grader)


def _shown(grader: dict[str, Any], key: str) -> str:
    return compact(grader[key]) if key in grader else "missing"


def _text(
    grader: dict[str, Any], key: str, expected: str = "a non-empty string", *, blank: bool = False
) -> None:
    """A text the grader needs; `blank`: spaces alone are text (a pattern of one space matches one)."""
    value = grader.get(key)
    if not isinstance(value, str) or not (value if blank else value.strip()):
        raise GraderProblem(key, expected, _shown(grader, key))


# A grader file's body, for the types whose text it holds: read as that key (graders_of).
BODY_KEYS = {"regex": "pattern", "llm": "criteria", "baseline": "criteria"}


def _regex(grader: dict[str, Any]) -> None:
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
        translate(pattern_of(grader), flags)
    except NotTranslatable as exc:
        raise GraderProblem(
            "pattern", "a JavaScript regex Python can run with the same meaning", f"{exc}"
        ) from None


def _target_ok(target: Any) -> bool:
    if isinstance(target, str):
        return target in ("last_message", "trace", "files", "mock_calls")
    return (
        isinstance(target, dict)
        and target.get("source") == "file"
        and isinstance(target.get("path"), str)
        and bool(target["path"].strip())
    )


def _tool_used(grader: dict[str, Any]) -> None:
    _text(grader, "tool", "the tool's name")
    if "input_match" in grader:
        _text(grader, "input_match", "a regex over the tool's JSON input")
    low, high = grader.get("min", 1), grader.get("max")
    for key, value in (("min", low), ("max", high)):
        if key in grader and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise GraderProblem(key, "a whole number of calls, 0 or more", _shown(grader, key))
    if isinstance(high, int) and high < low:
        raise GraderProblem("max", f"at least min ({low})", _shown(grader, "max"))


def _tool_order(grader: dict[str, Any]) -> None:
    for key in ("before", "after"):
        value = grader.get(key)
        named = isinstance(value, str) and value.strip()
        if not named and not (isinstance(value, dict) and isinstance(value.get("tool"), str)):
            raise GraderProblem(key, "a tool name or {tool, input_match}", _shown(grader, key))


def _file_exists(grader: dict[str, Any]) -> None:
    _text(grader, "path", "a glob of a file the run creates")
    if "exists" in grader and not isinstance(grader["exists"], bool):
        raise GraderProblem("exists", "true or false", _shown(grader, "exists"))


def _llm(grader: dict[str, Any]) -> None:
    _text(grader, "criteria", "the rubric (criteria, or a grader file's body)")


def _baseline(grader: dict[str, Any]) -> None:
    _text(grader, "baseline_file", "the reference transcript's path")


_TYPE_RULES = {
    "regex": _regex,
    "tool_used": _tool_used,
    "tool_order": _tool_order,
    "file_exists": _file_exists,
    "llm": _llm,
    "baseline": _baseline,
}
