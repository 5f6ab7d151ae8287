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

from pathlib import Path
from typing import TYPE_CHECKING

from ..importing.catalogue import NotRecognised, discover, lint_names
from ..importing.catalogue import format_of as format_of  # lint's name for the one detector
from ..problem import ERROR, WARNING, Problem
from .lookalike import why_not_ours

if TYPE_CHECKING:
    from ..importing.dialect import Dialect
    from ..importing.model import Refusal
    from .rules import ModuleRead

FORMATS = lint_names()  # declared once, in the catalogue of formats
LintUsageError = NotRecognised  # a path that does not exist, or a file whose format cannot be told


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


def lint_paths(paths: list[Path], *, forced: str | None = None, dialect: Dialect | None = None) -> LintReport:
    """Lint every case file under `paths`; a dialect refines the files of its format."""
    report = LintReport()
    yaml_ids: list[tuple[Path, str]] = []
    read = ModuleReads()
    for path, kind in discover(paths, forced):
        declared = dialect if dialect and dialect.format == kind else None
        if forced is None and kind != "evals-json":
            why = why_not_ours(path, kind, dialect_keys(declared) if declared is not None else None)
            if why is not None:
                report.skipped.append((str(path), kind, why))
                continue
        cases, problems, ids = lint_file(path, kind, declared, read=read)
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
    from ..importing.dialect_words import WHOLE_FILE

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


class ModuleReads:
    """Each check module read and parsed once a run: the hook passes a catalog with the
    checks.py beside it, which the catalog's folder rules and the module's own rules both read."""

    def __init__(self) -> None:
        self._read: dict[Path, ModuleRead] = {}

    def __call__(self, path: Path) -> ModuleRead:
        if path not in self._read:
            from .module import read_module  # ast only when a module is linted

            self._read[path] = read_module(path)
        return self._read[path]


def lint_file(
    path: Path, kind: str, dialect: Dialect | None = None, *, read: ModuleReads | None = None
) -> tuple[int, list[Problem], list[str]]:
    """(cases, problems, the ids of a source's cases read whole) for one file; `read`: the
    run's check modules, read once (a fresh reader when none is given)."""
    read = read or ModuleReads()
    if kind == "catalog":
        return (*_lint_catalog(path, read), [])
    if kind == "module":
        from .engine import check_module  # the module rules: see _lint_catalog

        return 0, check_module(read(path)), []
    return _lint_source(path, kind, dialect)


def _lint_catalog(path: Path, read: ModuleReads) -> tuple[int, list[Problem]]:
    """The row and catalog rules (catalog.py streams the file), then the folder rules."""
    # Imported here: the catalog's and the module's rules are a catalog's alone, never a source
    # file's (tests/lint/test_startup.py)
    from ..catalogrules.stream import lint_catalog
    from .engine import check_folder, folder_of, module_beside

    module = module_beside(path)  # then every id and its line are needed: kept exactly
    cases, problems, seen = lint_catalog(path, keep_ids=module is not None)
    ids = (seen.exact or {}) if module is not None else {}
    problems += check_folder(folder_of(path, ids, module, read))
    return cases, sorted(problems, key=lambda p: (p.line, p.column))


def _lint_source(path: Path, kind: str, dialect: Dialect | None) -> tuple[int, list[Problem], list[str]]:
    from ..importing.formats import PROBLEMS, ReadOptions

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
