"""`--skip-test N` leaves one promptfoo test out (promptfoo runs it; the import cannot), listed
with its reason, so one test whose prompt renders empty does not refuse a whole config."""

from __future__ import annotations

from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main

CONFIG = """\
prompts: ["{{ question }}"]
tests:
  - vars: {question: What is a tide?}
  - vars: {context: fed to a Python provider}
  - vars: {question: What is a moon?}
"""


def _config(tmp_path: Path) -> Path:
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(CONFIG, encoding="utf-8")
    return path


def test_a_test_whose_prompt_renders_empty_refuses_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["import", "--format", "promptfoo", str(_config(tmp_path))]) == 20
    )  # CaseFileNotPromptfooConfig
    assert "test 2, prompt: Expected a prompt that renders to text" in capsys.readouterr().err


def test_skip_test_leaves_it_out_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path)
    assert main(["import", "--format", "promptfoo", str(config), "--skip-test", "2"]) == 0
    captured = capsys.readouterr()
    assert [line.split('"prompt": ')[1].split(",")[0] for line in captured.out.splitlines()] == [
        '"What is a tide?"',
        '"What is a moon?"',
    ]
    assert "Left out 1 case by --skip-test:" in captured.err
    assert f"  {config}, test 2: --skip-test 2" in captured.err


def test_a_test_number_the_config_does_not_have_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", "--format", "promptfoo", str(_config(tmp_path)), "--skip-test", "4"]) == 20
    assert "--skip-test: Expected a test number from 1 to 3, actual 4" in capsys.readouterr().err


def test_skip_test_is_for_promptfoo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "evals.json"
    source.write_text('{"skill_name": "s", "evals": [{"id": 1, "prompt": "p"}]}', encoding="utf-8")
    assert main(["import", "--format", "evals-json", str(source), "--skip-test", "1"]) == exitcodes.USAGE
    assert "--skip-test leaves out a promptfoo test" in capsys.readouterr().err
