"""The watchdog module is run as a script (`python -I -S watchdog.py --watch ...`, see
process._start_watchdog): run that way no package is importable, so it must stand alone."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from adhd_evals.runs.calling import watchdog

SCRIPT = watchdog.__file__


def _imported(tree: ast.Module) -> list[str]:
    """The top-level name of every module the file imports ('.' for a relative import)."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names.append("." if node.level else (node.module or "").split(".")[0])
    return names


def test_the_script_imports_only_the_standard_library() -> None:
    """Every import in the file, wherever it sits (a TYPE_CHECKING block included), names a
    standard library module: none of the package, relative or absolute."""
    with open(SCRIPT, encoding="utf-8") as stream:
        tree = ast.parse(stream.read())
    imported = _imported(tree)
    assert imported, "the walk found the file's imports"
    assert [name for name in imported if name not in sys.stdlib_module_names] == []


def test_the_import_walk_sees_what_would_break_the_script() -> None:
    """The walk above counts a relative import and the package itself (worked by hand: three
    imports, `os`, `.` and `adhd_evals`), so the test above can fail."""
    tree = ast.parse("import os\nfrom . import process\nfrom adhd_evals.runs import types\n")
    assert _imported(tree) == ["os", ".", "adhd_evals"]


@pytest.mark.skipif(not watchdog.LINUX, reason="the watchdog runs on Linux only")
def test_the_script_runs_isolated_and_leaves_at_its_owners_goodbye(tmp_path: Path) -> None:
    """Launched as process._start_watchdog launches it (isolated, no site), with an owner that is
    alive (this test) and nothing known before: one goodbye byte and it exits 0 at once, its
    owner's scratch folders untouched (a goodbye is not a death)."""
    kept = tmp_path / f"{watchdog.SCRATCH_PREFIX}{watchdog.owner()}-kept"
    kept.mkdir()
    watcher = subprocess.Popen(
        [sys.executable, "-I", "-S", SCRIPT, "--watch", watchdog.owner(), str(tmp_path), ""],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _, err = watcher.communicate(b"x", timeout=30)
    assert (watcher.returncode, err) == (0, b"")
    assert kept.is_dir()
