"""pytest plumbing only: options and fixtures (shared helpers live in tests/helpers.py)."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regen-golden",
        action="store_true",
        default=False,
        help="rewrite the expected files of golden fixtures instead of comparing",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked `long` first, the rest in their order: a parallel run (-n auto) then ends
    on short tests instead of waiting for one worker's pre-commit install or promptfoo runs.
    The sort is stable and the same in every worker, as xdist requires."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.fixture
def regen_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--regen-golden"))


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Compiled check modules go to a cache of the test run's, not the user's."""
    import os

    os.environ.setdefault("ADHD_EVALS_CACHE", str(tmp_path_factory.mktemp("compiled")))
