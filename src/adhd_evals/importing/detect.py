"""Which source format an import reads when no --format is given: lint's own recognition.

One rule, two commands: a file is recognised by name, then by shape, exactly as
`lint` recognises it (`lint.format_of`); a folder by the case files beneath it, as
`lint` walks one. A dialect's `format:` decides when one is given. What cannot be
told (a folder holding two formats, a catalog, nothing recognisable) is a usage
error naming what was found, never a guess.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from .catalogue import description_of, discover, format_of, formats
from .formats import READERS, ReadOptions
from .model import DEFAULT_RISK, Refusal, RefusalCode


def detect(sources: list[Path], dialect_format: str | None = None) -> str:
    """The one format every source is, or a UsageError saying why there is none."""
    if dialect_format is not None:
        return dialect_format
    found = {source: _format_of(source) for source in sources}
    formats = sorted(set(found.values()))
    if len(formats) == 1:
        return formats[0]
    shown = "; ".join(f"{source} is {fmt}" for source, fmt in found.items())
    raise UsageError(f"the sources are of different formats ({shown}): pass --format")


def _format_of(source: Path) -> str:
    if not source.exists():
        raise UsageError(f"{source}: no such file or directory")
    if source.is_dir():
        found = {kind for _, kind in discover([source], None) if kind in READERS}
        one_file = {fmt.name for fmt in formats() if not fmt.folders}  # a folder is not their source
        kinds = sorted(found - one_file)
        if not kinds and found:  # a format read one file at a time (a promptfoo config)
            raise UsageError(
                f"{source} holds {' and '.join(sorted(found))} files, read one file at a time: "
                "name the file, or pass --format"
            )
        if len(kinds) != 1:
            what = " and ".join(kinds) if kinds else "no case file lint recognises"
            raise UsageError(f"{source} holds {what}: pass --format {' or '.join(kinds) or '...'}")
        return kinds[0]
    kind = format_of(source, explicit=True)
    if kind is None:
        raise UsageError(f"{source}: cannot tell its format (as lint cannot): pass --format")
    if kind not in READERS:
        raise UsageError(f"{source} is a {kind} adhd-evals writes, not a source to import")
    return kind


def with_format_hint(refusal: Refusal, fmt: str, source: Path) -> Refusal:
    """A file refused for its shape under one --format may be another format's file: say which."""
    if refusal.code in (RefusalCode.FILE_UNREADABLE, RefusalCode.DIRECTORY_UNREADABLE):
        return refusal
    looks = format_of(source, explicit=True) if source.is_file() else None
    if looks is not None and looks in READERS:  # named only when that format reads the file
        looks = next((other for other in (looks, *READERS) if other != fmt and _reads(other, source)), None)
    if looks is None or looks == fmt:
        return refusal
    advice = f"try --format {looks}" if looks in READERS else "it is not a source to import"
    looks_like = f"{source.name} looks like {description_of(looks)}: {advice}"
    refusal.hint = f"{refusal.hint}; {looks_like}" if refusal.hint else looks_like
    return refusal


def _reads(fmt: str, source: Path) -> bool:
    """Whether `fmt` imports `source` (a refusal's hint names no format that refuses it too)."""
    try:
        READERS[fmt](source, display=str(source), options=ReadOptions(risk=DEFAULT_RISK))
    except (Refusal, UsageError):
        return False
    return True
