"""The real `claude plugin eval` suites in ../shared/plugin-eval: each whole suite imports, or
is refused naming the file, the case and the field, and the summary counts each grader type
as the suite's files hold them.

The counts are the corpus README's (starslingdev: tool_used 23, regex 15, llm 7), and for
every suite they are counted again here from the files themselves with PyYAML, independently
of the reader. groundwork's three top-level `prompt:` cases are ones plugin eval would not
load (no execution.prompt): the refusal names the first of them.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from adhd_evals.importing.importer import read_source
from adhd_evals.importing.model import Refusal, RefusalCode
from adhd_evals.importing.summary import import_summary
from adhd_evals.lint import lint_paths
from helpers import CORPUS

pytestmark = pytest.mark.corpus
BASE = CORPUS.parent / "plugin-eval"
if not (BASE / "MANIFEST.tsv").is_file():
    pytest.skip("../shared/plugin-eval is not here (a user's clone has none)", allow_module_level=True)

IMPORTED = {
    "homeassistant-ai__skills/evals": 29,
    "starslingdev__skills/skills/ci-secure/evals": 5,
}


def _types_in_files(suite: Path) -> Counter[str]:
    """Each grader's type, read from the case files with PyYAML (not the reader under test)."""
    found: Counter[str] = Counter()
    for case in suite.rglob("case.yaml"):
        data = yaml.safe_load(case.read_text(encoding="utf-8"))
        found.update(grader["type"] for grader in data.get("graders", []))
    for grader in suite.rglob("graders/*.md"):
        found[yaml.safe_load(grader.read_text(encoding="utf-8").split("---")[1])["type"]] += 1
    return found


@pytest.mark.parametrize("suite", sorted(IMPORTED))
def test_each_whole_suite_imports_with_every_grader_counted(suite: str) -> None:
    result = read_source("plugin-eval", BASE / suite)
    assert len(result.cases) == IMPORTED[suite]
    counted = _types_in_files(BASE / suite)
    listed = ", ".join(f"{kind} {n}" for kind, n in counted.most_common())
    assert f"plugin eval graders, by type: {listed}." in import_summary(result)
    assert sum(len(case.checks) for case in result.cases) == sum(counted.values())


def test_the_readme_s_counts_for_starslingdev() -> None:
    assert _types_in_files(BASE / "starslingdev__skills/skills/ci-secure/evals") == Counter(
        tool_used=23, regex=15, llm=7
    )


def test_groundwork_is_refused_by_file_case_and_field() -> None:
    with pytest.raises(Refusal) as caught:
        read_source("plugin-eval", BASE / "IniZio__groundwork/evals", display="evals")
    refusal = caught.value
    assert refusal.code is RefusalCode.NOT_PLUGIN_EVAL
    assert refusal.file == "evals/spec-comprehension/stop-gate/case-02-gate-release/case.yaml"
    assert refusal.case == "case spec-comprehension/stop-gate/case-02-gate-release"
    assert refusal.field_path == "execution.prompt"
    assert "a top-level prompt:" in refusal.message


def test_lint_reports_the_three_refused_cases_and_the_undocumented_system_key() -> None:
    """Three cases have no execution.prompt (errors); three carry execution.system (warnings)."""
    report = lint_paths([BASE / "IniZio__groundwork"])
    assert (report.files, report.errors, report.warnings) == (6, 3, 3)
    assert {p.code for p in report.problems} == {"CaseFileNotPluginEvalSuite", "PluginEvalUndocumentedKey"}


@pytest.mark.parametrize("suite", sorted(IMPORTED))
def test_the_imported_suites_lint_clean(suite: str) -> None:
    report = lint_paths([BASE / suite])
    assert (report.files, report.cases, report.errors) == (IMPORTED[suite], IMPORTED[suite], 0)
