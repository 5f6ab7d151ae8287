"""pytest plumbing only: options and fixtures (shared helpers live in tests/helpers.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# The suite's own bytecode, kept between runs even where PYTHONDONTWRITEBYTECODE is set (as on
# the CI machines and this workplace's): pytest rewrites the asserts of every test module it
# imports, and without a cache each xdist worker rewrites all ~170 of them again on every run,
# 10-14 s of CPU a worker, a fifth of the quick tier's time on two cores (issue 38). The cache
# goes under the user's cache folder, outside the checkout, as PYTHONPYCACHEPREFIX would put it;
# a prefix the person set is kept. Imports after this line (the test modules, adhd_evals, the
# libraries) read and write their bytecode there.
if sys.dont_write_bytecode and not sys.pycache_prefix:
    cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    sys.pycache_prefix = str(Path(cache_home) / "adhd-evals" / "test-bytecode")
    sys.dont_write_bytecode = False


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regen-golden",
        action="store_true",
        default=False,
        help="rewrite the expected files of golden fixtures instead of comparing",
    )


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker per core, and one more. Much of the suite waits on processes it
    started (fake model CLIs, kills and resumes, a browser), and a worker that waits leaves
    its core idle: on two cores a third worker measured 5-9 s faster over a ~90 s run, for
    the price of one more collection (~4 s of CPU)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + 1


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
    os.environ.setdefault("ADHD_EVALS_CACHE", str(tmp_path_factory.mktemp("compiled")))


@pytest.fixture(autouse=True, scope="session")
def _private_xdg_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Catalog validation records (and the default response cache) go to a cache of the test
    run's, not the user's ($XDG_CACHE_HOME/adhd-evals/...). Where the user's was is kept in
    ADHD_EVALS_USER_CACHE: what .ci/run installed there (promptfoo) is still found by the tests
    that run it, which otherwise looked in the empty new folder and skipped."""
    user = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    os.environ.setdefault("ADHD_EVALS_USER_CACHE", user)
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))


@pytest.fixture(autouse=True, scope="session")
def _child_bytecode(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The Python processes the suite starts (adhd-evals, the fake CLIs) keep their bytecode in
    one folder of the test run's, shared by the xdist workers, as an installed package keeps
    its own: with PYTHONDONTWRITEBYTECODE set, as on the CI machines, each of hundreds of
    processes would otherwise compile every module it imports again. Nothing is written into
    the checkout or the environment; this process's own setting is left as it is."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    os.environ["PYTHONPYCACHEPREFIX"] = str(shared / "bytecode")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
