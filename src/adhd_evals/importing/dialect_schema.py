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

# A schema as JSON gave it: dialect.schema.json is ours, but each keyword's argument is still
# checked for the type `_fits` reads before it is used, and any other answers "not sure".
Schema = dict[str, object]


def _kind(value: object) -> str:
    from .model import describe

    return describe(_plain(value))


def _plain(value: object) -> object:
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


def _schema() -> Schema:
    schema: Schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
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


_JSON_TYPES: dict[str, Callable[[object], bool]] = {
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


def _fits(value: object, schema: object, root: Schema) -> bool:
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


def _keyword_fits(keyword: str, argument: object, value: object, schema: Schema, root: Schema) -> bool:
    check = _KEYWORDS.get(keyword)
    return check is not None and check(argument, value, schema, root)  # else jsonschema decides


def _type_fits(argument: object, value: object, schema: Schema, root: Schema) -> bool:
    names = [argument] if isinstance(argument, str) else argument
    if not isinstance(names, list):
        return False
    return any(isinstance(name, str) and name in _JSON_TYPES and _JSON_TYPES[name](value) for name in names)


def _ref_fits(argument: object, value: object, schema: Schema, root: Schema) -> bool:
    prefix = "#/$defs/"
    if not (isinstance(argument, str) and argument.startswith(prefix)):
        return False
    defs = root.get("$defs", {})
    target = defs.get(argument[len(prefix) :]) if isinstance(defs, dict) else None
    return target is not None and _fits(value, target, root)


def _additional_fits(argument: object, value: object, schema: Schema, root: Schema) -> bool:
    if not isinstance(value, dict):
        return True
    known = schema.get("properties", {})
    if "patternProperties" in schema or not isinstance(known, dict):
        return False  # not read here
    return all(_fits(item, argument, root) for key, item in value.items() if key not in known)


def _smallest(kind: type[Sized], argument: object, value: object) -> bool:
    """minLength, minItems, minProperties: a value of another kind passes."""
    if not isinstance(argument, int):
        return False  # not read here
    return not isinstance(value, kind) or len(value) >= argument


def _enum_fits(argument: object, value: object, schema: Schema, root: Schema) -> bool:
    return isinstance(argument, list) and any(_json_equal(value, option) for option in argument)


def _any_of_fits(argument: object, value: object, schema: Schema, root: Schema) -> bool:
    return isinstance(argument, list) and any(_fits(value, sub, root) for sub in argument)


def _one_of_fits(argument: object, value: object, schema: Schema, root: Schema) -> bool:
    return isinstance(argument, list) and sum(_fits(value, sub, root) for sub in argument) == 1


def _items_fit(argument: object, value: object, schema: Schema, root: Schema) -> bool:
    return not isinstance(value, list) or all(_fits(item, argument, root) for item in value)


def _required_fits(argument: object, value: object, schema: Schema, root: Schema) -> bool:
    if not isinstance(argument, list):
        return False  # not read here
    return not isinstance(value, dict) or all(key in value for key in argument)


def _properties_fit(argument: object, value: object, schema: Schema, root: Schema) -> bool:
    if not isinstance(argument, dict):
        return False  # not read here
    return not isinstance(value, dict) or all(
        _fits(value[key], sub, root) for key, sub in argument.items() if key in value
    )


_KeywordCheck = Callable[[object, object, Schema, Schema], bool]
# The keywords dialect.schema.json uses, each read as draft 2020-12 reads it:
# (the keyword's argument, the value, the schema holding the keyword, the root schema).
_KEYWORDS: dict[str, _KeywordCheck] = {
    "type": _type_fits,
    "$ref": _ref_fits,
    "enum": _enum_fits,
    "const": lambda argument, value, _schema, _root: _json_equal(value, argument),
    "anyOf": _any_of_fits,
    "oneOf": _one_of_fits,
    "minLength": lambda argument, value, _schema, _root: _smallest(str, argument, value),
    "minItems": lambda argument, value, _schema, _root: _smallest(list, argument, value),
    "minProperties": lambda argument, value, _schema, _root: _smallest(dict, argument, value),
    "items": _items_fit,
    "required": _required_fits,
    "properties": _properties_fit,
    "additionalProperties": _additional_fits,
}


def _json_equal(a: object, b: object) -> bool:
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
