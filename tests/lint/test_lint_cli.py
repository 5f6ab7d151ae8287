"""The lint command as a user and CI run it: formats, summary, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adhd_evals.entry import main
from helpers import CORPUS

GOOD = '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["Answers 102."]}\n'
BAD = GOOD + GOOD.replace('"low"', '"severe"').replace('"a"', '"b"')
WARN = GOOD.replace("Answers 102.", "Finds the bug and gives the fix.")


def _write(tmp_path: Path, text: str, name: str = "cases.jsonl") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_text_output_and_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, BAD)
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f'{path}:2:53: E107 risk must be low, medium or high, not "severe"',
        "Checked 1 file and 2 cases: 1 error, 0 warnings.",
    ]


def test_clean_file_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", str(_write(tmp_path, GOOD))]) == 0
    assert capsys.readouterr().out == "Checked 1 file and 1 case: 0 errors, 0 warnings.\n"


def test_warnings_pass_unless_strict(tmp_path: Path) -> None:
    path = _write(tmp_path, WARN)
    assert main(["lint", str(path)]) == 0
    assert main(["lint", "--strict", str(path)]) == 1


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--output-format", "json", str(_write(tmp_path, BAD))]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["files"] == 1 and report["cases"] == 2 and report["errors"] == 1
    assert report["problems"][0]["code"] == "E107" and report["problems"][0]["line"] == 2


def test_github_annotations_chosen_under_actions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    path = _write(tmp_path, BAD + WARN.replace('"a"', '"c"'))
    assert main(["lint", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"::error file={str(path).replace(':', '%3A')},line=2,col=53::E107 ")
    assert lines[1].startswith("::warning file=") and "W201" in lines[1]


def test_nothing_checked_says_so_and_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    assert main(["lint", str(tmp_path)]) == 1
    assert "nothing was checked" in capsys.readouterr().out


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    assert main(["lint", str(tmp_path / "nope.jsonl")]) == 2


def test_unknown_option_is_a_usage_error() -> None:
    assert main(["lint", "--bogus", "x"]) == 2


def test_format_of_forces_a_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, GOOD, name="cases.txt")
    assert main(["lint", "--format-of", "catalog", str(path)]) == 0


def test_directories_are_walked_by_name_and_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "evals").mkdir()
    _write(tmp_path / "evals", GOOD)
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "t.yaml").write_text("name: n\ntask: t\n")
    (tmp_path / "config.yaml").write_text("setting: 1\n")  # not a case: left alone
    assert main(["lint", str(tmp_path)]) == 0
    assert "Checked 2 files and 2 cases" in capsys.readouterr().out


@pytest.mark.long
@pytest.mark.corpus
def test_every_corpus_file_lints_without_a_crash(capsys: pytest.CaptureFixture[str]) -> None:
    # promptfoo configs (folders of a config with its referenced files, or a config alone) included
    files = [p for p in sorted(CORPUS.glob("*/*")) if p.name not in ("MANIFEST.tsv", "README.md")]
    if not files:
        pytest.skip("../shared/corpus is not here")
    for path in files:
        assert main(["lint", str(path)]) in (0, 1)
        out = capsys.readouterr().out
        assert "Traceback" not in out and out.rstrip().splitlines()[-1].startswith("Checked")


@pytest.mark.parametrize("columns", ["100", "57", None])
def test_help_is_laid_out_as_argparse_lays_it_out(
    columns: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """lint's help formatter only spares argparse its shutil import (tests/lint/test_startup.py):
    at any COLUMNS, or none, the help is what argparse's own formatter writes."""
    import argparse

    from adhd_evals.lint import cli

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    parser = cli._parser()
    ours = parser.format_help()
    parser.formatter_class = argparse.HelpFormatter
    assert ours == parser.format_help()


def test_help_follows_the_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    from adhd_evals.lint import cli

    monkeypatch.setenv("COLUMNS", "100")
    wide = cli._parser().format_help()
    monkeypatch.setenv("COLUMNS", "57")
    assert len(cli._parser().format_help().splitlines()) > len(wide.splitlines())
