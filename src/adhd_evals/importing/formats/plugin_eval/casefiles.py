"""A plugin eval case folder's two files, `prompt.md` (front matter and body) and
`case.yaml`: loaded, and refused where plugin eval would not load them."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from ...model import RefusalCode, describe
from ...sourcetext import decode_utf8, read_bytes
from .._common import Locator, Refuser, jsonable

NOT_CASE = "is not a plugin eval case"


class Source(NamedTuple):
    """One file of a case: its data (front matter or case.yaml), body, and refuser."""

    data: dict[object, object]  # as YAML read it: a key may be a number
    body: str | None  # a markdown file's body; None for case.yaml
    refuse: Refuser


def _markdown(path: Path, display: str, label: str) -> Source | None:
    """A markdown file's front matter and body (None when there is no such file)."""
    if not path.is_file():
        return None
    text = decode_utf8(read_bytes(path, display), display, RefusalCode.NOT_YAML, "is not YAML")
    lines = text.splitlines(keepends=True)
    refuse = Refuser(RefusalCode.NOT_PLUGIN_EVAL, display, NOT_CASE)
    if not lines or lines[0].rstrip("\r\n") != "---":
        return Source({}, text, refuse)
    end = next((i for i, line in enumerate(lines[1:], start=1) if line.rstrip("\r\n") == "---"), None)
    if end is None:
        raise refuse(case=label, field_path="(front matter)", expected="a closing --- line", actual="none")
    # the first line left blank: YAML's positions are then the file's
    data, locator = _load("\n" + "".join(lines[1:end]), display)
    refuse = Refuser(RefusalCode.NOT_PLUGIN_EVAL, display, NOT_CASE, locator)
    return Source(_mapping(data, refuse, label), "".join(lines[end + 1 :]), refuse)


def _yaml(path: Path, display: str, label: str) -> Source | None:
    if not path.is_file():
        return None
    text = decode_utf8(read_bytes(path, display), display, RefusalCode.NOT_YAML, "is not YAML")
    data, locator = _load(text, display)
    refuse = Refuser(RefusalCode.NOT_PLUGIN_EVAL, display, NOT_CASE, locator)
    return Source(_mapping(data, refuse, label), None, refuse)


def _load(text: str, display: str) -> tuple[object, Locator | None]:
    from ..promptfoo.yamljs import load_yaml_text  # YAML 1.2's core schema, as a Node tool reads it

    if not text.strip():
        return {}, None
    return load_yaml_text(text, display)


def _mapping(data: object, refuse: Refuser, label: str) -> dict[object, object]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise refuse(
            case=label, field_path="(top level)", expected="a mapping", actual=describe(jsonable(data))
        )
    return data


def _refuse_unknown(source: Source, known: tuple[str, ...], label: str) -> None:
    for key in source.data:
        if key not in known:
            raise source.refuse(
                case=label,
                field_path=str(key),
                at=(str(key),),
                expected=f"a front-matter key plugin eval knows ({', '.join(known)})",
                actual=f"the key {key!r}",
            )


def _refuse_not_mappings(case_yaml: Source, label: str) -> None:
    for key in ("execution", "context"):
        value = case_yaml.data.get(key, {})
        if not isinstance(value, dict):
            raise case_yaml.refuse(
                case=label, field_path=key, at=(key,), expected="a mapping", actual=describe(jsonable(value))
            )


Origin = tuple[Source, tuple[str | int, ...]]  # where a setting was written
