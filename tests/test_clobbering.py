"""No command writes over a file it reads, or writes two outputs to one file (exit 3, nothing changed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from helpers import FIXTURES


@pytest.fixture
def run(tmp_path: Path) -> Path:
    for name in ("cases.jsonl", "responses.jsonl", "scores.jsonl", "checks.jsonl"):
        shutil.copy(FIXTURES / "report" / name, tmp_path / name)
    (tmp_path / "evals.json").write_text(
        '{"skill_name": "s", "evals": [{"id": 1, "prompt": "p"}]}', encoding="utf-8"
    )
    return tmp_path


# (arguments with {d} for the folder, the file that must be left as it was, what the error says)
CASES = {
    "report --out the catalog": (
        "report --cases {d}/cases.jsonl --responses {d}/responses.jsonl --out {d}/cases.jsonl",
        "cases.jsonl",
        "--out {d}/cases.jsonl is the catalog this command reads",
    ),
    "report --out the scores": (
        "report --cases {d}/cases.jsonl --responses {d}/responses.jsonl --scores {d}/scores.jsonl "
        "--out {d}/./scores.jsonl",
        "scores.jsonl",
        "is the scores file this command reads",
    ),
    "check --output the responses": (
        "check {d}/responses.jsonl --cases {d}/cases.jsonl --suite {d}/checks.py --output {d}/responses.jsonl",
        "responses.jsonl",
        "--output {d}/responses.jsonl is the responses file this command reads",
    ),
    "check --output and --junit one file": (
        "check {d}/responses.jsonl --cases {d}/cases.jsonl --suite {d}/checks.py --output {d}/out --junit {d}/out",
        "responses.jsonl",
        "--output and --junit both name {d}/out",
    ),
    "blind --sheet and --key one file": (
        "blind {d}/responses.jsonl --cases {d}/cases.jsonl --sheet {d}/s.jsonl --key {d}/s.jsonl",
        "responses.jsonl",
        "--sheet and --key both name {d}/s.jsonl",
    ),
    "run --output the catalog": (
        "run --condition baseline --runner stub --cases {d}/cases.jsonl --output {d}/cases.jsonl",
        "cases.jsonl",
        "--output {d}/cases.jsonl is the catalog this command reads",
    ),
    "judge --output the sheet": (
        "judge {d}/scores.jsonl --runner stub --cases {d}/cases.jsonl --output {d}/scores.jsonl",
        "scores.jsonl",
        "--output {d}/scores.jsonl is the sheet this command reads",
    ),
    "survey --out its source": (
        "survey --format evals-json {d}/evals.json --out {d}/evals.json",
        "evals.json",
        "--out {d}/evals.json is the source this command reads",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_an_output_over_an_input_or_another_output_is_refused(
    run: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, kept, said = CASES[name]
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    assert main(argv.format(d=run).split()) == exitcodes.OUTPUT
    err = capsys.readouterr().err
    assert said.format(d=run) in err and "Nothing was written." in err
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before  # not one file changed or added
    assert (run / kept).read_bytes() == before[kept]
