"""Our import of every promptfoo fixture agrees with promptfoo 0.120.0 itself.

promptfoo runs each good fixture with its echo provider (the answer is the
prompt it sent), so for each (test, prompt) it reports the prompt it rendered
and its verdict on each assertion for that answer. For every case:

- our catalog prompt equals promptfoo's `prompt.raw`, character for character;
- for each assertion promptfoo graded (its componentResults, an assert-set's
  own summary entry left out, its members kept in order), the generated check
  module's function for the same criterion, run on the same answer, passes
  exactly when promptfoo's verdict passes. Model-graded assertions fail in
  promptfoo without an API key and take the whole test's grading with them:
  such tests are compared on their prompt alone.

Skips, saying why, when node or promptfoo is not installed.
"""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import promptfoo_cli
import pytest

from adhd_evals.importing.importer import read_source, render_module
from helpers import FIXTURES

GOOD = sorted(p for p in (FIXTURES / "promptfoo" / "good").iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def echo_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    main, why = promptfoo_cli.find()
    if main is None:
        pytest.skip(why)
    work = tmp_path_factory.mktemp("promptfoo")

    def run(folder: Path) -> tuple[str, list[dict[str, Any]]]:
        copy = work / folder.name
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("expected"))
        return folder.name, promptfoo_cli.run_echo(main, copy / "promptfooconfig.yaml", copy, remembered=True)

    # each run starts node (~1.5 s of CPU); a fixture, promptfoo and node unchanged since an
    # earlier run read that run's results (promptfoo_cli's docstring says what they depend on)
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(pool.map(run, GOOD))


def _graded(result: dict[str, Any]) -> list[bool]:
    components = (result.get("gradingResult") or {}).get("componentResults") or []
    return [
        c["pass"] for c in components if (c.get("assertion") or {}).get("type") not in (None, "assert-set")
    ]


@pytest.mark.long  # promptfoo (node) runs on every good fixture, in the module's fixture
@pytest.mark.parametrize("folder", GOOD, ids=[p.name for p in GOOD])
def test_promptfoo_renders_and_grades_as_we_do(
    folder: Path, echo_runs: dict[str, list[dict[str, Any]]]
) -> None:
    results = echo_runs[folder.name]
    imported = read_source("promptfoo", folder / "promptfooconfig.yaml")
    namespace: dict[str, Any] = {}
    exec(compile(render_module(imported), "checks.py", "exec"), namespace)
    assert len(imported.cases) == len(results)
    compared = 0
    for case, result in zip(imported.cases, results, strict=True):
        assert case.prompt == result["prompt"]["raw"], case.id
        verdicts = _graded(result)
        if not verdicts:
            continue  # promptfoo could not grade this test (a model-graded assertion without a key)
        answer = result["response"]["output"]
        ours = [function(answer) for _, function in namespace["CHECKS"][case.id]]
        assert ours == verdicts, case.id
        compared += len(ours)
    assert compared or folder.name in ("var-render",), "nothing was compared"
