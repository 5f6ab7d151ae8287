"""Lint case files of every format, reporting every problem with its position.

Light on imports on purpose: this runs from a pre-commit hook on every
commit. A catalog-only run imports json and this package's rules; a module's
parser (ast) loads only when a check module is read; the YAML and JSON source
readers only when such a file is linted; libcst, ruamel.yaml and jsonschema only
to read a --dialect file; typer never loads here. tests/lint/test_startup.py holds
each path to that: an import below is inside a function only to keep a module the
test names off a path that does not need it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..files import read_limited, walk
from ..problem import ERROR, WARNING, Problem
from ..schema import LINT_FORMATS
from .catalog import lint_catalog
from .engine import check_folder, folder_of, module_beside
from .lookalike import why_not_ours

if TYPE_CHECKING:
    from ..importing.dialect import Dialect
    from ..importing.model import Refusal

FORMATS = LINT_FORMATS  # defined once, in the core
_SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache"}
_YAML_CASE = re.compile(rb"^task\s*:", re.MULTILINE)
_PROMPTFOO = re.compile(rb"^(prompts|providers)\s*:", re.MULTILINE)  # a promptfoo config's top-level keys
# a plugin eval case.yaml's top-level keys
_PLUGIN_EVAL = re.compile(rb"^(graders|execution|schema_version)\s*:", re.MULTILINE)


class LintReport:
    """What a lint run found, over every file it read."""

    def __init__(
        self,
        files: int = 0,
        cases: int = 0,
        problems: list[Problem] | None = None,
        skipped: list[tuple[str, str, str]] | None = None,
    ) -> None:
        self.files = files
        self.cases = cases
        self.problems = problems if problems is not None else []
        # (path, format, why): files matched by name that are another tool's (see lookalike.py)
        self.skipped = skipped if skipped is not None else []

    @property
    def errors(self) -> int:
        return sum(p.severity == ERROR for p in self.problems)

    @property
    def warnings(self) -> int:
        return sum(p.severity == WARNING for p in self.problems)

    def only(self, select: list[str], ignore: list[str]) -> LintReport:
        """The report keeping problems whose code starts with a selected prefix (all
        when none is given) and with no ignored one (`E1`, `W`, `W202`, `Case`)."""
        kept = [
            p
            for p in self.problems
            if (not select or p.code.startswith(tuple(select))) and not p.code.startswith(tuple(ignore))
        ]
        return LintReport(self.files, self.cases, kept, self.skipped)


class LintUsageError(Exception):
    """A path that does not exist, or a file whose format cannot be told."""


def _head(path: Path) -> bytes:
    """A file's bytes for telling its format; nothing when it must not be read (lint
    then reports it when it reads the file for real)."""
    try:
        return read_limited(path)
    except OSError:
        return b""


def _has_marker(path: Path) -> bool:
    from ..importing.checkgen import MARKER  # checkgen (and hashlib) only when a .py file is met

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
            raise LintUsageError(f"{path}: no such file or directory")
        if path.is_dir():
            for child in walk(path, _SKIP_DIRS):
                kind = forced or format_of(child, explicit=False)
                if kind:
                    found.append((child, kind))
        else:
            kind = forced or format_of(path, explicit=True)
            if kind is None:
                raise LintUsageError(f"{path}: cannot tell its format; pass --format-of")
            found.append((path, kind))
    return found


def lint_paths(paths: list[Path], *, forced: str | None = None, dialect: Dialect | None = None) -> LintReport:
    """Lint every case file under `paths`; a dialect refines the files of its format."""
    report = LintReport()
    yaml_ids: list[tuple[Path, str]] = []
    for path, kind in discover(paths, forced):
        declared = dialect if dialect and dialect.format == kind else None
        if forced is None and kind != "evals-json":
            why = why_not_ours(path, kind, dialect_keys(declared) if declared is not None else None)
            if why is not None:
                report.skipped.append((str(path), kind, why))
                continue
        cases, problems, ids = lint_file(path, kind, declared)
        if kind == "promptfoo" and forced is None:
            problems = [_unreadable_config(p) for p in problems]
        report.files += 1
        report.cases += cases
        report.problems += [p if p.path else p.at(str(path)) for p in problems]
        yaml_ids += [(path, case_id) for case_id in ids] if kind == "yaml" else []
    report.problems += _yaml_collisions(yaml_ids)
    return report


def dialect_keys(dialect: Dialect) -> tuple[str, ...]:
    """The top-level keys a file of a yaml dialect's shape has: its case list's, else its
    prompt's first step (`inputs` for `inputs.prompt`); none to look for when the file itself
    is the list."""
    from ..importing.dialect import WHOLE_FILE  # loaded already: the dialect was read with it

    shape = dialect.cases
    if WHOLE_FILE in shape.at:
        return ()
    roots = shape.at or tuple(key.split(".")[0] for key in shape.prompt or ("task",))
    return tuple(dict.fromkeys(roots))


def _unreadable_config(problem: Problem) -> Problem:
    """A promptfoo config found by its name is promptfoo's file first: what adhd-evals cannot
    import (a Python prompt, a redteam config, one test it cannot render) is a warning, since
    promptfoo may run it all the same (`--strict` fails on it; `--format-of promptfoo` says
    the file is to be imported, and keeps it an error)."""
    if problem.severity == WARNING:
        return problem
    message = f"adhd-evals cannot import this config (promptfoo may still run it): {problem.message}"
    return problem._replace(message=message, severity=WARNING)


def _yaml_collisions(read: list[tuple[Path, str]]) -> list[Problem]:
    """Case files of one folder import together: two names may not slug to one id."""
    folders: dict[Path, list[tuple[Path, str]]] = {}
    for path, case_id in read:
        folders.setdefault(path.parent, []).append((path, case_id))
    groups = [group for group in folders.values() if len(group) > 1]
    if not groups:
        return []
    from ..importing.formats.yaml_cases import colliding_names

    return [
        Problem(r.line or 1, r.column or 1, r.code.value, r.body, path=r.file)
        for group in groups
        for r in colliding_names(group)
    ]


def lint_file(path: Path, kind: str, dialect: Dialect | None = None) -> tuple[int, list[Problem], list[str]]:
    """(cases, problems, the ids of a source's cases read whole) for one file."""
    if kind == "catalog":
        return (*_lint_catalog(path), [])
    if kind == "module":
        from .module import lint_module

        return 0, lint_module(path), []
    return _lint_source(path, kind, dialect)


def _lint_catalog(path: Path) -> tuple[int, list[Problem]]:
    """The row and catalog rules (catalog.py streams the file), then the folder rules."""
    module = module_beside(path)  # then every id and its line are needed: kept exactly
    cases, problems, seen = lint_catalog(path, keep_ids=module is not None)
    ids = (seen.exact or {}) if module is not None else {}
    problems += check_folder(folder_of(path, ids, module))
    return cases, sorted(problems, key=lambda p: (p.line, p.column))


def _lint_source(path: Path, kind: str, dialect: Dialect | None) -> tuple[int, list[Problem], list[str]]:
    from ..importing.formats import PROBLEMS
    from ..importing.formats._common import ReadOptions

    options = ReadOptions(risk="medium", dialect=dialect)
    cases, refusals, ids = PROBLEMS[kind](path, display=path.name, options=options)
    problems = [
        Problem(r.line or 1, r.column or 1, r.code.value, _with_hint(r))
        if r.file == path.name
        else Problem(r.line or 1, r.column or 1, r.code.value, _with_hint(r), path=str(path.parent / r.file))
        if kind == "plugin-eval"  # a case's other files: each problem at its place in its own file
        # a file the config names: its position is in the message
        else Problem(1, 1, r.code.value, f"{r.message}" + (f" (hint: {r.hint})" if r.hint else ""))
        for r in refusals
    ]
    if kind == "promptfoo":  # what promptfoo reads, but not as its author meant
        from ..importing.formats.promptfoo import lint_warnings

        problems += [
            Problem(line, col, code, message, WARNING) for line, col, code, message in lint_warnings(path)
        ]
    if kind == "plugin-eval":  # what plugin eval loads, but likely not as meant
        from ..importing.formats import plugin_eval_warnings

        problems += plugin_eval_warnings(path)
    return cases, problems, ids


def _with_hint(refusal: Refusal) -> str:
    """The import's words, hint included: the hook shows what the import would say."""
    return refusal.body + (f" (hint: {refusal.hint})" if refusal.hint else "")
