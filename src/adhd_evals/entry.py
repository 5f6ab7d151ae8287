"""The console script. `lint` and `--version` are dispatched before typer is imported: the
pre-commit hook runs lint on every commit, and typer's import alone (pydantic with it, from
typer 0.29) costs more than linting a catalog (docs/startup.md)."""

from __future__ import annotations

import gc
import os
import sys

from . import exitcodes, version_line
from .boundary import guard
from .collector import collector_paused
from .errors import UsageError

# Commands that run model CLIs: each call in its own process group (os.killpg), the output
# locked with flock (fcntl). Both are POSIX; pidfds are used where Linux has them.
POSIX_ONLY = ("run", "judge")


def main(argv: list[str] | None = None) -> int:
    """Run `adhd-evals ARGS...` and return its exit code; the one error boundary."""
    args = sys.argv[1:] if argv is None else argv
    return guard(lambda: _dispatch(args))


def _dispatch(args: list[str]) -> int:
    _refuse_without_posix(args)
    if args == ["--version"]:
        print(version_line())
        return exitcodes.OK
    # a command's modules are imported with the collector paused: objects, and no garbage
    if args[:1] == ["lint"]:
        with collector_paused():
            from .lint.cli import main as lint_main

        return lint_main(args[1:])
    with collector_paused():
        from .cli import main as cli_main

    return cli_main(args)


def _refuse_without_posix(args: list[str]) -> None:
    """Say so before any work where `run` and `judge` cannot stop their calls or lock their output."""
    if args[:1] and args[0] in POSIX_ONLY and os.name != "posix":
        raise UsageError(
            f"'{args[0]}' needs a POSIX system such as Linux or macOS: it runs each model call in its "
            f"own process group and locks its output file with flock, which {sys.platform} does not have",
            hint="Run it under Linux, macOS or WSL.",
        )


def run() -> None:
    """The process's entry (the console script, `python -m adhd_evals`): main, then exit."""
    code = main()
    # Everything left is about to go with the process: frozen, the interpreter's last cycle
    # collection skips it (a whole scan of every module's objects, 3 ms of a hook run's 50).
    # Files are closed and flushed by the code that wrote them, never by that collection.
    gc.freeze()
    sys.exit(code)
