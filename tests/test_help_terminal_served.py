"""Pre-rendered help at a terminal (cli.prerendered.look): where rich's width is 80 or more,
`--help` is typer's own text as typer prints it with TERMINAL_WIDTH=80, in colour when stdout
is a terminal, without colour when it is not; anywhere else typer renders.

The quick tests hold each rule of `look` with the terminal faked (one test per rule). The long
ones run the real thing on a pseudo-terminal (declare_help.in_terminal: raw, so the bytes are
the program's own): what `adhd-evals [CMD] --help` writes there against what typer writes on a
terminal of the same size, byte for byte, for every command.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.cli import _help, _help_terminal, declare_help, prerendered
from helpers import PARSER_PROBE as FAST
from helpers import unmeasured_environment

NAMES = declare_help.names()
MADE_HERE = all(
    prerendered._installed(name) == _help_terminal.MADE_WITH[name] for name in prerendered.RENDERERS
) and (sys.version_info[:2] == _help_terminal.PYTHON)
needs_made_here = pytest.mark.skipif(
    not MADE_HERE, reason="the texts were made with other typer/click/rich versions: not served here"
)
needs_posix = pytest.mark.skipif(os.name != "posix", reason="pseudo-terminals are POSIX's")


# -- the rules of `look`, the terminal faked ------------------------------------------------


def _sizes(
    monkeypatch: pytest.MonkeyPatch, sizes: dict[int, int], *, stdout_terminal: bool
) -> io.TextIOWrapper:
    """Standard streams `sizes` (fd: columns) are terminals of that width, the others are not;
    stdout is a terminal to isatty exactly when `stdout_terminal`, and writes UTF-8 to the buffer
    returned (set here, in the test: pytest's capture swaps stdout back after a fixture)."""

    def size(fd: int) -> os.terminal_size:
        if fd not in sizes:
            raise OSError(25, "Inappropriate ioctl for device")
        return os.terminal_size((sizes[fd], 24))

    monkeypatch.setattr(os, "get_terminal_size", size)
    monkeypatch.setattr(os, "isatty", lambda fd: fd == 1 and stdout_terminal)
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", out)
    return out


@pytest.fixture
def utf8(monkeypatch: pytest.MonkeyPatch) -> None:
    """POSIX, none of RENDERING, TERM an ordinary one, the texts' own versions."""
    for name in prerendered.RENDERING:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setattr(prerendered, "_made_here", lambda made, python: True)


def test_with_no_terminal_the_look_is_plain(utf8: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """No stream answers a size: rich's width is 80, stdout no terminal, so no colour."""
    _sizes(monkeypatch, {}, stdout_terminal=False)
    assert prerendered.look() == prerendered.PLAIN


@pytest.mark.parametrize("columns", [80, 81, 250])
def test_stdout_a_terminal_80_or_wider_is_in_colour(
    utf8: None, monkeypatch: pytest.MonkeyPatch, columns: int
) -> None:
    """80 columns is the texts' own width; wider, typer with TERMINAL_WIDTH=80 prints the same."""
    _sizes(monkeypatch, {0: columns, 1: columns, 2: columns}, stdout_terminal=True)
    assert prerendered.look() == prerendered.COLOUR


@pytest.mark.parametrize("columns", [1, 40, 79])
def test_a_terminal_narrower_than_80_is_typers(
    utf8: None, monkeypatch: pytest.MonkeyPatch, columns: int
) -> None:
    """rich wraps to a narrower width: no pre-rendered text is that."""
    _sizes(monkeypatch, {0: columns, 1: columns, 2: columns}, stdout_terminal=True)
    assert prerendered.look() is None


def test_a_terminal_of_size_0_is_80_wide(utf8: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pseudo-terminal nobody sized (script run without a terminal) answers 0: rich takes 80."""
    _sizes(monkeypatch, {0: 0, 1: 0, 2: 0}, stdout_terminal=True)
    assert prerendered.look() == prerendered.COLOUR


def test_the_first_stream_that_answers_gives_the_width(utf8: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """rich asks stdin, stdout, stderr in that order and takes the first answer: stdin 79 wide
    decides against a wide stdout; stdin not a terminal, stdout's 100 decides against stderr's 79."""
    _sizes(monkeypatch, {0: 79, 1: 100}, stdout_terminal=True)
    assert prerendered.look() is None
    _sizes(monkeypatch, {1: 100, 2: 79}, stdout_terminal=True)
    assert prerendered.look() == prerendered.COLOUR


def test_a_terminal_on_stdin_alone_is_plain(utf8: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """`adhd-evals --help | less`: stdout is no terminal, so no colour; the width is stdin's, and
    120 is served the 80-wide text (typer's with TERMINAL_WIDTH=80), 79 is typer's."""
    _sizes(monkeypatch, {0: 120}, stdout_terminal=False)
    assert prerendered.look() == prerendered.PLAIN
    _sizes(monkeypatch, {0: 79}, stdout_terminal=False)
    assert prerendered.look() is None


@pytest.mark.parametrize("term", ["dumb", "unknown", "DUMB"])
def test_a_dumb_terminal_is_typers(utf8: None, monkeypatch: pytest.MonkeyPatch, term: str) -> None:
    """rich treats TERM dumb or unknown (any case) on a terminal as colourless: not a look made."""
    monkeypatch.setenv("TERM", term)
    _sizes(monkeypatch, {0: 80, 1: 80, 2: 80}, stdout_terminal=True)
    assert prerendered.look() is None


def test_a_dumb_term_off_a_terminal_changes_nothing(utf8: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """rich reads TERM only when stdout is a terminal: piped, TERM=dumb is plain as before."""
    monkeypatch.setenv("TERM", "dumb")
    _sizes(monkeypatch, {}, stdout_terminal=False)
    assert prerendered.look() == prerendered.PLAIN


@pytest.mark.parametrize("variable", ["NO_COLOR", "FORCE_COLOR", "COLUMNS", "TERMINAL_WIDTH"])
def test_at_a_terminal_the_rendering_environment_is_typers(
    utf8: None, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """The variables that change colour or width are typer's to honour at a terminal too."""
    monkeypatch.setenv(variable, "1")
    _sizes(monkeypatch, {0: 100, 1: 100, 2: 100}, stdout_terminal=True)
    assert prerendered.look() is None


@pytest.mark.parametrize("name", ["", "validate", "import"])
def test_in_colour_the_terminals_text_is_printed(
    utf8: None, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """serve prints the terminal module's text (not the plain one) and exits 0, as typer does."""
    out = _sizes(monkeypatch, {0: 100, 1: 100, 2: 100}, stdout_terminal=True)
    assert prerendered.serve([name, "--help"] if name else ["--help"]) == exitcodes.OK
    out.flush()
    raw = out.buffer
    assert isinstance(raw, io.BytesIO)
    assert raw.getvalue().decode("utf-8") == _help_terminal.TEXTS[name] != _help.TEXTS[name]


# -- the real thing, on a pseudo-terminal --------------------------------------------------


def _environment(**extra: str) -> dict[str, str]:
    kept = unmeasured_environment()
    drop = {*prerendered.RENDERING, "COLORTERM", "TERM"}
    return {**{k: v for k, v in kept.items() if k not in drop}, "PYTHONIOENCODING": "utf-8", **extra}


def _argv(name: str) -> list[str]:
    return [name, "--help"] if name else ["--help"]


def _served(tmp_path: Path, name: str, columns: int, **extra: str) -> tuple[bytes, list[object]]:
    """What `adhd-evals [NAME] --help` writes on a terminal `columns` wide, and [exit, parsers]."""
    found = tmp_path / "found.json"
    code, written = declare_help.in_terminal(
        [sys.executable, "-c", FAST, str(found), *_argv(name)], columns=columns, env=_environment(**extra)
    )
    assert code == 0, written
    probe = json.loads(found.read_text(encoding="utf-8"))
    assert isinstance(probe, list)
    return written, probe


def _typers(name: str, columns: int, **extra: str) -> bytes:
    """What typer writes for [NAME] --help on a terminal `columns` wide (exit 0)."""
    code, written = declare_help.in_terminal(
        [sys.executable, "-c", declare_help.TYPER, *_argv(name)], columns=columns, env=_environment(**extra)
    )
    assert code == 0, written
    return written


@pytest.mark.long
@needs_posix
@needs_made_here
def test_the_terminal_texts_are_regenerated_byte_for_byte() -> None:
    """cli/_help_terminal.py is what `python -m adhd_evals.cli.declare` writes from today's app."""
    assert declare_help.render_terminal() == declare_help.TERMINAL_TARGET.read_text(encoding="utf-8")


@pytest.mark.long
@needs_posix
@needs_made_here
@pytest.mark.parametrize("name", NAMES)
def test_on_an_80_column_terminal_served_help_is_typers(tmp_path: Path, name: str) -> None:
    """Every command's help on a terminal 80 wide: typer's bytes (escape codes and all), exit 0,
    and none of typer, click, rich or pydantic imported."""
    written, probe = _served(tmp_path, name, 80, TERM="xterm-256color")
    assert probe == [exitcodes.OK, []]
    assert written == _typers(name, 80, TERM="xterm-256color")
    assert b"\x1b[" in written


@pytest.mark.long
@needs_posix
@needs_made_here
@pytest.mark.parametrize(
    "terminal",
    [
        {},
        {"TERM": "xterm"},
        {"TERM": "xterm-kitty"},
        {"TERM": "xterm-16color"},
        {"TERM": "linux"},
        {"TERM": "xterm", "COLORTERM": "truecolor"},
        {"TERM": "screen-256color", "COLORTERM": "24bit", "LANG": "C"},
    ],
)
def test_under_every_colour_system_the_same_bytes(tmp_path: Path, terminal: dict[str, str]) -> None:
    """rich picks standard, 256 or truecolor from TERM and COLORTERM (TERM unset: standard);
    typer's styles are standard colours, written alike under each: typer's own bytes each time."""
    written, probe = _served(tmp_path, "score", 80, **terminal)
    assert probe == [exitcodes.OK, []]
    assert written == _typers("score", 80, **terminal)


@pytest.mark.long
@needs_posix
@needs_made_here
def test_on_a_wider_terminal_help_is_typers_at_terminal_width_80(tmp_path: Path) -> None:
    """200 columns: the text is typer's with TERMINAL_WIDTH=80 on that terminal, not typer's
    full-width one (the documented change: panels 80 wide, docs/startup.md)."""
    written, probe = _served(tmp_path, "validate", 200, TERM="xterm")
    assert probe == [exitcodes.OK, []]
    assert written == _typers("validate", 200, TERM="xterm", TERMINAL_WIDTH="80")
    assert written != _typers("validate", 200, TERM="xterm")


@pytest.mark.long
@needs_posix
@needs_made_here
def test_on_a_terminal_nobody_sized_help_is_typers(tmp_path: Path) -> None:
    """A pseudo-terminal of 0 columns (`script` run from no terminal): rich takes 80, as served."""
    written, probe = _served(tmp_path, "", 0, TERM="xterm")
    assert probe == [exitcodes.OK, []]
    assert written == _typers("", 0, TERM="xterm")


@pytest.mark.long
@needs_posix
@pytest.mark.parametrize(
    ("columns", "term", "wide", "coloured"), [(79, "xterm", 79, True), (100, "dumb", 80, False)]
)
def test_narrower_or_dumb_typer_renders(
    tmp_path: Path, columns: int, term: str, wide: int, coloured: bool
) -> None:
    """79 columns (typer wraps to 79, in colour) or TERM=dumb on 100 (rich: 80 wide, no colour):
    typer is asked (its parser imported), and prints its help."""
    written, probe = _served(tmp_path, "validate", columns, TERM=term)
    assert probe[0] == exitcodes.OK and probe[1] != []
    text = written.decode("utf-8")
    assert ("\x1b[" in text) is coloured
    shown = re.sub("\x1b\\[[0-9;]*m", "", text)
    assert "Usage: adhd-evals validate" in shown
    assert max(len(line) for line in shown.splitlines()) == wide


@pytest.mark.long
@needs_posix
@needs_made_here
def test_piped_from_a_wide_terminal_help_is_the_plain_text(tmp_path: Path) -> None:
    """`adhd-evals validate --help | less` from a terminal 120 wide: stdout a pipe (no colour),
    rich's width stdin's; the plain text is typer's with TERMINAL_WIDTH=80 there."""
    found = tmp_path / "found.json"
    code, written = declare_help.in_terminal(
        [sys.executable, "-c", FAST, str(found), "validate", "--help"],
        columns=120,
        env=_environment(TERM="xterm"),
        output=False,
    )
    assert (code, json.loads(found.read_text(encoding="utf-8"))) == (0, [exitcodes.OK, []])
    typers = declare_help.in_terminal(
        [sys.executable, "-c", declare_help.TYPER, "validate", "--help"],
        columns=120,
        env=_environment(TERM="xterm", TERMINAL_WIDTH="80"),
        output=False,
    )
    assert written.decode("utf-8") == _help.TEXTS["validate"]
    assert typers == (0, written)


def test_a_child_that_writes_nothing_in_time_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """The generator's reader waits PATIENCE seconds for each write (here 0.2) and then fails
    rather than hang: a child that sleeps and writes nothing."""
    monkeypatch.setattr(declare_help, "PATIENCE", 0.2)
    with pytest.raises(TimeoutError, match="nothing written"):
        declare_help.in_terminal(
            [sys.executable, "-c", "import time; time.sleep(1)"], columns=80, env=_environment()
        )


def test_a_child_that_fails_fails_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    """typer's help exits 0: anything else is no text to keep (here a child exiting 2)."""
    monkeypatch.setattr(declare_help, "TYPER", "import sys; print('no'); sys.exit(2)")
    with pytest.raises(RuntimeError, match="exited 2"):
        declare_help.helped_in_terminal(["--help"])


def test_what_the_terminal_is_sent_is_read_byte_for_byte() -> None:
    """A child writing b'a\\nb' and exiting 3 on a raw terminal: those bytes (no carriage return
    added, as a cooked terminal would) and 3."""
    code = "import os, sys; os.write(1, b'a\\nb'); sys.exit(3)"
    assert declare_help.in_terminal([sys.executable, "-c", code], columns=80, env=_environment()) == (
        3,
        b"a\nb",
    )


def test_a_terminal_closed_at_end_of_file_is_read_whole() -> None:
    """Where the last writer's close reads as end of file, not EIO (BSD's terminals; here a
    pipe): every byte written before it, in order."""
    read_end, write_end = os.pipe()
    os.write(write_end, b"one\ntwo")
    os.close(write_end)
    with os.fdopen(read_end, "rb", buffering=0) as terminal:
        assert declare_help._drained(terminal) == b"one\ntwo"
