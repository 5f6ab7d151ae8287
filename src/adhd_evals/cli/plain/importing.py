"""The plain bodies of `import` and `survey` (their typer signatures: cli/importing.py). `import`
is a keyword, so its body is `import_` (cli.declare looks for that name)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ... import exitcodes
from ...errors import OutputError, UsageError
from ...files import read_text_limited, set_max_bytes
from ...output import refuse_clobbering, write_all_atomically
from ...schema import Risk
from ...text import plural

if TYPE_CHECKING:
    from ...importing.dialect import Dialect
    from ...importing.importer import Request


def import_(
    *,
    sources: list[Path],
    format: str | None,
    out: Path | None,
    risk: Risk | None,
    category: str | None,
    skill: str | None,
    prune: bool,
    dialect: Path | None,
    replace: bool,
    dry_run: bool,
    no_default_criteria: bool,
    skip_test: list[int],
    max_bytes: int,
) -> int:
    """Import case files into the five-field catalog and its check module."""
    # Imported here: the importer is import's alone, and survey's shapes are survey's: neither
    # pays for the other on its trivial call
    from ...collector import collector_paused
    from ...importing.detect import detect
    from ...importing.importer import Request

    set_max_bytes(max_bytes)

    declared = _dialect(dialect) if dialect is not None else None
    if format is None:
        fmt = detect(sources, declared.format if declared is not None else None)
        print(f"Format: {fmt} (recognised as lint recognises it; --format chooses).", file=sys.stderr)
    else:
        fmt = format
    if dry_run and out is None:
        raise UsageError("--dry-run compares with what --out DIR holds: pass --out")
    request = Request(out=out, prune=prune, replace=replace, dry_run=dry_run)
    # Paused for the whole command, output included; the model (acyclic) is freed by reference
    # counting when _import returns, so resuming the collector finds nothing left to scan.
    with collector_paused():
        _import(
            fmt,
            sources,
            request,
            risk=risk,
            category=category,
            dialect=declared,
            default_criteria=not no_default_criteria,
            skip_tests=tuple(skip_test),
            skill=skill,
        )
    return exitcodes.OK


def _dialect(path: Path) -> Dialect:
    # Imported here: the dialect reader (its dataclasses, ruamel.yaml and jsonschema) only for
    # an import that names one (tests/test_cli_startup.py)
    from ...importing import dialect as dialects

    return dialects.load(path)


def _import(
    fmt: str,
    sources: list[Path],
    request: Request,
    *,
    risk: Risk | None,
    category: str | None,
    dialect: Dialect | None,
    default_criteria: bool,
    skip_tests: tuple[int, ...],
    skill: str | None,
) -> None:
    from ...importing.importer import import_sources
    from ...importing.summary import outcome_lines

    outcome = import_sources(
        fmt,
        sources,
        request,
        risk=risk,
        category=category,
        dialect=dialect,
        default_criteria=default_criteria,
        skip_tests=skip_tests,
        skill=skill,
    )
    if request.dry_run:
        for diff in outcome.diffs:
            print(diff, end="")
    elif request.out is None:  # the catalog is UTF-8 whatever the terminal's locale says
        sys.stdout.flush()
        raw = getattr(sys.stdout, "buffer", None)  # absent when a caller swapped in a text stream
        for piece in outcome.catalog_pieces():  # streamed: a large catalog is never held whole
            if raw is None:
                sys.stdout.write(piece)
            else:
                raw.write(piece.encode("utf-8"))
        if raw is not None:
            raw.flush()
    print("\n".join(outcome_lines(outcome, dry_run=request.dry_run)), file=sys.stderr)


def survey(*, sources: list[Path], format: str, out: Path | None, max_bytes: int) -> int:
    """List every shape your case files use, and draft a dialect that says what they mean."""
    from ...importing import survey as surveying

    set_max_bytes(max_bytes)

    if format in ("evalflow", "plugin-eval"):
        raise UsageError(f"survey reads evals-json or yaml; {format}'s shape is fixed by {format}")
    if format == "promptfoo":  # promptfoo's meaning is its own: counted, no dialect drafted
        if out is not None:
            raise UsageError(
                "survey --format promptfoo drafts no dialect (promptfoo defines its types): drop --out"
            )
        # Imported here: promptfoo's readers bring jinja2 and PyYAML, which no other survey needs
        # (tests/test_cli_startup.py).
        from ...importing.formats.promptfoo import census

        print("\n".join(census.report(sources)))
        return exitcodes.OK
    for source in sources:
        refuse_clobbering({"--out": out}, {"source": source})
    found = surveying.survey(format, sources)
    print("\n".join(surveying.report(found)))
    if out is not None:
        text, added, opened = surveying.draft(found, _existing(out))
        write_all_atomically({out: text})
        told = "" if opened == added else f", {opened or 'none'}"
        print(f"Wrote {out}: {plural(added, 'new rule')}{told} with choices left open.", file=sys.stderr)
    return exitcodes.OK


def _existing(path: Path) -> str | None:
    try:
        return read_text_limited(path)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise OutputError(f"{path} exists and cannot be read ({exc}); move it aside first") from exc
