"""`--help` without typer: the help texts typer prints where nothing but what is read here
changes them, pre-rendered by `python -m adhd_evals.cli.declare`, and served only there.

Typer renders help with rich, and rich's output depends on the terminal: its width (read from
COLUMNS, or from whichever of stdin, stdout and stderr is a terminal), colour (stdout a
terminal, or FORCE_COLOR, TTY_COMPATIBLE, ...) and the output's encoding (box characters or
ASCII); typer's and click's own words go through gettext. Two looks are pre-rendered, each as
rich renders it 80 wide: `_help` without colour (no terminal on stdout) and `_help_terminal` in
colour (stdout a terminal). They are served where rich's width is at least 80, so on a wider
terminal help is 80 wide, as typer prints it with TERMINAL_WIDTH=80 (docs/startup.md); on a
narrower one, under any of RENDERING, TERM=dumb, another language, or other typer, click and
rich versions (and Python) than they were made with, and while the catalogue of formats is not
the one `import --help` listed, typer renders as before. `look` is the one place that decides.
tests/test_cli_fast_help.py and tests/test_help_terminal_*.py compare every served text with
typer's, byte for byte.
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


# rich's fallback width, and the width both looks were rendered at
WIDTH = 80
PLAIN = "plain"
COLOUR = "colour"


def serve(argv: list[str]) -> int | None:
    """Print the pre-rendered help `argv` asks for and return OK, or None when typer must."""
    if len(argv) > 2 or argv[-1:] != ["--help"]:
        return None
    seen = look()
    if seen is None:
        return None
    if seen == COLOUR:  # each look is its own module: a call loads the one it prints
        from ._help_terminal import FORMATS, MADE_WITH, PYTHON, TEXTS
    else:
        from ._help import FORMATS, MADE_WITH, PYTHON, TEXTS
    name = argv[0] if len(argv) == 2 else ""
    text = TEXTS.get(name)
    if text is None or not _made_here(MADE_WITH, PYTHON):
        return None
    if name in ("import", "survey") and not _same_formats(FORMATS):
        return None  # a format registered since: typer lists it
    sys.stdout.write(text)
    return exitcodes.OK


def look() -> str | None:
    """PLAIN or COLOUR, the pre-rendered look typer would print here with TERMINAL_WIDTH=80, or
    None where typer must render: POSIX (Windows' legacy console renders its own way), none of
    RENDERING set, UTF-8 out (else ASCII boxes), no catalogue for the language, rich's width at
    least 80 (narrower, typer wraps to it), and colour as rich decides it: stdout a terminal
    whose TERM is not dumb or unknown (there rich renders without colour)."""
    if os.name != "posix" or any(name in os.environ for name in RENDERING):
        return None
    if (getattr(sys.stdout, "encoding", None) or "").lower() != "utf-8" or not _untranslated():
        return None
    if _width() < WIDTH:
        return None
    if not os.isatty(1):
        return PLAIN
    return None if os.environ.get("TERM", "").lower() in ("dumb", "unknown") else COLOUR


def _width() -> int:
    """rich's width with COLUMNS unset: the first of stdin, stdout and stderr that answers a
    terminal's size, 80 where none does or the size is 0 (a pseudo-terminal nobody sized)."""
    for fd in (0, 1, 2):
        try:
            columns = os.get_terminal_size(fd).columns
        except (ValueError, OSError):
            continue
        return columns or WIDTH
    return WIDTH


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
