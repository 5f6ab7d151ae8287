"""The hook leaves other tools' look-alike files alone (issue 22, item 9): a file matched by
name whose content is plainly another tool's is reported once as skipped and does not fail
the hook; a file of ours that is broken still fails; --strict makes a skip an error."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.lint.lookalike import why_not_ours
from helpers import CORPUS

GOOD = '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["Answers 102."]}\n'
PROMPTFOO_ROWS = '{"vars": {"text": "INVOICE 1"}, "assert": [{"type": "contains", "value": "INV"}]}\n' * 2
QA_ROWS = json.dumps([{"question": "2+2?", "answer": "4"}])
ANSIBLE = "- name: install\n  apt:\n    name: nginx\n"


def _lint(tmp_path: Path, files: dict[str, str], *args: str) -> int:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    before = os.getcwd()
    os.chdir(tmp_path)
    try:
        return main(["lint", *args, *files])
    finally:
        os.chdir(before)


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        (
            "evals/cases.jsonl",
            PROMPTFOO_ROWS,
            "not a five-field catalog file; skipped (its rows have none of the five",
        ),
        ("evals/dataset.json", QA_ROWS, "not an evalflow dataset file; skipped (a JSON list"),
        (
            "evals/dataset.json",
            '{"data": [], "features": {}}',
            "not an evalflow dataset file; skipped (no version",
        ),
        (
            "tasks/main.yml",
            ANSIBLE,
            "not a YAML case file; skipped (no top-level task: beside name:, judge_context: or max_steps:)",
        ),
    ],
)
def test_another_tools_file_is_skipped_once_and_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, said: str
) -> None:
    assert _lint(tmp_path, {name: text}) == exitcodes.OK
    out = capsys.readouterr().out
    assert out.count(said) == 1 and out.startswith(f"{name}: ")
    assert out.endswith("Skipped 1 file of another tool's: nothing else was checked.\n")


def test_strict_makes_a_skip_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _lint(tmp_path, {"evals/dataset.json": QA_ROWS}, "--strict") == exitcodes.FAILED
    assert "skipped" in capsys.readouterr().out


def test_a_skip_beside_a_good_catalog(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = {"evals/cases.jsonl": GOOD, "evals/promptfoo_tests.jsonl": PROMPTFOO_ROWS}
    assert _lint(tmp_path, files) == exitcodes.OK
    assert "Checked 1 file and 1 case (1 file skipped as another tool's): 0 errors" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # takoonit's catalog: "turns" where the catalog has "prompt" (the other four fields are there)
        (
            "evals/cases.jsonl",
            '{"id": "a", "category": "c", "risk": "low", "turns": ["hi"], "criteria": ["x"]}\n',
        ),
        ("evals/cases.jsonl", '{"id": "a", "category": "c"\n'),  # not JSON at all: cannot be told
        # llm-quality-gate: evalflow's top-level keys, another tool's case keys
        ("evals/dataset.json", '{"version": "1", "test_cases": [{"id": "x_1", "input_prompt": "p"}]}'),
        ("tasks/t.yaml", "name: n\ntask: t\n<<<<<<< HEAD\nmax_steps: 3\n"),  # a merge conflict in ours
    ],
)
def test_a_broken_file_of_ours_still_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    assert _lint(tmp_path, {name: text}) == exitcodes.FAILED
    assert "skipped" not in capsys.readouterr().out


def test_json_output_lists_the_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _lint(tmp_path, {"evals/dataset.json": QA_ROWS}, "--output-format", "json") == exitcodes.OK
    [skipped] = json.loads(capsys.readouterr().out)["skipped"]
    assert skipped["path"] == "evals/dataset.json" and skipped["format"] == "evalflow"


def test_a_forced_format_skips_nothing(tmp_path: Path) -> None:
    assert _lint(tmp_path, {"evals/dataset.json": QA_ROWS}, "--format-of", "evalflow") == exitcodes.FAILED


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not beside this checkout")
def test_the_corpus_boundary() -> None:
    """The real look-alike (a promptfoo test file at evals/promptfoo_tests.jsonl) is another
    tool's; every real catalog, evalflow dataset (the near-miss included) and YAML case is ours."""
    lookalike = CORPUS / "promptfoo" / "ChunkyTortoise__docextract" / "evals" / "promptfoo_tests.jsonl"
    assert why_not_ours(lookalike, "catalog") is not None
    ours = [(p, "catalog") for p in (CORPUS / "jsonl").glob("*.jsonl")]
    ours += [(p, "evalflow") for p in (CORPUS / "evalflow").glob("*.json")]
    ours += [(p, "yaml") for p in (CORPUS / "yaml").rglob("*.yaml")]
    assert len(ours) > 30
    assert [p.name for p, kind in ours if why_not_ours(p, kind) is not None] == []
