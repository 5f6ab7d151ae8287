"""The catalogue of formats: each format is one module declaring a `Format` (its name, words,
file names, recogniser, refusal code and reader), registered by one line in `REGISTERED`.
Detection (`format_of`), discovery (`discover`, lint's file selection), the readers' registry
(`formats.READERS`), `import --format`'s and `lint --format-of`'s choices, the hook's `files:`
pattern (`hook_pattern`) and the docs' table (`table`) are all read from it.

Light on imports on purpose: lint (the pre-commit hook) tells every file's format with it, so
it must not import a reader; a format's reader is imported only when a file of it is read.
"""

from __future__ import annotations

import functools
import importlib
from pathlib import Path

from ...files import walk
from .declare import Format, Head, path_regex

# One line per format, in the order `import --help` lists them; the module's FORMAT is it.
REGISTERED = (
    "adhd_evals.importing.catalogue.catalog_jsonl",
    "adhd_evals.importing.catalogue.evals_json",
    "adhd_evals.importing.catalogue.yaml_cases",
    "adhd_evals.importing.catalogue.evalflow",
    "adhd_evals.importing.catalogue.check_module",
    "adhd_evals.importing.catalogue.promptfoo",
    "adhd_evals.importing.catalogue.plugin_eval",
    "adhd_evals.importing.catalogue.trigger_list",
)
# `lint --format-of` listed these first, in this order, before the catalogue existed: kept so
# its help reads as it did; a format registered since follows in the catalogue's order.
_LINT_LISTED = ("catalog", "evals-json", "evalflow", "yaml", "module")
_SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache"}


class NotRecognised(Exception):
    """A path that does not exist, or a file whose format cannot be told."""


def formats() -> tuple[Format, ...]:
    """Every registered format, in the catalogue's order."""
    return _load(REGISTERED)


@functools.lru_cache(maxsize=4)
def _load(registered: tuple[str, ...]) -> tuple[Format, ...]:
    loaded: list[Format] = []
    for module in registered:
        found = getattr(importlib.import_module(module), "FORMAT", None)
        if not isinstance(found, Format):
            raise TypeError(f"{module}.FORMAT is not a catalogue Format")
        loaded.append(found)
    names = [fmt.name for fmt in loaded]
    if len(set(names)) != len(names):
        raise ValueError(f"two formats share a name: {names}")
    return tuple(loaded)


def named(name: str) -> Format:
    """The format called `name` (KeyError when none is)."""
    found = {fmt.name: fmt for fmt in formats()}
    return found[name]


def readers() -> dict[str, str]:
    """Each format `import` reads, by name, with its reader's module: the catalogue's order."""
    return {fmt.name: fmt.reader for fmt in formats() if fmt.reader is not None}


def source_names() -> tuple[str, ...]:
    """What `import --format` (and `survey --format`) take."""
    return tuple(readers())


def lint_names() -> tuple[str, ...]:
    """What `lint --format-of` takes: every format, the sources and what they become."""
    names = [fmt.name for fmt in formats()]
    return (*[n for n in _LINT_LISTED if n in names], *[n for n in names if n not in _LINT_LISTED])


def description_of(name: str) -> str:
    return named(name).description


def format_of(path: Path, *, explicit: bool) -> str | None:
    """The format of a file by name, then by shape; None to pass it over. `explicit`: the
    file was named on the command line (so a name alone may decide where a folder's files
    need their content to)."""
    found = recognise(Head(path), formats(), explicit=explicit)
    return found.name if found is not None else None


def recognise(head: Head, registered: tuple[Format, ...], *, explicit: bool) -> Format | None:
    """The rule `Format` states: by name, else by shape (a format yielding to another that
    claims the file too), else, for a named file, by what its name allows."""
    by_name = next((fmt for fmt in registered if head.matches(fmt.by_name)), None)
    if by_name is not None:
        return by_name
    shaped = [
        fmt
        for fmt in registered
        if head.matches(fmt.by_shape) or (explicit and head.matches(fmt.by_shape_if_named))
    ]
    fallback = next((fmt for fmt in registered if head.matches(fmt.if_named)), None) if explicit else None
    if fallback is not None and shaped in ([], [fallback]):
        return fallback  # nothing else it could be: told without reading it
    for fmt in shaped:
        if fmt.claims(head):
            first = (other for name in fmt.yields_to for other in shaped if other.name == name)
            return next((other for other in first if other.claims(head)), fmt)
    return fallback


def discover(paths: list[Path], forced: str | None) -> list[tuple[Path, str]]:
    """Every case file under `paths` with its format (`forced`: every file is that format);
    a folder's files only when recognised, a named file always or NotRecognised."""
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


def hook_pattern() -> str:
    """The pre-commit hook's `files:` regex: every format's hook globs, in the catalogue's order."""
    return "|".join(path_regex(glob) for fmt in formats() for glob in fmt.hook)


def table() -> str:
    """The formats as a Markdown table (docs/hook.md's, made when the site is built)."""
    rows = [
        "| format | what it is | the hook selects | in a folder, lint reads | import refuses one with |",
        "| --- | --- | --- | --- | --- |",
    ]
    for fmt in formats():
        hook = ", ".join(f"`{glob}`" for glob in fmt.hook) or "none"
        shaped = ", ".join(f"`{glob}`" for glob in fmt.by_shape)
        read = [f"`{glob}`" for glob in fmt.by_name] + ([f"{shaped} by their content"] if shaped else [])
        refused = f"`{fmt.refusal.value}`" if fmt.refusal is not None else "none: adhd-evals writes it"
        rows.append(
            f"| `{fmt.name}` | {fmt.description} | {hook} | {', '.join(read) or 'none: name the file'} | {refused} |"
        )
    return "\n".join(rows)


__all__ = [
    "REGISTERED",
    "Format",
    "Head",
    "NotRecognised",
    "description_of",
    "discover",
    "format_of",
    "formats",
    "hook_pattern",
    "lint_names",
    "named",
    "readers",
    "recognise",
    "source_names",
    "table",
]
