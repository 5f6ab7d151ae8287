"""import without --format recognises the format as lint does; a refusal's hint names a
format only when that format would import the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.importing.detect import detect
from adhd_evals.lint import format_of
from helpers import Fixture, fixtures

EVALS = {"skill_name": "s", "evals": [{"id": 1, "prompt": "Say hi."}]}
DATASET = {
    "version": "1.0",
    "test_cases": [
        {
            "id": "say-hi",
            "description": "d",
            "task_type": "qa",
            "input": "Say hi.",
            "expected_output": "hi",
            "eval_config": {"methods": ["exact_match"]},
        }
    ],
}


@pytest.mark.parametrize(
    "fixture", [pytest.param(f, id=f.name) for f in fixtures("good") if f.source.is_file()]
)
def test_detect_agrees_with_lint_on_every_good_fixture(fixture: Fixture) -> None:
    assert detect([fixture.source]) == format_of(fixture.source, explicit=True) == fixture.format


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("evals.json", json.dumps(EVALS), "evals-json"),
        ("dataset.json", json.dumps(DATASET), "evalflow"),
        ("task.yaml", "name: hi\ntask: Say hi.\n", "yaml"),
        ("cases.json", json.dumps(EVALS), "evals-json"),  # by shape, as lint reads a named .json
    ],
)
def test_import_without_format_reads_what_lint_recognises(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: str, expected: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    assert main(["import", str(path)]) == exitcodes.OK
    captured = capsys.readouterr()
    assert f"Format: {expected} (recognised as lint recognises it" in captured.err
    assert f"({expected}), converted" in captured.err
    assert captured.out.count("\n") == 1  # the one case


def test_an_explicit_format_wins(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "dataset.json"  # evalflow by name, an evals.json by content
    path.write_text(json.dumps(EVALS))
    assert main(["import", "--format", "evals-json", str(path)]) == exitcodes.OK
    assert "Format:" not in capsys.readouterr().err


def test_a_folder_of_two_formats_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "evals.json").write_text(json.dumps(EVALS))
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "t.yaml").write_text("name: hi\ntask: Say hi.\n")
    assert main(["import", str(tmp_path)]) == exitcodes.USAGE
    assert "holds evals-json and yaml: pass --format evals-json or yaml" in capsys.readouterr().err


def test_a_catalog_is_not_a_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "a"}\n')
    assert main(["import", str(path)]) == exitcodes.USAGE
    assert "is a catalog adhd-evals writes, not a source to import" in capsys.readouterr().err


def test_the_dialects_format_decides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps({"cases": [{"id": 1, "prompt": "Say hi."}]}))
    rules = tmp_path / "dialect.yaml"
    rules.write_text("adhd-evals-dialect: 1\nformat: evals-json\ncases:\n  at: cases\n")
    assert main(["import", str(path), "--dialect", str(rules)]) == exitcodes.OK
    assert "Format: evals-json" in capsys.readouterr().err


def test_no_hint_names_a_format_that_refuses_the_file_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An evals.json by name whose cases sit under "cases": evals-json refuses it as well,
    so the evalflow refusal must not say "try --format evals-json"."""
    path = tmp_path / "evals.json"
    path.write_text(json.dumps({"skill_name": "s", "cases": [{"id": 1, "prompt": "p"}]}))
    assert main(["import", "--format", "evalflow", str(path)]) >= 10
    assert "try --format" not in capsys.readouterr().err


def test_the_hint_names_the_format_that_reads_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dataset.json (evalflow by name) holding an evals.json: the yaml refusal names
    evals-json, the format that imports it, not evalflow, which refuses it."""
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps(EVALS))
    assert main(["import", "--format", "yaml", str(path)]) >= 10
    err = capsys.readouterr().err
    assert "try --format evals-json" in err and "try --format evalflow" not in err


@pytest.mark.parametrize(
    "head",
    [
        'prompts:\n  - "{{q}}"\n',
        '"prompts":\n  - "{{q}}"\n',
        "'providers': [echo]\n",
        '"providers": [echo]\n',
    ],
)
def test_a_promptfoo_config_with_bare_or_quoted_keys_is_promptfoo(tmp_path: Path, head: str) -> None:
    """export --to promptfoo writes its keys quoted ("prompts":): lint and import must still know
    the file (found by the docs test: lint skipped an exported config as not a YAML case file)."""
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(head + "tests: []\n", encoding="utf-8")
    assert format_of(path, explicit=False) == "promptfoo"


@pytest.mark.parametrize("head", ["\"prompts':\n", "prompt: x\n", "  prompts: []\n", '"prompts"x: 1\n'])
def test_keys_that_only_look_like_promptfoos_are_not(tmp_path: Path, head: str) -> None:
    """Mismatched quotes, another key, an indented (nested) key: not a promptfoo config's top."""
    path = tmp_path / "cases.yaml"
    path.write_text(head, encoding="utf-8")
    assert format_of(path, explicit=False) != "promptfoo"
