"""Which format a case file is: by its name, then by its shape (lint and import agree by
sharing this one detector).

Light on imports on purpose: lint (the pre-commit hook) tells every file's format with it, so
it must not import a reader; a format's reader is imported only when a file of it is read.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..files import read_limited, walk

_SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache"}
_YAML_CASE = re.compile(rb"^task\s*:", re.MULTILINE)
# a promptfoo config's top-level keys, bare or quoted (export --to promptfoo quotes its keys)
_PROMPTFOO = re.compile(rb"^([\"']?)(prompts|providers)\1\s*:", re.MULTILINE)
# a plugin eval case.yaml's top-level keys
_PLUGIN_EVAL = re.compile(rb"^(graders|execution|schema_version)\s*:", re.MULTILINE)


# What each format is, in words: named when a file refused under one --format looks like another.
DESCRIPTIONS = {
    "evals-json": "an evals.json",
    "evalflow": "an evalflow dataset",
    "yaml": "a YAML case file",
    "catalog": "a five-field catalog (JSONL)",
    "module": "a check module",
    "promptfoo": "a promptfoo config",
    "plugin-eval": "a claude plugin eval case",
    "trigger-list": "a trigger list",
}


class NotRecognised(Exception):
    """A path that does not exist, or a file whose format cannot be told."""


def _head(path: Path) -> bytes:
    """A file's bytes for telling its format; nothing when it must not be read (lint
    then reports it when it reads the file for real)."""
    try:
        return read_limited(path)
    except OSError:
        return b""


def _has_marker(path: Path) -> bool:
    from .checkgen import MARKER  # checkgen (and hashlib) only when a .py file is met

    return MARKER.encode() in _head(path)


def format_of(path: Path, *, explicit: bool) -> str | None:
    """The format of a file by name, then by shape; None to pass it over."""
    name = path.name.lower()
    if name.endswith(".jsonl"):
        return "catalog"
    if name.endswith(".py"):
        return "module" if explicit or _has_marker(path) else None
    if name in ("case.yaml", "prompt.md"):
        found = _plugin_eval_case(path, explicit=explicit)
        if found is not None or name == "prompt.md":
            return found
    if name.endswith((".yaml", ".yml")):
        if _PROMPTFOO.search(_head(path)):
            return "promptfoo"
        return "yaml" if explicit or _YAML_CASE.search(_head(path)) else None
    if name == "dataset.json":
        return "evalflow"
    if name == "evals.json":
        return "evals-json"
    if name.endswith(".json"):
        return _json_shape(path) if explicit else None
    return None


def _plugin_eval_case(path: Path, *, explicit: bool) -> str | None:
    """A plugin eval case is linted once, by its case.yaml (by its prompt.md when it has none):
    a case.yaml by its keys, a prompt.md beside a graders/ folder, or named on the command line."""
    if path.name.lower() == "case.yaml":
        return "plugin-eval" if _PLUGIN_EVAL.search(_head(path)) else None
    if explicit:
        return "plugin-eval"
    return (
        None
        if (path.parent / "case.yaml").is_file() or not (path.parent / "graders").is_dir()
        else "plugin-eval"
    )


def _json_shape(path: Path) -> str:
    try:
        data = json.loads(_head(path))
    except (ValueError, RecursionError):
        return "evals-json"  # the reader reports the syntax error with its position
    if isinstance(data, dict) and "test_cases" in data and "version" in data:
        return "evalflow"
    if isinstance(data, dict) and "prompts" in data and ("tests" in data or "providers" in data):
        return "promptfoo"
    if _trigger_shaped(data):
        return "trigger-list"
    return "evals-json"


def _trigger_shaped(data: object) -> bool:
    """skill-creator's [{query, should_trigger}], or {should_trigger: [...], should_not_trigger: [...]}."""
    if isinstance(data, list):
        return bool(data) and all(
            isinstance(x, dict) and "should_trigger" in x and "query" in x for x in data
        )
    lists = ("should_trigger", "should_not_trigger")
    return (
        isinstance(data, dict) and "evals" not in data and any(isinstance(data.get(k), list) for k in lists)
    )


def discover(paths: list[Path], forced: str | None) -> list[tuple[Path, str]]:
    found: list[tuple[Path, str]] = []
    for path in paths:
        if not path.exists():
            raise NotRecognised(f"{path}: no such file or directory")
        if path.is_dir():
            for child in walk(path, _SKIP_DIRS):
                kind = forced or format_of(child, explicit=False)
                if kind:
                    found.append((child, kind))
        else:
            kind = forced or format_of(path, explicit=True)
            if kind is None:
                raise NotRecognised(f"{path}: cannot tell its format; pass --format-of")
            found.append((path, kind))
    return found
