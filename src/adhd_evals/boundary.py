"""The one error boundary (as pre-commit's error_handler): applied once, in entry.main."""

from __future__ import annotations

import sys
from collections.abc import Callable

from . import exitcodes
from .errors import UserError
from .text import printable


def _err(line: str) -> None:
    # A message quotes source text: whatever it holds, it prints as one readable line.
    print(printable(line), file=sys.stderr)


def guard(action: Callable[[], int]) -> int:
    """Run a command; a user's mistake becomes its message and code, a bug a report."""
    try:
        return action()
    except UserError as exc:
        for line in exc.lines():
            _err(line)
        return exc.exit_code
    except BrokenPipeError:
        return _pipe_closed()
    except KeyboardInterrupt:
        _err("adhd-evals: interrupted.")
        return exitcodes.INTERRUPTED
    except Exception as exc:  # a bug: say so in one line, keep the traceback for the report
        _err(
            f"adhd-evals: internal error ({type(exc).__name__}); this is a bug in adhd-evals, "
            "please report it with the file below."
        )
        _err(f"The traceback is in {_save_traceback()}")
        return exitcodes.INTERNAL


def _pipe_closed() -> int:
    """A closed pipe ends quietly: nothing more can be read, so nothing is said. stdout is
    pointed at /dev/null so that the interpreter's final flush cannot raise again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (a test's capture): nothing to flush
        pass
    return exitcodes.BROKEN_PIPE


def _save_traceback() -> str:
    # imported here, not at the top: every command starts through this module, few crash
    import tempfile
    import traceback

    try:
        with tempfile.NamedTemporaryFile(
            "w",
            prefix="adhd-evals-crash-",
            suffix=".txt",
            delete=False,
            encoding="utf-8",
            errors="backslashreplace",
        ) as f:
            traceback.print_exc(file=f)
            return f.name
    except OSError:
        traceback.print_exc()
        return "the lines above (no file could be written)"
