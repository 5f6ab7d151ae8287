"""`--help` without typer: the help texts typer prints where nothing about the terminal changes
them, pre-rendered into `_help` by `python -m adhd_evals.cli.declare`, and served only there.

Typer renders help with rich, and rich's output depends on the terminal: its width (read from
COLUMNS, or from whichever of stdin, stdout and stderr is a terminal), colour (a terminal, or
FORCE_COLOR, TTY_COMPATIBLE, ...) and the output's encoding (box characters or ASCII); typer's
and click's own words go through gettext. With no terminal on any of the three, none of that
environment set and no catalogue for the language, rich renders at width 80 without colour,
which is how the texts were made. They are served only then, only on the typer, click
and rich versions (and Python) they were made with, and only while the catalogue of formats is
the one `import --help` listed; anything else goes to typer as before (docs/startup.md).
tests/test_cli_fast_help.py compares every served text with typer's, byte for byte.
"""

from __future__ import annotations

import os
import sys

from .. import exitcodes

# Every variable typer, click or rich reads that changes how help renders (or whether rich does)
RENDERING = (
    "COLUMNS",
    "LINES",
    "JUPYTER_COLUMNS",
    "JUPYTER_LINES",
    "NO_COLOR",
    "FORCE_COLOR",
    "PY_COLORS",
    "GITHUB_ACTIONS",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "TERMINAL_WIDTH",
    "_TYPER_FORCE_DISABLE_TERMINAL",
    "TYPER_USE_RICH",
    "DATABRICKS_RUNTIME_VERSION",
)
# The parser typer brings, whose versions the texts were made with (read from their dist-info)
RENDERERS = ("typer", "click", "rich")


def serve(argv: list[str]) -> int | None:
    """Print the pre-rendered help `argv` asks for and return OK, or None when typer must."""
    if len(argv) > 2 or argv[-1:] != ["--help"]:
        return None
    from . import _help

    name = argv[0] if len(argv) == 2 else ""
    text = _help.TEXTS.get(name)
    if text is None or not _plain_output() or not _made_here(_help.MADE_WITH, _help.PYTHON):
        return None
    if name in ("import", "survey") and not _same_formats(_help.FORMATS):
        return None  # a format registered since: typer lists it
    sys.stdout.write(text)
    return exitcodes.OK


def _plain_output() -> bool:
    """No terminal on stdin, stdout or stderr, none of RENDERING set, and UTF-8 out: rich's
    width 80, no colour, box characters (POSIX: Windows' legacy console renders its own way)."""
    if os.name != "posix" or any(name in os.environ for name in RENDERING):
        return False
    if any(os.isatty(fd) for fd in (0, 1, 2)):
        return False
    return (getattr(sys.stdout, "encoding", None) or "").lower() == "utf-8" and _untranslated()


def _untranslated() -> bool:
    """typer and click translate their words through gettext's default domain ("messages"),
    looked up under Python's share/locale: with no catalogue for the language there, the words
    are as the texts were made (where that folder is absent, without importing gettext)."""
    folder = os.path.join(sys.base_prefix, "share", "locale")
    if not os.path.isdir(folder):
        return True
    import gettext

    return gettext.find("messages", folder) is None


def _made_here(made_with: dict[str, str], python: tuple[int, int]) -> bool:
    """The running Python and the installed typer, click and rich are those the texts came from."""
    if sys.version_info[:2] != python:
        return False
    return all(_installed(name) == made_with.get(name) for name in RENDERERS)


def _installed(name: str) -> str | None:
    """The version of the package `import name` would load, from the dist-info beside it (None
    where it is not found that way, e.g. an editable install): importlib.metadata costs ~12 ms."""
    for entry in sys.path:
        folder = entry or "."
        if not os.path.isdir(folder) and os.path.exists(folder):
            return None  # a zip on the path may hold it: where it loads from is not told here
        if os.path.isfile(os.path.join(folder, name, "__init__.py")):
            prefix = f"{name}-"
            found = [f for f in os.listdir(folder) if f.startswith(prefix) and f.endswith(".dist-info")]
            return found[0][len(prefix) : -len(".dist-info")] if len(found) == 1 else None
    return None


def _same_formats(formats: tuple[str, ...]) -> bool:
    from ..importing.catalogue import REGISTERED

    return formats == REGISTERED
