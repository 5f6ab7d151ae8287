"""lint and the pre-commit hook know promptfoo configs: problems with line and column."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from adhd_evals.cli import main
from adhd_evals.errors import UsageError
from helpers import FIXTURES, ROOT

GOOD = FIXTURES / "promptfoo" / "good"
BAD = FIXTURES / "promptfoo" / "bad"


def test_an_assert_list_under_vars_is_a_warning_at_its_key(capsys: pytest.CaptureFixture[str]) -> None:
    """var-render's second test (the list's item 1) has `assert:` under `vars:` at line 21, column 9."""
    assert main(["lint", str(GOOD / "var-render" / "promptfooconfig.yaml")]) == 0
    out = capsys.readouterr().out
    assert "promptfooconfig.yaml:21:9: PromptfooAssertUnderVars tests.1:" in out
    assert "0 errors, 1 warning" in out


def test_a_refused_config_is_a_warning_at_its_position(capsys: pytest.CaptureFixture[str]) -> None:
    """hostile-template's second test begins at line 6, column 5. Found by its name, the config
    is promptfoo's: what adhd-evals cannot import warns (exit 0), and fails under --strict."""
    config = str(BAD / "hostile-template" / "promptfooconfig.yaml")
    assert main(["lint", config]) == 0
    out = capsys.readouterr().out
    assert (
        "promptfooconfig.yaml:6:5: PromptfooTemplateNotRenderable adhd-evals cannot import this config" in out
    )
    assert main(["lint", "--strict", config]) == 1


def test_a_config_said_to_be_promptfoo_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    """--format-of promptfoo: the file is to be imported, so what stops the import is an error."""
    config = str(BAD / "hostile-template" / "promptfooconfig.yaml")
    assert main(["lint", "--format-of", "promptfoo", config]) == 1
    assert "6:5: PromptfooTemplateNotRenderable" in capsys.readouterr().out


def test_a_problem_in_a_file_the_config_names_says_where_in_that_file(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["lint", "--strict", str(BAD / "csv-row" / "promptfooconfig.yaml")]) == 1
    assert "cases.csv is not a promptfoo tests CSV: row 2" in capsys.readouterr().out


@pytest.mark.parametrize("folder", sorted(p.name for p in GOOD.iterdir()))
def test_every_good_fixture_lints_without_errors(folder: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", str(GOOD / folder / "promptfooconfig.yaml")]) == 0
    assert " 0 errors" in capsys.readouterr().out


def test_the_hook_runs_on_promptfoo_configs() -> None:
    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())[0]
    pattern = re.compile(hook["files"])
    assert pattern.search("evals/promptfooconfig.yaml") and pattern.search("promptfooconfig.json")
    assert not pattern.search("promptfoo/tests.yaml")


def test_a_folder_finds_its_configs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The config's tests files (lists of tests) are not configs: only the config is linted."""
    folder = tmp_path / "suite"
    (folder / "tests").mkdir(parents=True)
    (folder / "promptfooconfig.yaml").write_text('prompts: ["Hi {{ x }}"]\ntests: file://tests/t.yaml\n')
    (folder / "tests" / "t.yaml").write_text("- vars: {x: a}\n")
    assert main(["lint", str(folder)]) == 0
    assert "Checked 1 file and 1 case: 0 errors" in capsys.readouterr().out


def test_survey_counts_shapes_and_assertion_types(capsys: pytest.CaptureFixture[str]) -> None:
    """The assertions fixture: 3 inline tests; `type: contains` appears twice in the first test,
    once in the second's assert-set and once (with a transform) in the third: 4 times."""
    assert main(["survey", "--format", "promptfoo", str(GOOD / "assertions" / "promptfooconfig.yaml")]) == 0
    out = capsys.readouterr().out
    assert "tests: inline: 3" in out
    assert "  contains: 4, a mechanical check" in out
    assert "  made-up-type: 1, a placeholder (promptfoo rejects the type)" in out
    assert "  llm-rubric: 1, a prose criterion" in out


def test_survey_drafts_no_dialect_for_promptfoo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(UsageError, match="drafts no dialect"):
        main(["survey", "--format", "promptfoo", str(GOOD / "inline"), "--out", str(tmp_path / "d.yaml")])
    assert not (tmp_path / "d.yaml").exists()


def test_import_recognises_a_config_without_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(GOOD / "inline" / "promptfooconfig.yaml")]) == 0
    assert "(promptfoo)" in capsys.readouterr().err


def test_a_folder_imports_its_promptfooconfig(capsys: pytest.CaptureFixture[str]) -> None:
    """As `promptfoo eval` run in a folder reads its promptfooconfig.yaml."""
    assert main(["import", "--format", "promptfoo", str(GOOD / "inline")]) == 0
    assert "Read 3 cases from" in capsys.readouterr().err


def test_a_folder_without_a_config_is_refused(tmp_path: Path) -> None:
    from adhd_evals.importing.model import Refusal, RefusalCode

    with pytest.raises(Refusal) as caught:
        main(["import", "--format", "promptfoo", str(tmp_path)])
    assert caught.value.code is RefusalCode.DIRECTORY_EMPTY and "promptfooconfig.yaml" in caught.value.message
