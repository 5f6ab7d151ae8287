"""runs/ is split by stage (issue 36): each module sits in one stage package, the stages' layers
contract in pyproject.toml names every stage, and docs/architecture.md places each stage and module.

The contract itself is checked by `lint-imports` (tests/test_layers.py runs it); these tests say
what a reader of the contract and the page can rely on."""

from __future__ import annotations

from typing import Any

import pytest

from helpers import ROOT

tomllib = pytest.importorskip("tomllib")  # Python 3.11+; 3.10 runs lint-imports in .ci/run alone
RUNS = ROOT / "src" / "adhd_evals" / "runs"
PAGE = ROOT / "docs" / "architecture.md"
# the stages as the page draws them, top to bottom (worked from each module's imports: a module
# imports only from its own stage and the stages below it)
STAGES = ["reporting", "running", "deciding", "judging", "calling", "inference"]
SHAPES = ["rows", "summaries", "types", "rubric"]  # the shapes every stage reads, as layered


def _stages_contract() -> dict[str, Any]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "runs-stages"]
    return dict(contract)


def _named(contract: dict[str, Any]) -> list[str]:
    layers: list[str] = contract["layers"]
    return [name.strip() for layer in layers for name in layer.replace("|", ":").split(":")]


def test_runs_holds_only_stage_packages_and_the_row_shapes() -> None:
    """No module of runs/ lies outside a stage: the top holds the stage packages and the
    modules every stage reads (rows, summaries, types, rubric), nothing else."""
    modules = sorted(p.stem for p in RUNS.glob("*.py") if p.stem != "__init__")
    packages = sorted(p.name for p in RUNS.iterdir() if (p / "__init__.py").exists())
    assert modules == sorted(SHAPES)
    assert packages == sorted(STAGES)


def test_the_contract_names_every_stage_once_and_is_exhaustive() -> None:
    contract = _stages_contract()
    assert contract["type"] == "layers"
    assert contract["containers"] == ["adhd_evals.runs"]
    assert contract["exhaustive"] is True
    assert "ignore_imports" not in contract
    assert sorted(_named(contract)) == sorted(STAGES + SHAPES)


def test_the_contract_orders_the_stages_as_the_page_draws_them() -> None:
    """reporting and running on top (independent of each other), then deciding, judging, then
    calling and inference (independent), then the row shapes and the vocabulary."""
    assert _stages_contract()["layers"] == [
        "reporting | running",
        "deciding",
        "judging",
        "calling | inference",
        "rows",
        "summaries",
        "types",
        "rubric",
    ]


@pytest.mark.parametrize("stage", STAGES)
def test_the_page_places_each_stage_and_its_modules(stage: str) -> None:
    """Each stage has its entry on the page, naming every module it holds."""
    text = PAGE.read_text(encoding="utf-8")
    assert f"### `runs/{stage}/`" in text
    section = text.split(f"### `runs/{stage}/`", 1)[1].split("\n#", 1)[0]
    modules = sorted(p.stem for p in (RUNS / stage).glob("*.py") if p.stem != "__init__")
    assert modules
    missing = [m for m in modules if f"`{m}.py`" not in section]
    assert not missing, f"the {stage} section does not name {missing}"
