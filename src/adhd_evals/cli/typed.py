"""The typer app: every command line the fast path (cli.fast) does not take.

A command named on the command line is imported with its stage alone (`_registry`); `app`,
every command in the listing's order, is built when something asks for it (no command named,
--help, a misspelt name; the tests and the docs' CLI reference).
"""

from __future__ import annotations

import functools
import importlib
import io
import sys

import typer
from typer.models import CommandInfo

from .. import exitcodes, version_line
from ..errors import UsageError
from . import COMMANDS, HELP
from .options import FLAG


def _version(value: bool) -> None:
    if value:
        print(version_line())
        raise typer.Exit(exitcodes.OK)


def _options(
    version: bool = typer.Option(
        False, "--version", metavar=FLAG, callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Turn eval case files into one five-field catalog you can lint, run and score."""


def main(argv: list[str]) -> int:
    """Run one typer command; errors propagate to the boundary in entry.main."""
    if not argv or "--help" in argv:
        _help_encodable()
    try:
        result = _registry(argv)(args=argv, prog_name="adhd-evals", standalone_mode=False)
    except typer.Exit as exc:  # --help, --version
        return int(exc.exit_code)
    except typer.Abort as exc:  # Ctrl-C at a prompt
        raise KeyboardInterrupt from exc
    except typer.TyperException as exc:  # a usage error: bad option, missing argument
        # click lays some messages out over lines ("Choose from:\n\tyaml,..."): one line here
        # and typer 0.29+ (pydantic) prefixes a bad choice with "Value error, ": not in ours,
        # so the message reads the same whatever typer an environment holds
        message = " ".join(exc.format_message().replace("Value error, ", "").split())
        if not message:  # no command at all (click 8.2+): the listing is printed, nothing to add
            return exitcodes.USAGE
        raise UsageError(message, hint="Try 'adhd-evals --help'.") from exc
    return result if isinstance(result, int) else exitcodes.OK


def _help_encodable() -> None:
    """Help is read, not parsed: where stdout's encoding cannot write a character of it (`…`, `—`
    under PYTHONIOENCODING=latin-1 or an ISO-8859 locale), it is written as `?`, not a crash.
    Only for help: a command's output is data, and is never changed to fit an encoding."""
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("_", "-")
    if encoding not in ("utf-8", "utf8") and isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="replace")


def _registry(argv: list[str]) -> typer.Typer:
    """The app to parse `argv` with: when it names a command, an app of that command alone.

    Typer builds a click command for every registered command on each start,
    reading each one's signature (about 6 ms for the 13 here); building the one
    being run takes 0.6, and only its stage's module (and what that imports) is
    imported. Anything else (no command, --help, a misspelt name) gets the whole
    app, so listings and suggestions are unchanged.
    """
    if not argv or argv[0] not in COMMANDS:
        return _whole_app()
    return _app([argv[0]])


def _app(names: list[str]) -> typer.Typer:
    built = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, help=HELP)
    built.callback()(_options)
    built.registered_commands = [_command(name) for name in names]
    return built


def _command(name: str) -> CommandInfo:
    stage = importlib.import_module(f"adhd_evals.cli.{COMMANDS[name]}")
    commands: typer.Typer = stage.commands
    (info,) = [info for info in commands.registered_commands if info.name == name]
    return info


@functools.cache
def _whole_app() -> typer.Typer:
    """Every command, built once: the object `cli.app` names."""
    return _app(list(COMMANDS))
