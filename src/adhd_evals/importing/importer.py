"""The import, callable from Python: source → ImportResult → catalog and module."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..catalog import catalog_text
from ..errors import OutputError, UsageError
from ..output import torn, write_all_atomically
from . import checkgen
from .dialect import Dialect
from .formats import READERS, ReadOptions
from .formats._common import has_lone_surrogate
from .merge import MergeReport, merge
from .model import DEFAULT_RISK, RISKS, ImportResult, Refusal, RefusalCode

CATALOG_NAME = "cases.jsonl"
MODULE_NAME = "checks.py"


@dataclass
class ImportOutcome:
    result: ImportResult
    catalog: str
    written: tuple[Path, ...] = ()
    merge_report: MergeReport | None = None
    module_text: str | None = None  # what was written; None until needed
    repaired: str | None = None  # why the folder's pair was torn before this import rewrote it

    @property
    def module(self) -> str:
        """The module written, or rendered on first use (printing to stdout never needs it)."""
        if self.module_text is None:
            self.module_text = render_module(self.result)
        return self.module_text


def read_source(
    fmt: str,
    source: Path,
    *,
    risk: str | None = None,
    category: str | None = None,
    display: str | None = None,
    dialect: Dialect | None = None,
) -> ImportResult:
    """Read a source into the model; raises Refusal for a bad file."""
    reader = READERS.get(fmt)
    if reader is None:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(READERS)}")
    if risk is not None and risk not in RISKS:
        raise UsageError(f"--risk must be one of {', '.join(RISKS)}, not {risk!r}")
    if category is not None and (not category.strip() or has_lone_surrogate(category)):
        raise UsageError("--category must be non-empty text")
    if dialect is not None and dialect.format != fmt:
        raise UsageError(f"the dialect {dialect.display} is for {dialect.format}, not {fmt}")
    shown = display if display is not None else str(source)
    options = ReadOptions(risk=risk or DEFAULT_RISK, category=category, dialect=dialect)
    with _collector_paused():
        try:
            cases = reader(source, display=shown, options=options)
        except Refusal as refusal:
            raise _with_format_hint(refusal, fmt, source) from None
    for case in cases:  # a category taken from a folder name is the one unchecked text
        if has_lone_surrogate(case.category):
            raise UsageError(f"the folder name of {shown} is not valid text: pass --category")
    return ImportResult(
        source=shown,
        format=fmt,
        cases=tuple(cases),
        risk=options.risk,
        risk_was_default=risk is None,
        dialect=dialect,
    )


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a reader builds the model.

    A large import allocates hundreds of thousands of small, acyclic objects;
    each allocation burst triggers a collection that scans them all again
    (measured: 40% of a 50,000-case import). Reference counting still frees
    everything; the collector resumes as it was.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_LOOKS = {"evals-json": "an evals.json", "evalflow": "an evalflow dataset", "yaml": "a YAML case file",
          "catalog": "a five-field catalog (JSONL)", "module": "a check module"}  # fmt: skip


def _with_format_hint(refusal: Refusal, fmt: str, source: Path) -> Refusal:
    """A file refused for its shape under one --format may be another format's file: say which."""
    if refusal.code in (RefusalCode.FILE_UNREADABLE, RefusalCode.DIRECTORY_UNREADABLE):
        return refusal
    from ..lint import format_of

    looks = format_of(source, explicit=True) if source.is_file() else None
    if looks is None or looks == fmt:
        return refusal
    advice = f"try --format {looks}" if looks in READERS else "it is not a source to import"
    looks_like = f"{source.name} looks like {_LOOKS[looks]}: {advice}"
    refusal.hint = f"{refusal.hint}; {looks_like}" if refusal.hint else looks_like
    return refusal


def render_module(result: ImportResult) -> str:
    """The check module as freshly generated."""
    with _collector_paused():
        return checkgen.render(result)


def import_source(
    fmt: str,
    source: Path,
    *,
    out: Path | None = None,
    risk: str | None = None,
    category: str | None = None,
    display: str | None = None,
    prune: bool = False,
    dialect: Dialect | None = None,
) -> ImportOutcome:
    """Read, render, and (with `out`) write both files atomically; nothing on refusal.

    When `out` already holds a check module, the new one is merged into it
    (see merge.py): nothing a person wrote there is lost.
    """
    result = read_source(fmt, source, risk=risk, category=category, display=display, dialect=dialect)
    outcome = ImportOutcome(result, catalog_text(result.cases))
    if out is None:
        return outcome
    if out.exists() and not out.is_dir():
        raise OutputError(f"--out {out} is a file; it must be a directory")
    outcome.repaired = torn(out) if out.is_dir() else None
    outcome.module_text, outcome.merge_report = _module_text(out / MODULE_NAME, result, prune)
    targets = {out / CATALOG_NAME: outcome.catalog, out / MODULE_NAME: outcome.module_text}
    write_all_atomically(targets, paired=True)
    outcome.written = tuple(targets)
    return outcome


def _module_text(path: Path, result: ImportResult, prune: bool) -> tuple[str, MergeReport | None]:
    """Fresh text, or the existing module merged with the new source."""
    try:
        existing = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return render_module(result), None
    except (OSError, UnicodeDecodeError) as exc:
        raise OutputError(f"{path} exists and cannot be read ({exc}); move it aside first") from exc
    with _collector_paused():
        return merge(existing, result, prune=prune)
