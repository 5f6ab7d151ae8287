"""A promptfoo config's prompts: inline, from files, split as promptfoo splits them."""

from __future__ import annotations

import re
from typing import NamedTuple

from ...model import Refusal, RefusalCode, describe
from .._common import (
    Refuser,
    jsonable,
    slug,
)
from .config import Config, Prompt, Source, _reference, _refuse_code, _text
from .jsvalues import js_json, js_parse_json, js_trim, js_value
from .yamljs import load_yaml_text

_PROMPT_EXTENSIONS = (
    ".cjs",
    ".cts",
    ".j2",
    ".js",
    ".json",
    ".jsonl",
    ".md",
    ".mjs",
    ".mts",
    ".py",
    ".ts",
    ".txt",
    ".yml",
    ".yaml",
)


def _prompts(config: Config, given: object) -> list[Prompt]:
    refuse = config.source.refuse
    entries = _prompt_entries(refuse, given)
    prompts: list[Prompt] = []
    for index, (raw, label, at) in enumerate(entries):
        prompts += _prompt(config, raw, label, at, index)
    keys = [p.key for p in prompts]
    if len(prompts) > 1 and (len(set(keys)) != len(keys) or not all(keys)):
        prompts = [p._replace(key=f"p{i + 1}") for i, p in enumerate(prompts)]
    return prompts


def _prompt_entries(refuse: Refuser, given: object) -> list[tuple[str, str, tuple[str | int, ...]]]:
    if isinstance(given, str) and given:
        return [(given, "", ("prompts",))]
    if isinstance(given, list) and len(given):  # a JSList is true even when empty
        entries = []
        for index, item in enumerate(given):
            at: tuple[str | int, ...] = ("prompts", index)
            if isinstance(item, str):
                entries.append((item, "", at))
            elif isinstance(item, dict):
                raw = item.get("raw") or item.get("id")
                if not isinstance(raw, str) or not isinstance(item.get("raw", item.get("label")), str):
                    raise refuse(
                        case=f"prompt {index + 1}",
                        field_path=f"prompts[{index}]",
                        at=at,
                        expected="a string, or an object with raw (or id and label)",
                        actual=describe(item),
                        hint="promptfoo stops here: prompt.raw must be a string",
                    )
                if "function" in item:
                    raise refuse(
                        case=f"prompt {index + 1}",
                        field_path=f"prompts[{index}].function",
                        at=at,
                        code=RefusalCode.PROMPTFOO_CODE,
                        expected="a prompt written down",
                        actual="a prompt function",
                    )
                label = item.get("label") or (item.get("id") if item.get("raw") else "") or ""
                entries.append((raw, str(label), at))
            else:
                raise refuse(
                    case=f"prompt {index + 1}",
                    field_path=f"prompts[{index}]",
                    at=at,
                    expected="a string or an object",
                    actual=describe(item),
                )
        return entries
    if isinstance(given, dict) and len(given):
        return [(raw, str(label), ("prompts", raw)) for raw, label in given.items()]
    raise refuse(
        field_path="prompts",
        at=("prompts",),
        expected="a non-empty string, list or mapping",
        actual=describe(given),
    )


def maybe_file_path(text: str) -> bool:
    """promptfoo's maybeFilePath: whether it reads a prompt string as a path."""
    if any(s in text for s in ("\n", "portkey://", "langfuse://", "helicone://")):
        return False
    tokens = text.split(":")
    last = tokens[-1] if tokens else ""
    before = tokens[-2] if len(tokens) > 1 else ""
    return (
        text.startswith("file://")
        or any(last.endswith(e) or before.endswith(e) for e in _PROMPT_EXTENSIONS)
        or text[-3:-2] == "."
        or text[-4:-3] == "."
        or "*" in text
        or "/" in text
        or "\\" in text
    )


class _Place(NamedTuple):
    """Where a prompt was named in the config, for its refusals."""

    case: str  # "prompt 2"
    field: str  # "prompts[1]"
    at: tuple[str | int, ...]


def _prompt(config: Config, raw: str, label: str, at: tuple[str | int, ...], index: int) -> list[Prompt]:
    refuse = config.source.refuse
    where = _Place(f"prompt {index + 1}", f"prompts[{index}]", at)
    if raw.startswith(("portkey://", "langfuse://", "helicone://")):
        raise refuse(
            case=where.case,
            field_path=where.field,
            at=at,
            code=RefusalCode.PROMPTFOO_CODE,
            expected="a prompt written down",
            actual=f"{raw!r}, fetched from a prompt service",
        )
    if raw.startswith("exec:"):
        _refuse_code(refuse, raw, what="a prompt", field=where.field, at=at, case=where.case)
    if not maybe_file_path(raw):
        return [Prompt(raw, slug(label) if label else "", label or raw, where.field)]
    _refuse_code(refuse, raw, what="a prompt", field=where.field, at=at, case=where.case)
    prompts = []
    for source in _reference(
        config, refuse, raw, what="a prompt file", field=where.field, at=at, case=where.case
    ):
        for text in _prompt_file(source, refuse, where):
            prompts.append(
                Prompt(
                    text,
                    slug(label) if label else slug(source.path.stem),
                    label or source.display,
                    f"{where.field} ({source.display})",
                )
            )
    return prompts


def _prompt_file(source: Source, refuse: Refuser, where: _Place) -> list[str]:
    suffix = source.path.suffix.lower()
    if suffix in (".txt", ""):
        return _split_prompts(_text(source))
    if suffix in (".md", ".j2"):
        return [_text(source)]
    if suffix == ".json":
        text = _text(source)
        try:
            return [js_json(js_parse_json(text)) or text]
        except ValueError:
            return [text]
    if suffix == ".jsonl":
        return [line for line in re.split(r"\r?\n", _text(source)) if line]
    if suffix in (".yaml", ".yml"):
        text = _text(source)
        try:
            data, _ = load_yaml_text(text, source.display)
        except Refusal:
            return [text]
        return [js_json(js_value(jsonable(data))) or text]
    raise refuse(
        case=where.case,
        field_path=where.field,
        at=where.at,
        expected="a prompt file promptfoo reads as text",
        actual=f"{source.display} ({suffix} files are not prompts)",
        code=RefusalCode.PROMPTFOO_REFERENCE,
    )


def _split_prompts(text: str) -> list[str]:
    """processTxtFile: lines that are `---` (once trimmed) separate prompts; each prompt trimmed."""
    prompts: list[str] = []
    buffer: list[str] = []
    for line in re.split(r"\r?\n", text):
        if js_trim(line) == "---":
            prompts.append(js_trim("\n".join(buffer)))
            buffer = []
        else:
            buffer.append(line)
    prompts.append(js_trim("\n".join(buffer)))
    return [p for p in prompts if p]
