"""Each good fixture imports to its expected catalog and check module, byte for byte.

Adding a folder under fixtures/<format>/good/ adds a test. Regenerate the
expected files only with `pytest --regen-golden`, then review the diff.
"""

from __future__ import annotations

import ast
import json

import libcst
import pytest

from adhd_evals.catalog import case_problems, validate_lines
from adhd_evals.importing.importer import import_source
from helpers import Fixture, fixture_params


@pytest.mark.parametrize("fixture", fixture_params("good"))
def test_good_fixture_matches_golden(fixture: Fixture, regen_golden: bool) -> None:
    outcome = import_source(
        fixture.format,
        fixture.source,
        display=fixture.display,
        dialect=fixture.dialect(),
        **fixture.meta["args"],
    )
    expected = fixture.folder / "expected"
    if regen_golden:
        expected.mkdir(exist_ok=True)
        (expected / "cases.jsonl").write_text(outcome.catalog, encoding="utf-8")
        (expected / "checks.py").write_text(outcome.module, encoding="utf-8")
        pytest.skip("golden files regenerated: review the diff")
    assert outcome.catalog == (expected / "cases.jsonl").read_text(encoding="utf-8")
    assert outcome.module == (expected / "checks.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("fixture", fixture_params("good"))
def test_good_fixture_catalog_follows_the_five_field_rules(fixture: Fixture) -> None:
    outcome = import_source(
        fixture.format,
        fixture.source,
        display=fixture.display,
        dialect=fixture.dialect(),
        **fixture.meta["args"],
    )
    count, problems = validate_lines(outcome.catalog.splitlines())
    assert problems == []
    assert count == len(outcome.result.cases) > 0
    for line in outcome.catalog.splitlines():
        row = json.loads(line)
        assert list(row) == ["id", "category", "prompt", "risk", "criteria"]
        assert case_problems(row) == []


@pytest.mark.parametrize("fixture", fixture_params("good"))
def test_good_fixture_module_compiles_and_registers_every_criterion(fixture: Fixture) -> None:
    outcome = import_source(
        fixture.format,
        fixture.source,
        display=fixture.display,
        dialect=fixture.dialect(),
        **fixture.meta["args"],
    )
    namespace: dict[str, object] = {}
    exec(compile(outcome.module, "checks.py", "exec"), namespace)
    registered = namespace["CHECKS"]
    assert isinstance(registered, dict)
    for case in outcome.result.cases:
        assert [criterion for criterion, _ in registered[case.id]] == case.criteria
    ast.parse(outcome.module)
    assert libcst.parse_module(outcome.module).code == outcome.module  # round-trips unchanged
