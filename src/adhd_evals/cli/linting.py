"""`lint` as the listing shows it. entry.py runs `adhd-evals lint` before typer is imported
(the pre-commit hook's start-up); this command only serves the listing and a caller of
cli.main, handing every argument on to lint's own parser."""

from __future__ import annotations

import typer

from ..lint.cli import main as lint_main

commands = typer.Typer()


@commands.command(
    "lint", context_settings={"allow_extra_args": True, "ignore_unknown_options": True}, add_help_option=False
)
def lint_command(ctx: typer.Context) -> int:
    """Lint case files of every format with positions (see 'adhd-evals lint --help')."""
    return lint_main(list(ctx.args))
