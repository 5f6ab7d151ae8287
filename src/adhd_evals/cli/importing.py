"""Case files in: `import` (into the catalog and its check module) and `survey` (the shapes
they use, and a draft dialect)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from ..files import DEFAULT_MAX_BYTES
from ..importing.catalogue import source_names

# the choices are the core's Literal type (schema.py) and the catalogue's names: typer offers them
from ..schema import Risk
from . import options
from .options import FLAG, MaxBytes
from .plain import importing as plain

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
    return plain.import_(
        sources=sources,
        format=format,
        out=out,
        risk=risk,
        category=category,
        skill=skill,
        prune=prune,
        dialect=dialect,
        replace=replace,
        dry_run=dry_run,
        no_default_criteria=no_default_criteria,
        skip_test=skip_test,
        max_bytes=max_bytes,
    )


@commands.command("survey")
def survey_command(
    *,
    sources: Annotated[list[Path], typer.Argument(help="Case files, or folders to search for them.")],
    format: Annotated[SourceFormat, options.source_format("evals-json or yaml.")],
    out: Annotated[Path | None, options.out("Write (or extend) a draft dialect file here.")] = None,
    max_bytes: MaxBytes = DEFAULT_MAX_BYTES,
) -> int:
    """List every shape your case files use, and draft a dialect that says what they mean."""
    return plain.survey(sources=sources, format=format, out=out, max_bytes=max_bytes)
