"""Pre-rendered help (cli.prerendered): served only where it is typer's own text, byte for byte.

The texts in cli/_help.py are typer's output in a fresh process with no terminal on stdin,
stdout or stderr and none of the rendering environment (rich's width is then 80, with no colour).
The long tests compare what `adhd-evals CMD --help` prints with what typer prints, for every
command, in a fresh process each; the quick ones hold each condition under which the texts are
not served (one test per refusal).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.cli import _help, declare, declare_help, prerendered
from adhd_evals.entry import main
from helpers import PARSER_PROBE as FAST
from helpers import unmeasured_environment

NAMES = declare_help.names()
MADE_HERE = all(prerendered._installed(name) == _help.MADE_WITH[name] for name in prerendered.RENDERERS) and (
    sys.version_info[:2] == _help.PYTHON
)
needs_made_here = pytest.mark.skipif(
    not MADE_HERE, reason="the texts were made with other typer/click/rich versions: not served here"
)


def _environment(**extra: str) -> dict[str, str]:
    clean = {k: v for k, v in unmeasured_environment().items() if k not in prerendered.RENDERING}
    return {**clean, "PYTHONIOENCODING": "utf-8", **extra}


def _argv(name: str) -> list[str]:
    return [name, "--help"] if name else ["--help"]


@pytest.mark.long
@needs_made_here
def test_the_help_texts_are_regenerated_byte_for_byte() -> None:
    """cli/_help.py is what `python -m adhd_evals.cli.declare` writes from today's typer app: a
    changed option or help text that was not regenerated fails here."""
    assert declare_help.render() == declare_help.TARGET.read_text(encoding="utf-8")


@pytest.mark.long
@needs_made_here
@pytest.mark.parametrize(
    ("name", "extra"),
    [
        *((name, {}) for name in NAMES),
        # TERM and COLORTERM matter to rich only on a terminal: the same text with them set
        ("", {"TERM": "dumb"}),
        ("import", {"TERM": "xterm-256color", "COLORTERM": "truecolor"}),
        ("agree", {"TERM": "xterm-256color", "LANG": "C"}),
    ],
)
def test_served_help_is_typers_byte_for_byte(tmp_path: Path, name: str, extra: dict[str, str]) -> None:
    """`adhd-evals [CMD] --help` with no terminal prints exactly what typer prints, exits 0 as
    typer does, and imports none of typer, click, rich or pydantic."""
    found = tmp_path / "found.json"
    served = subprocess.run(
        [sys.executable, "-c", FAST, str(found), *_argv(name)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=_environment(**extra),
        timeout=120,
    )
    typers = subprocess.run(
        [sys.executable, "-c", declare_help.TYPER, *_argv(name)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=_environment(**extra),
        timeout=120,
    )
    assert (served.returncode, typers.returncode) == (0, 0), served.stderr + typers.stderr
    assert served.stdout == typers.stdout
    assert json.loads(found.read_text(encoding="utf-8")) == [exitcodes.OK, []]


@pytest.mark.long
def test_with_columns_set_help_is_typers_own(tmp_path: Path) -> None:
    """COLUMNS=100 changes rich's width: typer renders it (the text is 100 wide, not 80)."""
    found = tmp_path / "found.json"
    done = subprocess.run(
        [sys.executable, "-c", FAST, str(found), "validate", "--help"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=_environment(COLUMNS="100"),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert max(len(line) for line in done.stdout.decode("utf-8").splitlines()) == 100
    assert json.loads(found.read_text(encoding="utf-8"))[1] != []


def _no_terminal(fd: int) -> os.terminal_size:
    raise OSError(25, "Inappropriate ioctl for device")


@pytest.fixture
def servable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every condition met: POSIX, no terminal, none of RENDERING, the versions the texts were
    made with (UTF-8 out: `_stdout`, called in the test, as pytest's capture swaps stdout back
    between a fixture and its test)."""
    for name in prerendered.RENDERING:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(os, "isatty", lambda fd: False)
    monkeypatch.setattr(os, "get_terminal_size", _no_terminal)
    monkeypatch.setattr(prerendered, "_made_here", lambda made, python: True)


def _stdout(monkeypatch: pytest.MonkeyPatch, encoding: str = "utf-8") -> io.TextIOWrapper:
    out = io.TextIOWrapper(io.BytesIO(), encoding=encoding)
    monkeypatch.setattr(sys, "stdout", out)
    return out


def _printed(out: io.TextIOWrapper) -> str:
    out.flush()
    raw = out.buffer
    assert isinstance(raw, io.BytesIO)
    return raw.getvalue().decode("utf-8")


@pytest.mark.parametrize("name", ["", "validate", "import", "agree"])
def test_where_nothing_changes_rendering_the_text_is_served(
    servable: None, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """The text typer printed when the texts were made, as it is, with exit 0 (typer's for help)."""
    out = _stdout(monkeypatch)
    assert prerendered.serve(_argv(name)) == exitcodes.OK
    assert _printed(out) == _help.TEXTS[name]


def test_the_entry_point_serves_it(servable: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through adhd-evals' one entry (entry.main -> cli.main): the fast path defers --help, and
    the pre-rendered text answers it."""
    out = _stdout(monkeypatch)
    assert main(["score", "--help"]) == exitcodes.OK
    assert _printed(out) == _help.TEXTS["score"]


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["validate"],
        ["--help", "validate"],  # typer reads this as the listing's --help; not served
        ["validate", "x.jsonl", "--help"],
        ["lint", "--help"],  # lint's own parser
        ["nope", "--help"],
        ["validate", "-h"],
    ],
)
def test_any_other_line_is_left_to_typer(
    servable: None, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    out = _stdout(monkeypatch)
    assert prerendered.serve(argv) is None
    assert _printed(out) == ""


@pytest.mark.parametrize("variable", prerendered.RENDERING)
def test_with_rendering_environment_set_typer_renders(
    servable: None, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """Each variable typer, click or rich reads to change the rendering, even set empty."""
    _stdout(monkeypatch)
    monkeypatch.setenv(variable, "")
    assert prerendered.serve(["validate", "--help"]) is None


@pytest.mark.parametrize("terminal", [0, 1, 2])
def test_with_a_narrower_terminal_on_any_standard_stream_typer_renders(
    servable: None, monkeypatch: pytest.MonkeyPatch, terminal: int
) -> None:
    """rich reads its width from whichever of stdin, stdout and stderr is a terminal: 79 columns
    there, typer wraps to them (a terminal 80 wide or more: tests/test_help_terminal_served.py)."""
    _stdout(monkeypatch)

    def size(fd: int) -> os.terminal_size:
        if fd != terminal:
            raise OSError(25, "Inappropriate ioctl for device")
        return os.terminal_size((79, 24))

    monkeypatch.setattr(os, "isatty", lambda fd: fd == terminal)
    monkeypatch.setattr(os, "get_terminal_size", size)
    assert prerendered.serve(["validate", "--help"]) is None


def test_output_not_in_utf8_is_left_to_typer(monkeypatch: pytest.MonkeyPatch, servable: None) -> None:
    """rich draws ASCII boxes for an output that cannot hold its box characters."""
    _stdout(monkeypatch, "latin-1")
    assert prerendered.serve(["validate", "--help"]) is None


def test_off_posix_typer_renders(monkeypatch: pytest.MonkeyPatch, servable: None) -> None:
    """Windows' legacy console renders its own way (one column narrower)."""
    _stdout(monkeypatch)
    monkeypatch.setattr(os, "name", "nt")
    assert prerendered.serve(["validate", "--help"]) is None


def test_with_a_format_registered_since_import_help_is_typers(
    monkeypatch: pytest.MonkeyPatch, servable: None
) -> None:
    """import and survey list the catalogue's formats: one more registered, typer lists it;
    validate's help names none, so it is still served."""
    from adhd_evals.importing import catalogue

    _stdout(monkeypatch)
    monkeypatch.setattr(catalogue, "REGISTERED", (*catalogue.REGISTERED, "toy.module"))
    assert prerendered.serve(["import", "--help"]) is None
    assert prerendered.serve(["survey", "--help"]) is None
    assert prerendered.serve(["validate", "--help"]) == exitcodes.OK


def test_other_versions_are_not_served() -> None:
    """Made with typer 0.29.2, click 8.5.1, rich 15.0.0 on Python 3.11 (worked from the dict given,
    not the environment): one version off, or another Python, is not the same text."""
    made = {name: prerendered._installed(name) or "" for name in prerendered.RENDERERS}
    python = (sys.version_info[0], sys.version_info[1])
    assert prerendered._made_here(made, python)
    assert not prerendered._made_here({**made, "rich": "0.0.1"}, python)
    assert not prerendered._made_here(made, (2, 7))


def _site(root: Path, *folders: str) -> Path:
    for folder in folders:
        (root / folder).mkdir(parents=True)
    return root


def test_a_version_is_read_from_the_dist_info_beside_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first sys.path entry holding pkg/__init__.py decides: its one pkg-1.2.dist-info says
    1.2; none there (an editable install) or two says nothing; a package nowhere, nothing."""
    first = _site(tmp_path / "a", "pkg", "pkg-1.2.dist-info", "pkgx-9.dist-info")
    (first / "pkg" / "__init__.py").write_text("")
    second = _site(tmp_path / "b", "pkg", "pkg-3.0.dist-info")
    (second / "pkg" / "__init__.py").write_text("")
    bare = _site(tmp_path / "c", "pkg")
    (bare / "pkg" / "__init__.py").write_text("")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "empty"), str(first), str(second)])
    assert prerendered._installed("pkg") == "1.2"
    monkeypatch.setattr(sys, "path", [str(bare), str(second)])
    assert prerendered._installed("pkg") is None
    (first / "pkg-1.3.dist-info").mkdir()
    monkeypatch.setattr(sys, "path", [str(first)])
    assert prerendered._installed("pkg") is None
    assert prerendered._installed("absent") is None
    archive = tmp_path / "packages.zip"  # a zip on the path may hold pkg: where from is not told
    archive.write_bytes(b"")
    monkeypatch.setattr(sys, "path", [str(archive), str(second)])
    assert prerendered._installed("pkg") is None


def test_the_generator_writes_every_text_with_its_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """render() with typer's output stubbed (each text its own name): one entry per command but
    lint, the top level first, each text split at its line ends; the file compiles to that. The
    terminal's module beside it: the same versions and names, its own (stubbed) texts."""
    monkeypatch.setattr(declare_help, "helped", lambda argv: f'{" ".join(argv)}\nsecond "line"\n')
    monkeypatch.setattr(declare_help, "helped_in_terminal", lambda argv: f"\x1b[1m{' '.join(argv)}\x1b[0m\n")
    monkeypatch.setattr(declare_help, "TARGET", tmp_path / "_help.py")
    monkeypatch.setattr(declare_help, "TERMINAL_TARGET", tmp_path / "_help_terminal.py")
    monkeypatch.setattr(declare, "TARGET", tmp_path / "_declared.py")
    assert declare.main([]) == exitcodes.OK
    namespace: dict[str, object] = {}
    exec((tmp_path / "_help.py").read_text(encoding="utf-8"), namespace)
    texts = namespace["TEXTS"]
    assert isinstance(texts, dict) and list(texts)[:3] == ["", "import", "survey"] and "lint" not in texts
    assert texts["validate"] == 'validate --help\nsecond "line"\n'
    assert namespace["MADE_WITH"] == {name: prerendered._installed(name) for name in prerendered.RENDERERS}
    assert (tmp_path / "_declared.py").read_text(encoding="utf-8") == declare.render(declare.declarations())
    coloured: dict[str, object] = {}
    exec((tmp_path / "_help_terminal.py").read_text(encoding="utf-8"), coloured)
    assert coloured["MADE_WITH"] == namespace["MADE_WITH"] and coloured["FORMATS"] == namespace["FORMATS"]
    terminal_texts = coloured["TEXTS"]
    assert isinstance(terminal_texts, dict) and list(terminal_texts) == list(texts)
    assert terminal_texts["validate"] == "\x1b[1mvalidate --help\x1b[0m\n"


def test_without_installed_versions_nothing_is_generated(monkeypatch: pytest.MonkeyPatch) -> None:
    """An editable typer (no dist-info beside it): the texts could not be told apart, so none."""
    monkeypatch.setattr(declare_help, "_installed", lambda name: None)
    with pytest.raises(RuntimeError, match="cannot tell the installed versions"):
        declare_help.render()


def test_typers_help_is_read_with_no_terminal() -> None:
    """One real call of the generator's reader: typer's validate --help, 80 wide, no colour."""
    text = declare_help.helped(["validate", "--help"])
    assert " Usage: adhd-evals validate [OPTIONS] [cases] " in text and "\x1b[" not in text
    assert {len(line) for line in text.splitlines()} == {0, 80}  # the last line is empty


def test_where_python_has_a_catalogue_for_the_language_typer_renders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, servable: None
) -> None:
    """typer's and click's words go through gettext's "messages" under Python's share/locale: a
    catalogue there for the language in LANGUAGE may translate them, so typer renders; the folder
    there without one, or absent, changes nothing."""
    _stdout(monkeypatch)
    monkeypatch.setattr(sys, "base_prefix", str(tmp_path))
    assert prerendered.serve(["validate", "--help"]) == exitcodes.OK  # no share/locale at all
    catalogues = tmp_path / "share" / "locale" / "xx" / "LC_MESSAGES"
    catalogues.mkdir(parents=True)
    monkeypatch.setenv("LANGUAGE", "xx")
    assert prerendered.serve(["validate", "--help"]) == exitcodes.OK  # a folder, no catalogue
    (catalogues / "messages.mo").write_bytes(b"")
    assert prerendered.serve(["validate", "--help"]) is None
