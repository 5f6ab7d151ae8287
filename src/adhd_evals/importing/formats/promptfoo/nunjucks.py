"""Nunjucks' semantics in Jinja2's sandbox: undefined values, the filters and tests promptfoo's
Nunjucks has (to its definitions), and the helpers rewritten constructs call (JavaScript's
equality, comparison, concatenation), with the render's budgets."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NoReturn

from jinja2 import Undefined

from .jsvalues import JSDict, js_json, js_parse_json, js_string, js_trim, js_truthy

MAX_LOOP_ITERATIONS = 100_000  # all loops of one render together


MAX_OUTPUT = 10_000_000  # characters of one render


class TemplateProblem(Exception):
    """A template (or a value it meets) that cannot be rendered as Nunjucks would render it."""

    def __init__(self, construct: str, line: int | None = None) -> None:
        super().__init__(construct)
        self.construct = construct
        self.line = line


class _Undefined(Undefined):
    """Nunjucks' undefined: prints as nothing, and looking into it gives undefined again."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name[:2] == "__":
            raise AttributeError(name)
        return self

    def __getitem__(self, key: Any) -> Any:
        return self

    def __str__(self) -> str:
        return ""


class EnvVars(JSDict):
    """`env`: only the config's own `env:` entries; any other name depends on the machine."""

    missing: Callable[[str], NoReturn] | None = None


def _fail(construct: str) -> NoReturn:
    raise TemplateProblem(construct)


def _text_filter(name: str, apply: Callable[[str], str], *, normalizes: bool = True) -> Callable[[Any], str]:
    def run(value: Any) -> str:
        if value is None or value is False or isinstance(value, Undefined):
            if not normalizes:  # Nunjucks' trim calls str.replace on them: a TypeError stops the render
                _fail(f"the {name} filter on {_nothing(value)} (Nunjucks stops with a TypeError there)")
            return ""  # upper and lower normalize these to ""
        if not isinstance(value, str):
            _fail(f"the {name} filter on a {type(value).__name__} (JavaScript has no such method there)")
        return apply(value)

    return run


def _nothing(value: Any) -> str:
    return "undefined" if isinstance(value, Undefined) else "null" if value is None else "false"


def _dump(value: Any, spaces: Any = None) -> str:
    if spaces is not None and (not isinstance(spaces, int) or isinstance(spaces, bool)):
        _fail("the dump filter with an indent that is not a whole number")
    # JSON.stringify: an indent below 1 is none, above 10 is 10
    return js_json(value, max(0, min(spaces or 0, 10))) or ""


def _join(value: Any, separator: Any = "", attribute: Any = None) -> str:
    if attribute is not None:
        _fail("the join filter with an attribute")
    if isinstance(value, Undefined) or value is None:
        _fail(f"the join filter on {_nothing(value)} (Nunjucks stops with a TypeError there)")
    if not isinstance(value, list):
        _fail("the join filter on something that is not an array")
    # `del = del || ''`: a false separator (0, false, null) joins with nothing
    return (js_string(separator) if js_truthy(separator) else "").join(
        "" if v is None or isinstance(v, Undefined) else js_string(v) for v in value
    )


def _default(value: Any, fallback: Any = "", boolean: Any = False) -> Any:
    if js_truthy(boolean):
        return value if js_truthy(value) and not isinstance(value, Undefined) else fallback
    return fallback if isinstance(value, Undefined) else value


def _utf16_length(text: str) -> int:
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _length(value: Any) -> int:
    if isinstance(value, str):
        return _utf16_length(value)
    if isinstance(value, dict):
        return len(value)
    if isinstance(value, list):
        return len(value)
    if value is None or isinstance(value, Undefined):
        return 0
    _fail(f"the length filter on a {type(value).__name__}")


def _end(first: bool) -> Callable[[Any], Any]:
    def run(value: Any) -> Any:
        if isinstance(value, list):
            return (value[0] if first else value[-1]) if len(value) else _Undefined()  # JSList is always true
        if isinstance(value, str):
            return (value[0] if first else value[-1]) if value and value.isascii() else _fail_astral(value)
        _fail(f"the {'first' if first else 'last'} filter on a {type(value).__name__}")

    return run


def _fail_astral(value: str) -> Any:
    if not value:
        return _Undefined()
    _fail("first/last of a string with characters outside ASCII (JavaScript counts UTF-16 units)")


def _load(value: Any) -> Any:
    if not isinstance(value, str):
        _fail("the load filter on something that is not text")
    try:
        return js_parse_json(value)
    except ValueError:
        _fail("the load filter on text that is not JSON (promptfoo stops there)")


FILTERS: dict[str, Callable[..., Any]] = {
    "upper": _text_filter("upper", str.upper),
    "lower": _text_filter("lower", str.lower),
    "trim": _text_filter("trim", js_trim, normalizes=False),
    "dump": _dump,
    "join": _join,
    "default": _default,
    "d": _default,
    "length": _length,
    "first": _end(True),
    "last": _end(False),
    "safe": lambda value: value,  # autoescape is off in promptfoo: safe changes nothing
    "load": _load,
}


TESTS = ("defined", "undefined", "none")


def _js_primitive(value: Any) -> Any:
    if isinstance(value, Undefined):
        return _UNDEFINED
    if isinstance(value, (list, dict)):
        _fail("comparing an array or object (JavaScript compares identities)")
    return value


_UNDEFINED = object()


def _loose_equal(a: Any, b: Any) -> bool:
    """JavaScript's == between primitives."""
    a, b = _js_primitive(a), _js_primitive(b)
    nullish = (None, _UNDEFINED)
    if a in nullish or b in nullish:
        return a in nullish and b in nullish
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return _to_number(a) == _to_number(b)


def _to_number(value: Any) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    text = js_trim(value)
    if text == "":
        return 0.0
    try:
        if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?Infinity", text):
            return float(text.replace("Infinity", "inf"))
        if re.fullmatch(r"0[xX][0-9a-fA-F]+", text):
            return float(int(text, 16))
    except ValueError:
        pass
    return float("nan")


def _compare(left: Any, op: str, right: Any) -> bool:
    if op == "eq":
        return _loose_equal(left, right)
    if op == "ne":
        return not _loose_equal(left, right)
    if op in ("in", "notin"):
        found = _contains(right, left)
        return found if op == "in" else not found
    a, b = _js_primitive(left), _js_primitive(right)
    if isinstance(a, str) and isinstance(b, str):
        if not (a.isascii() and b.isascii()):
            _fail("ordering text outside ASCII (JavaScript compares UTF-16 units)")
        pair: tuple[Any, Any] = (a, b)
    else:
        if a is _UNDEFINED or b is _UNDEFINED:
            return False
        pair = (_to_number(a if a is not None else 0), _to_number(b if b is not None else 0))
    outcome: bool = {
        "lt": pair[0] < pair[1],
        "gt": pair[0] > pair[1],
        "lteq": pair[0] <= pair[1],
        "gteq": pair[0] >= pair[1],
    }[op]
    return outcome


def _contains(container: Any, item: Any) -> bool:
    """Nunjucks' `in`: an array's element, a substring, or an object's key."""
    if isinstance(container, list):
        return any(not isinstance(v, (list, dict)) and _strict_equal(v, item) for v in container)
    if isinstance(container, str) and isinstance(item, str):
        return item in container
    if isinstance(container, dict) and isinstance(item, str):
        return item in container
    _fail("`in` on something that is not an array, text or object")


def _strict_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _concat(parts: list[Any]) -> str:
    """Nunjucks' `a ~ b` is JavaScript's `a + "" + b`: null and undefined print by name there."""
    return "".join(
        "null" if p is None else "undefined" if isinstance(p, Undefined) else js_string(p) for p in parts
    )


class _Budget:
    def __init__(self) -> None:
        self.left = MAX_LOOP_ITERATIONS


def _iterable(value: Any, budget: _Budget) -> Any:
    if value is None or isinstance(value, Undefined):
        return []
    if not isinstance(value, list):
        what = "an object" if isinstance(value, dict) else f"a {type(value).__name__}"
        _fail(f"a for loop over {what} (Nunjucks iterates arrays the same way, nothing else)")
    budget.left -= len(value)
    if budget.left < 0:
        _fail(f"loops of more than {MAX_LOOP_ITERATIONS} iterations in one template")
    return value
