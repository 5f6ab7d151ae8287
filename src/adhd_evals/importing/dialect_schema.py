"""A dialect file checked against dialect.schema.json: the common shapes by a small
validator of their own, jsonschema only to word a refusal."""

from __future__ import annotations

import json
from collections.abc import Callable, Sized
from pathlib import Path
from typing import Any

from .dialect_paths import _at, _has, path_text, position
from .model import Refusal, RefusalCode

SCHEMA_PATH = Path(__file__).with_name("dialect.schema.json")


INVALID = "is not a valid dialect file"


def _kind(value: Any) -> str:
    from .model import describe

    return describe(_plain(value))


def _plain(value: Any) -> Any:
    """ruamel's commented containers as plain JSON values."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return str(value)


def _refusal(shown: str, **fields: Any) -> Refusal:
    return Refusal(RefusalCode.DIALECT_INVALID, shown, INVALID, **fields)


def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


def _validate(tree: Any, shown: str) -> None:
    schema = _schema()
    plain = _plain(tree)
    if _fits(plain, schema, schema):  # a valid file, told without importing jsonschema (~0.1 s)
        return
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    # The first problem in the file, each narrowed to its most relevant cause.
    found = [jsonschema.exceptions.best_match([e]) for e in validator.iter_errors(plain)]
    if found:
        error = min(
            found, key=lambda e: (*(n or 0 for n in position(tree, tuple(e.absolute_path))), e.message)
        )
        path = tuple(error.absolute_path)
        line, column = position(tree, path)
        raise _refusal(
            shown,
            field_path=path_text(path),
            expected=_expected(error),
            actual=_kind(_at(tree, path)) if _has(tree, path) else "missing",
            line=line,
            column=column,
        )


# What `_fits` reads of a schema: the keywords dialect.schema.json uses. Any other keyword
# makes it answer "not sure" (False), and jsonschema decides, as it always did.
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "title", "description", "$comment", "default", "examples", "$defs"}
)


_JSON_TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
}


def _fits(value: Any, schema: Any, root: dict[str, Any]) -> bool:
    """True only when `value` is certainly valid against `schema` (draft 2020-12, the keywords
    dialect.schema.json uses); False when it is not, or when a keyword is not one read here.
    Only a True skips jsonschema, so a False never changes what is accepted or said."""
    if schema is True:
        return True
    if not isinstance(schema, dict):
        return False
    for keyword, argument in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        if not _keyword_fits(keyword, argument, value, schema, root):
            return False
    return True


def _keyword_fits(
    keyword: str, argument: Any, value: Any, schema: dict[str, Any], root: dict[str, Any]
) -> bool:
    check = _KEYWORDS.get(keyword)
    return check is not None and check(argument, value, schema, root)  # else jsonschema decides


def _type_fits(argument: Any, value: Any, schema: dict[str, Any], root: dict[str, Any]) -> bool:
    names = [argument] if isinstance(argument, str) else argument
    return any(name in _JSON_TYPES and _JSON_TYPES[name](value) for name in names)


def _ref_fits(argument: Any, value: Any, schema: dict[str, Any], root: dict[str, Any]) -> bool:
    prefix = "#/$defs/"
    if not (isinstance(argument, str) and argument.startswith(prefix)):
        return False
    target = root.get("$defs", {}).get(argument[len(prefix) :])
    return target is not None and _fits(value, target, root)


def _additional_fits(argument: Any, value: Any, schema: dict[str, Any], root: dict[str, Any]) -> bool:
    if not isinstance(value, dict):
        return True
    if "patternProperties" in schema:
        return False  # not read here
    known = schema.get("properties", {})
    return all(_fits(item, argument, root) for key, item in value.items() if key not in known)


def _smallest(kind: type[Sized], argument: Any, value: Any) -> bool:
    """minLength, minItems, minProperties: a value of another kind passes."""
    return not isinstance(value, kind) or bool(len(value) >= argument)


_KeywordCheck = Callable[[Any, Any, dict[str, Any], dict[str, Any]], bool]
# The keywords dialect.schema.json uses, each read as draft 2020-12 reads it:
# (the keyword's argument, the value, the schema holding the keyword, the root schema).
_KEYWORDS: dict[str, _KeywordCheck] = {
    "type": _type_fits,
    "$ref": _ref_fits,
    "enum": lambda argument, value, _schema, _root: any(_json_equal(value, option) for option in argument),
    "const": lambda argument, value, _schema, _root: _json_equal(value, argument),
    "anyOf": lambda argument, value, _schema, root: any(_fits(value, sub, root) for sub in argument),
    "oneOf": lambda argument, value, _schema, root: sum(_fits(value, sub, root) for sub in argument) == 1,
    "minLength": lambda argument, value, _schema, _root: _smallest(str, argument, value),
    "minItems": lambda argument, value, _schema, _root: _smallest(list, argument, value),
    "minProperties": lambda argument, value, _schema, _root: _smallest(dict, argument, value),
    "items": lambda argument, value, _schema, root: (
        not isinstance(value, list) or all(_fits(item, argument, root) for item in value)
    ),
    "required": lambda argument, value, _schema, _root: (
        not isinstance(value, dict) or all(key in value for key in argument)
    ),
    "properties": lambda argument, value, _schema, root: (
        not isinstance(value, dict)
        or all(_fits(value[key], sub, root) for key, sub in argument.items() if key in value)
    ),
    "additionalProperties": _additional_fits,
}


def _json_equal(a: Any, b: Any) -> bool:
    """JSON equality as JSON Schema has it: true is not 1, 1 is 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _expected(error: Any) -> str:
    message = str(error.message)
    if error.validator == "enum":
        return "one of " + ", ".join(map(str, error.validator_value))
    if error.validator == "const":
        return json.dumps(error.validator_value)
    if error.validator == "anyOf" and all(set(sub) == {"required"} for sub in error.validator_value):
        keys = [" and ".join(sub["required"]) for sub in error.validator_value]
        return "a " + " or a ".join(keys)  # a rule matches by `when` or `has`
    if error.validator == "additionalProperties":
        return f"only the keys this file's shape has ({message})"
    return message  # "required" names the missing key
