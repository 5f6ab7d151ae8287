"""The layer contracts (pyproject's [tool.importlinter]) hold, cover every module, and are the
ones docs/architecture.md describes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers import ROOT

tomllib = pytest.importorskip("tomllib")  # Python 3.11+; 3.10 runs lint-imports in .ci/run alone
PACKAGE = ROOT / "src" / "adhd_evals"
PAGE = ROOT / "docs" / "architecture.md"


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, Any]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def _layered() -> list[str]:
    """Every module the layers contract names, in order, without the package prefix."""
    (layers,) = [c["layers"] for c in _contracts() if c["id"] == "layers"]
    return [name.strip().removeprefix("adhd_evals.") for layer in layers for name in layer.split(":")]


def test_every_top_level_module_sits_in_a_layer() -> None:
    """A module the layers contract does not name is not checked at all: each of the
    package's own modules and subpackages (its __init__ aside) is named, once."""
    own = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    own |= {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    named = _layered()
    assert sorted(named) == sorted(own)


def test_the_page_names_every_layered_module() -> None:
    text = PAGE.read_text(encoding="utf-8")
    missing = [name for name in _layered() if name not in text]
    assert not missing, f"docs/architecture.md does not place {missing}"


def test_every_seam_is_an_exact_import() -> None:
    """No blanket exclusion: each ignored import names two modules, no wildcard."""
    for contract in _contracts():
        for line in contract.get("ignore_imports", []):
            importer, _, imported = line.partition(" -> ")
            assert importer.startswith("adhd_evals.") and imported.startswith("adhd_evals."), line
            assert "*" not in line, line


@pytest.mark.long
def test_the_contracts_hold() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    if not lint_imports.exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    done = subprocess.run(
        [str(lint_imports), "--no-cache", "--no-logo"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(_contracts())} kept, 0 broken" in done.stdout


def test_lint_stands_above_importing_with_no_exception() -> None:
    """Issue 36: a layers contract puts lint above importing, and no contract declares an
    import between the two (nor from the core up into lint) as an exception."""
    (above,) = [c for c in _contracts() if c["id"] == "lint-above-importing"]
    assert (above["type"], above["layers"]) == ("layers", ["adhd_evals.lint", "adhd_evals.importing"])
    crossing = [
        line
        for contract in _contracts()
        for line in contract.get("ignore_imports", [])
        if ".lint" in line or ("importing" in line.split(" -> ")[0] and ".lint" in line)
    ]
    assert crossing == []
