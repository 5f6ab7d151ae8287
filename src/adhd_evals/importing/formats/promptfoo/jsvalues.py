"""JavaScript's view of the values a promptfoo config holds.

promptfoo is JavaScript: a var is printed with `String(value)`, dumped with
`JSON.stringify`, and tested for truth as JavaScript tests it. Python's own
str(), json.dumps and bool() differ (`1.0` prints as `1` in JavaScript, `[]`
is true, `None` prints as nothing), so every conversion goes through here.
"""

from __future__ import annotations

import decimal
import json
import math
import re
from collections.abc import Mapping
from typing import NoReturn, TypeVar, overload

# JavaScript's \s (and String.prototype.trim): Unicode spaces, line terminators and the BOM.
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_TRIM = re.compile(f"^[{JS_SPACE}]+|[{JS_SPACE}]+$")
_INDEX_KEY = re.compile(r"0|[1-9][0-9]{0,9}")


class JSList(list[object]):
    """An array: true even when empty."""

    def __bool__(self) -> bool:
        return True


class JSDict(dict[str, object]):
    """An object: true even when empty; keys in JavaScript's own order when serialized."""

    def __bool__(self) -> bool:
        return True


_K = TypeVar("_K")
_V = TypeVar("_V")


@overload
def js_value(value: dict[_K, _V]) -> JSDict: ...
@overload
def js_value(value: list[_V] | tuple[_V, ...]) -> JSList: ...
@overload
def js_value(value: object) -> object: ...
def js_value(value: object) -> object:
    """A value read from YAML/JSON, as JavaScript would hold it."""
    if isinstance(value, dict):
        return JSDict((str(k), js_value(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return JSList(js_value(v) for v in value)
    return value


def js_trim(text: str) -> str:
    return _TRIM.sub("", text)


def js_number(value: float | int) -> str:
    """Number.prototype.toString for a finite or infinite double."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) < 10**21:
            return str(value)
        value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    # repr is the shortest text that reads back as the same double, as JavaScript's is
    shortest = decimal.Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(str(d) for d in shortest.digits)
    k = len(digits)
    n = k + int(shortest.exponent)  # value = 0.digits x 10^n
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        text = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + text


def js_string(value: object) -> str:
    """String(value), with undefined and null printed as nothing (as Nunjucks prints them)."""
    if value is None or _is_undefined(value):
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if v is None or _is_undefined(v) else js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _is_undefined(value: object) -> bool:
    from jinja2 import Undefined

    return isinstance(value, Undefined)


def js_keys(obj: Mapping[str, object]) -> list[str]:
    """An object's keys in the order JavaScript lists them: array-index keys ascending, then the rest."""
    indexes = sorted((k for k in obj if _INDEX_KEY.fullmatch(k) and int(k) < 2**32 - 1), key=int)
    if not indexes:
        return list(obj)
    return indexes + [k for k in obj if k not in set(indexes)]


def js_json(value: object, indent: int = 0, _depth: int = 0) -> str | None:
    """JSON.stringify(value, null, indent); None where JavaScript returns undefined."""
    if value is None:
        return "null"
    if _is_undefined(value):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value) if math.isfinite(value) else "null"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return _js_array(value, indent, _depth)
    if isinstance(value, dict):
        return _js_object(value, indent, _depth)
    return json.dumps(str(value), ensure_ascii=False)


def _js_array(value: list[object] | tuple[object, ...], indent: int, depth: int) -> str:
    if not len(value):  # a JSList is true even when empty
        return "[]"
    inner, outer = _js_breaks(indent, depth)
    items = [js_json(v, indent, depth + 1) or "null" for v in value]
    return "[" + inner + ("," + inner).join(items) + outer + "]"


def _js_object(value: Mapping[str, object], indent: int, depth: int) -> str:
    colon = ": " if indent else ":"
    parts = []
    for key in js_keys(value):
        text = js_json(value[key], indent, depth + 1)
        if text is not None:  # JSON.stringify leaves out a key whose value is undefined
            parts.append(json.dumps(key, ensure_ascii=False) + colon + text)
    if not parts:
        return "{}"
    inner, outer = _js_breaks(indent, depth)
    return "{" + inner + ("," + inner).join(parts) + outer + "}"


def _js_breaks(indent: int, depth: int) -> tuple[str, str]:
    """What opens a container's items and what closes it, at `depth` (nothing unindented)."""
    if not indent:
        return "", ""
    return "\n" + " " * (indent * (depth + 1)), "\n" + " " * (indent * depth)


def js_truthy(value: object) -> bool:
    if isinstance(value, (list, dict)):
        return True
    if isinstance(value, float) and math.isnan(value):
        return False
    return bool(value)


def js_parse_json(text: str) -> object:
    """JSON.parse: strict JSON (no NaN or Infinity); raises ValueError otherwise."""
    return js_value(json.loads(text, parse_constant=_no_constant))


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")
