"""Case files in: `import` (into the catalog and its check module) and `survey` (the shapes
they use, and a draft dialect)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from .. import exitcodes
from ..errors import OutputError, UsageError
from ..files import DEFAULT_MAX_BYTES, read_text_limited, set_max_bytes
from ..importing import dialect as dialects
from ..importing import survey
from ..importing.catalogue import source_names
from ..importing.detect import detect
from ..importing.importer import Request, collector_paused, import_sources
from ..importing.summary import outcome_lines
from ..output import refuse_clobbering, write_all_atomically

# the choices are the core's Literal type (schema.py) and the catalogue's names: typer offers them
from ..schema import Risk
from ..text import plural
from . import options
from .options import FLAG, MaxBytes

commands = typer.Typer()
if TYPE_CHECKING:
    SourceFormat = str
else:  # typer offers a Literal's values: the catalogue's formats, as registered when this loads
    SourceFormat = Literal[source_names()]


@commands.command("import")
def import_command(
    *,
    sources: list[Path] = typer.Argument(
        ...,
        help="evals.json files (a folder: every evals.json beneath it), YAML case files or folders, "
        "or dataset.json files.",
    ),
    format: Annotated[
        SourceFormat | None,
        options.source_format("The source format (default: recognised as lint recognises it)."),
    ] = None,
    out: Annotated[
        Path | None,
        options.out("Write DIR/cases.jsonl and DIR/checks.py; without it the catalog goes to stdout."),
    ] = None,
    risk: Risk | None = typer.Option(None, "--risk", help="Risk for every case (default: medium)."),
    category: str | None = typer.Option(
        None, "--category", help="Category for every case (default: from the source)."
    ),
    skill: str | None = typer.Option(
        None,
        "--skill",
        help="The skill trigger cases are about (default: the file's skill_name, or the SKILL.md beside it).",
    ),
    prune: bool = typer.Option(
        False,
        "--prune",
        metavar=FLAG,
        help="Remove from the check module the cases that are gone from the source.",
    ),
    dialect: Path | None = typer.Option(
        None,
        "--dialect",
        help="A dialect file: what your typed assertions and case shapes mean (draft one with 'adhd-evals survey').",
    ),
    replace: bool = typer.Option(
        False,
        "--replace",
        metavar=FLAG,
        help="Rebuild --out from these sources alone (lists each case dropped).",
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", metavar=FLAG, help="Print what would change (with diffs); write nothing."
    ),
    no_default_criteria: bool = typer.Option(
        False,
        "--no-default-criteria",
        metavar=FLAG,
        help="Keep a case's statement of success (evals.json expected_output) as a note, not its criterion.",
    ),
    skip_test: list[int] = typer.Option(
        [],
        "--skip-test",
        metavar="N",
        help="Leave out promptfoo test N (1-based, across the config), listed with the reason; repeatable.",
    ),
    max_bytes: MaxBytes = DEFAULT_MAX_BYTES,
) -> int:
    """Import case files into the five-field catalog and its check module."""
    set_max_bytes(max_bytes)

    declared = dialects.load(dialect) if dialect is not None else None
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


def _import(
    fmt: str,
    sources: list[Path],
    request: Request,
    *,
    risk: Risk | None,
    category: str | None,
    dialect: dialects.Dialect | None,
    default_criteria: bool,
    skip_tests: tuple[int, ...],
    skill: str | None,
) -> None:
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


@commands.command("survey")
def survey_command(
    *,
    sources: Annotated[list[Path], typer.Argument(help="Case files, or folders to search for them.")],
    format: Annotated[SourceFormat, options.source_format("evals-json or yaml.")],
    out: Annotated[Path | None, options.out("Write (or extend) a draft dialect file here.")] = None,
    max_bytes: MaxBytes = DEFAULT_MAX_BYTES,
) -> int:
    """List every shape your case files use, and draft a dialect that says what they mean."""
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
        from ..importing.formats.promptfoo import census

        print("\n".join(census.report(sources)))
        return exitcodes.OK
    for source in sources:
        refuse_clobbering({"--out": out}, {"source": source})
    found = survey.survey(format, sources)
    print("\n".join(survey.report(found)))
    if out is not None:
        text, added, opened = survey.draft(found, _existing(out))
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
