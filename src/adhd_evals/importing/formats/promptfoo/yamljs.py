"""YAML read as promptfoo's js-yaml reads it (YAML 1.2's core schema), with positions.

PyYAML resolves YAML 1.1: `yes`, `no`, `on` and `off` are booleans there,
`0777` is octal and `1:30` is ninety. js-yaml reads all of those as written
(strings, or the decimal 777), so this loader resolves plain scalars by the
core schema's rules instead. Dates stay the text that was written (js-yaml
would make a JavaScript Date; no config in the corpus relies on one).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import Node, ScalarNode

from ...model import RefusalCode
from ...sourcetext import decode_utf8, read_bytes
from .._common import Locator
from .._yaml_safe import _compose, _construct, _Loader, _refuse_conflict_markers, locate_node

_NULL = re.compile(r"~|null|Null|NULL|")
_BOOL = re.compile(r"true|True|TRUE|false|False|FALSE")
_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT = re.compile(
    r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)"
)


class CoreLoader(_Loader):
    """The yaml format's loader (duplicate keys refused), resolving plain scalars by YAML 1.2 core."""

    yaml_implicit_resolvers: dict[Any, Any] = {}  # noqa: RUF012  # PyYAML's class-level table

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is ScalarNode and implicit[0]:
            if _NULL.fullmatch(value):
                return "tag:yaml.org,2002:null"
            if _BOOL.fullmatch(value):
                return "tag:yaml.org,2002:bool"
            if _INT.fullmatch(value):
                return "tag:yaml.org,2002:int"
            if _FLOAT.fullmatch(value):
                return "tag:yaml.org,2002:float"
            return "tag:yaml.org,2002:str"
        resolved: str = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
        return resolved

    def construct_yaml_int(self, node: ScalarNode) -> int:
        text = str(self.construct_scalar(node))
        if text.startswith("0o"):
            return int(text[2:], 8)
        if text.startswith("0x"):
            return int(text[2:], 16)
        return int(text)

    def construct_yaml_bool(self, node: ScalarNode) -> bool:
        return str(self.construct_scalar(node)).lower() == "true"


CoreLoader.add_constructor("tag:yaml.org,2002:int", CoreLoader.construct_yaml_int)
CoreLoader.add_constructor("tag:yaml.org,2002:bool", CoreLoader.construct_yaml_bool)


def load_yaml(path: Path, display: str) -> tuple[object, Locator]:
    """A YAML file's value and a locator of paths in it (refusing what is not YAML, by position)."""
    text = decode_utf8(read_bytes(path, display), display, RefusalCode.NOT_YAML, "is not YAML")
    return load_yaml_text(text, display)


def load_yaml_text(text: str, display: str) -> tuple[object, Locator]:
    _refuse_conflict_markers(text, display)
    root = _compose(text, display, CoreLoader)
    data = _construct_core(text, root, display)
    return data, lambda at: locate_node(root, at)


def _construct_core(text: str, root: Node, display: str) -> Any:
    loader = CoreLoader("")
    try:
        return loader.construct_document(root)
    except yaml.YAMLError:
        return _construct(text, root, display)  # the yaml format's refusal, by position
    except (RecursionError, ValueError):
        return _construct(text, root, display)
    finally:
        loader.dispose()
