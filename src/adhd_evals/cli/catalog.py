"""The catalog as it stands: `validate` (every problem with its line) and `export` (to another
tool's format)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..files import DEFAULT_MAX_BYTES
from ..schema import DEFAULT_CATALOG, DEFAULT_MODULE, ExportFormat
from . import options
from .options import MaxBytes
from .plain import catalog as plain

commands = typer.Typer()


@commands.command("validate")
def validate_command(
    *,
    cases: Path = typer.Argument(Path(DEFAULT_CATALOG), help="The five-field catalog."),
    max_bytes: MaxBytes = DEFAULT_MAX_BYTES,
) -> int:
    """Check a five-field catalog and print every problem with its line."""
    return plain.validate(cases=cases, max_bytes=max_bytes)


@commands.command("export")
def export_command(
    *,
    to: ExportFormat = typer.Option(
        ..., "--to", help="promptfoo (a config), evals-json (skill-creator) or plugin-eval (a suite folder)."
    ),
    cases: Annotated[Path, options.cases("The catalog to export.")] = Path(DEFAULT_CATALOG),
    suite: Annotated[Path, options.suite("Its check module (promptfoo and plugin-eval).")] = Path(
        DEFAULT_MODULE
    ),
    out: Annotated[
        Path,
        options.out(
            "The file to write (promptfoo: .json writes JSON, else YAML); plugin-eval: a new folder."
        ),
    ],
) -> int:
    """Export the catalog to a promptfoo config or a skill-creator evals.json; says what did not survive."""
    return plain.export(to=to, cases=cases, suite=suite, out=out)
