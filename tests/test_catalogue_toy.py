"""A format is one module and one registration line (issue 36, item 1).

`tests/fakes/catalogue_toy.py` declares a toy format (`*.toy` by name; a `*.txt` whose first
line is `TOY CASES` by its content; the hook's `evals/*.toy`; refused with CaseFileEmpty;
its own module as its reader). Each test adds it with the one line a real format adds to
the catalogue's `REGISTERED`, and finds it in every place that knows formats: detection by
name and by shape, lint's selection of a folder's files, the look-alike hint of a file
refused under another --format, `import --help`'s choices (and the import itself), the hook's
`files:` pattern and the docs' table. Every expected value is read off the toy's declaration
and its two-line files, not off the code under test.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from adhd_evals.entry import main
from adhd_evals.importing import catalogue
from adhd_evals.importing.formats import READERS
from adhd_evals.lint import lint_paths
from helpers import ROOT

TOY = "fakes.catalogue_toy"
TESTS = Path(__file__).resolve().parent


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registration line, as a format adds it to `REGISTERED`."""
    monkeypatch.setattr(catalogue, "REGISTERED", (*catalogue.REGISTERED, TOY))


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A .toy file, a .txt that is a toy case list by its first line, and a .txt that is not."""
    (tmp_path / "evals").mkdir()
    named = tmp_path / "evals" / "greetings.toy"
    named.write_text("TOY CASES\nhello: Say hello.\n", encoding="utf-8")
    shaped = tmp_path / "evals" / "more.txt"
    shaped.write_text("TOY CASES\nbye: Say goodbye.\n", encoding="utf-8")
    other = tmp_path / "evals" / "notes.txt"
    other.write_text("not a toy\n", encoding="utf-8")
    return named, shaped, other


@pytest.mark.usefixtures("toy")
def test_detected_by_name_and_by_shape(tmp_path: Path) -> None:
    """`*.toy` by name; a `.txt` by its `TOY CASES` line, in a folder or named; a `.txt` without
    it is nothing in a folder and, named, still nothing (the toy declares no if_named)."""
    named, shaped, other = _files(tmp_path)
    assert catalogue.format_of(named, explicit=False) == "toy"
    assert catalogue.format_of(shaped, explicit=False) == "toy"
    assert catalogue.format_of(shaped, explicit=True) == "toy"
    assert catalogue.format_of(other, explicit=False) is None
    assert catalogue.format_of(other, explicit=True) is None
    assert "toy" in READERS and list(READERS)[-1] == "toy"


@pytest.mark.usefixtures("toy")
def test_lint_selects_and_reads_its_files(tmp_path: Path) -> None:
    """lint on the folder reads the two toy files (one case each) and passes notes.txt over;
    a toy file with no case line is reported with the toy's refusal, at 1:1."""
    named, _, _ = _files(tmp_path)
    report = lint_paths([tmp_path / "evals"])
    assert (report.files, report.cases, report.problems) == (2, 2, [])
    named.write_text("TOY CASES\n", encoding="utf-8")
    problems = lint_paths([named]).problems
    assert [(p.line, p.column, p.code) for p in problems] == [(1, 1, "CaseFileEmpty")]


@pytest.mark.usefixtures("toy")
def test_refused_under_another_format_the_hint_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """greetings.toy imported as evals-json is not JSON (exit 12); the toy reads it, so the
    hint names the toy in its declared words."""
    named, _, _ = _files(tmp_path)
    assert main(["import", "--format", "evals-json", str(named)]) == 12
    assert "greetings.toy looks like a toy case list: try --format toy" in capsys.readouterr().err


def test_import_help_lists_it_and_import_reads_it(tmp_path: Path) -> None:
    """In a fresh interpreter, the line runs before the CLI loads (as a registration in the
    catalogue does): typer's `import --help` offers `toy` after the six real formats, and
    `import --format toy` writes the two cases (ids and prompts from the file's lines)."""
    named, _, _ = _files(tmp_path)
    probe = (
        "import sys\n"
        "from adhd_evals.importing import catalogue\n"
        f"catalogue.REGISTERED = (*catalogue.REGISTERED, {TOY!r})\n"
        "from adhd_evals.cli import app\n"
        "from adhd_evals.entry import main\n"
        "if sys.argv[1] == 'help':\n"
        "    app(['import', '--help'], prog_name='adhd-evals')\n"
        "sys.exit(main(['import', '--format', 'toy', sys.argv[1]]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(TESTS), "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
    shown = subprocess.run([sys.executable, "-c", probe, "help"], capture_output=True, text=True, env=env)
    assert "<evals-json|yaml|evalflow|promptfoo|plugin-eval|trigger-list|toy>" in shown.stdout
    done = subprocess.run([sys.executable, "-c", probe, str(named)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert '"id": "hello"' in done.stdout and '"prompt": "Say hello."' in done.stdout


@pytest.mark.usefixtures("toy")
@pytest.mark.parametrize(
    ("path", "matched"),
    [
        ("evals/greetings.toy", True),
        ("pkg/evals/a.toy", True),
        ("greetings.toy", False),
        ("evals/a/b.toy", False),
    ],
)
def test_the_hook_selects_its_files(path: str, matched: bool) -> None:
    """The toy's hook glob `evals/*.toy`: a .toy directly in an evals/ folder, anywhere."""
    assert bool(re.search(catalogue.hook_pattern(), path)) is matched


@pytest.mark.usefixtures("toy")
def test_the_docs_table_has_its_row() -> None:
    """docs/hook.md as the site builds it: the toy's row, from its declaration, after the
    real formats' rows."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "mkdocs_hooks", ROOT / "docs" / "_hooks" / "mkdocs_hooks.py"
    )
    assert spec is not None and spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    page: str = hooks.render((ROOT / "docs" / "hook.md").read_text(encoding="utf-8"))
    row = "| `toy` | a toy case list | `evals/*.toy` | `*.toy`, `*.txt` by their content | `CaseFileEmpty` |"
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert rows.index(row) == len(catalogue.REGISTERED) - 1
