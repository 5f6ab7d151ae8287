"""The console script. `lint` and `--version` are dispatched before typer is imported: the
pre-commit hook runs lint on every commit, and typer's import alone (pydantic with it, from
typer 0.29) costs more than linting a catalog (docs/startup.md)."""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Iterator

from . import exitcodes, version_line
from .boundary import guard
from .collector import collector_paused
from .errors import UsageError

# Commands that run model CLIs: each call in its own process group (os.killpg), the output
# locked with flock (fcntl). Both are POSIX; pidfds are used where Linux has them.
POSIX_ONLY = ("run", "judge")


def main(argv: list[str] | None = None, *, process: bool = False) -> int:
    """Run `adhd-evals ARGS...` and return its exit code; the one error boundary. `process`: this
    call is the whole process (entry.run), so the modules it imports stay to its end."""
    args = sys.argv[1:] if argv is None else argv
    return guard(lambda: _dispatch(args, process=process))


def _dispatch(args: list[str], *, process: bool = False) -> int:
    _refuse_without_posix(args)
    if args == ["--version"]:
        print(version_line())
        return exitcodes.OK
    if args[:1] == ["lint"]:
        with _importing(process=process):
            from .lint.cli import main as lint_main

        return lint_main(args[1:])
    with _importing(process=process):
        from .cli import main as cli_main

    return cli_main(args)


@contextlib.contextmanager
def _importing(*, process: bool) -> Iterator[None]:
    """A command's modules imported with the collector paused (objects, and no garbage); in a
    process of its own, then frozen out of its later scans (they live as long as it does). Not
    in a caller's process: freezing there would keep its garbage of the moment for good."""
    with collector_paused():
        yield
        if process:
            gc.freeze()


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
    code = main(process=True)
    # Everything left is about to go with the process: frozen, the interpreter's last cycle
    # collection skips it (a whole scan of every module's objects, 3 ms of a hook run's 50).
    # Files are closed and flushed by the code that wrote them, never by that collection.
    gc.freeze()
    sys.exit(code)
