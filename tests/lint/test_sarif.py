"""lint --output-format sarif validates against the official SARIF 2.1.0 schema; under
GitHub Actions every problem also lands in $GITHUB_STEP_SUMMARY."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from adhd_evals.entry import main
from helpers import ROOT

SCHEMA = json.loads((ROOT / "tests" / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
GOOD = '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}'


def _files(tmp_path: Path) -> list[str]:
    catalog = tmp_path / "cases.jsonl"
    catalog.write_text(GOOD + "\n" + GOOD.replace('"low"', '"severe"').replace('"a"', '"b"') + "\n")
    source = tmp_path / "evals.json"
    source.write_text('{"skill_name": "s", "cases": [{"id": 1, "prompt": "p"}]}')
    return [str(catalog), str(source)]


def test_sarif_is_valid_and_carries_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--output-format", "sarif", *_files(tmp_path)]) == 1
    log = json.loads(capsys.readouterr().out)
    jsonschema.Draft7Validator(SCHEMA).validate(log)
    run = log["runs"][0]
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    assert "E107" in rules and rules["E107"]["name"] == "risk-value"
    assert rules["E107"]["shortDescription"]["text"] == "risk is low, medium or high."
    results = [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]) for r in run["results"]]
    # By hand: line 2's risk value starts at column 53; the evals.json refusal sits at 1:1.
    assert results == [
        ("E107", {"startLine": 2, "startColumn": 53}),
        ("CaseFileNotEvalsJson", {"startLine": 1, "startColumn": 1}),
    ]
    for result in run["results"]:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_step_summary_lists_every_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["lint", *_files(tmp_path)]) == 1
    text = summary.read_text()
    assert text.startswith("earlier step\n## adhd-evals lint\n")  # appended, never replaced
    assert "Checked 2 files and 2 cases: 2 errors, 0 warnings." in text
    assert '| 2 | 53 | E107 | risk must be low, medium or high, not "severe" |' in text
    assert "| 1 | 1 | CaseFileNotEvalsJson |" in text


@pytest.mark.parametrize(
    ("path", "uri"),
    [
        pytest.param("evals/cases.jsonl", "evals/cases.jsonl", id="plain"),
        # space %20, # %23, % %25, é is C3 A9 in UTF-8
        pytest.param("my evals/#1 100%é.jsonl", "my%20evals/%231%20100%25%C3%A9.jsonl", id="reserved"),
        pytest.param("c:cases.jsonl", "c%3Acases.jsonl", id="colon-not-a-scheme"),
        pytest.param("x\udce9.jsonl", "x%E9.jsonl", id="non-utf8-name-as-its-byte"),
    ],
)
def test_artifact_uri_is_a_uri_reference(path: str, uri: str) -> None:
    from adhd_evals.lint.sarif import artifact_uri

    assert artifact_uri(path) == uri


def test_sarif_uri_of_a_file_with_spaces(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "my evals"
    folder.mkdir()
    catalog = folder / "cases #2.jsonl"
    catalog.write_text(GOOD.replace('"low"', '"severe"') + "\n")
    assert main(["lint", "--output-format", "sarif", str(catalog)]) == 1
    uri = json.loads(capsys.readouterr().out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
        "artifactLocation"
    ]["uri"]
    assert uri.endswith("/my%20evals/cases%20%232.jsonl") and " " not in uri
