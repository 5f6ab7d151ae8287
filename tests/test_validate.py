"""`adhd-evals validate`: every problem, each with its line; the reference's rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from helpers import CORPUS

GOOD = '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}\n'


def _validate(tmp_path: Path, text: str | bytes, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    path = tmp_path / "cases.jsonl"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    code = main(["validate", str(path)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_valid_catalog(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _validate(tmp_path, GOOD + "\n" + GOOD.replace('"a"', '"b"'), capsys)
    assert code == exitcodes.OK and out == "Evaluation cases are valid.\n"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        pytest.param('{"id": "b"', "invalid JSON", id="invalid-json"),
        pytest.param('["not", "an", "object"]', "expected a JSON object", id="not-object"),
        pytest.param(
            '{"id": "b", "category": "c", "risk": "low", "criteria": ["x"]}',
            "missing fields: prompt",
            id="missing",
        ),
        pytest.param(GOOD.strip().replace('"a"', '""'), "id must be a non-empty string", id="empty-id"),
        pytest.param(GOOD.strip().replace('"a"', "7"), "id must be a non-empty string", id="int-id"),
        pytest.param(
            GOOD.strip().replace('"low"', '"severe"'), "risk must be low, medium, or high", id="risk"
        ),
        pytest.param(
            GOOD.strip().replace('["x"]', "[]"), "criteria must be a non-empty list", id="empty-criteria"
        ),
        pytest.param(
            GOOD.strip().replace('["x"]', '["x", ""]'),
            "criteria[1] must be a non-empty string",
            id="empty-criterion",
        ),
        pytest.param(
            GOOD.strip().replace('"p"', '" "'), "prompt must be a non-empty string", id="blank-prompt"
        ),
        pytest.param(GOOD.strip(), 'duplicate case id "a" (first on line 1)', id="duplicate-id"),
    ],
)
def test_each_problem_is_reported_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, message: str
) -> None:
    code, _, err = _validate(tmp_path, GOOD + line + "\n", capsys)
    assert code == exitcodes.FAILED
    assert "cases.jsonl:2" in err and message in err


def test_every_error_not_only_the_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = GOOD + '{"id": ""}\n' + "oops\n" + GOOD
    code, _, err = _validate(tmp_path, text, capsys)
    assert code == exitcodes.FAILED
    assert ":2: missing fields" in err and ":3:1: invalid JSON" in err and ":4: duplicate case id" in err
    assert "3 problems in 4 cases." in err


def test_invalid_utf8_line_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _validate(tmp_path, GOOD.encode() + b'{"id": "caf\xe9"}\n', capsys)
    assert code == exitcodes.FAILED and ":2:" in err and "invalid UTF-8" in err


def test_bom_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = _validate(tmp_path, b"\xef\xbb\xbf" + GOOD.encode(), capsys)
    assert code == exitcodes.OK


def test_empty_catalog_is_not_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _validate(tmp_path, "\n", capsys)
    assert code == exitcodes.FAILED and "no cases" in err


def test_missing_catalog_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "nope.jsonl")]) == exitcodes.USAGE


@pytest.mark.corpus
@pytest.mark.parametrize("path", sorted((CORPUS / "jsonl").glob("*.jsonl")) or [None])
def test_corpus_catalogs(path: Path | None, capsys: pytest.CaptureFixture[str]) -> None:
    if path is None:
        pytest.skip("../shared/corpus is not here")
    code = main(["validate", str(path)])
    err = capsys.readouterr().err
    if "takoonit" in path.name:  # multi-turn cases carry "turns" instead of "prompt"
        assert code == exitcodes.FAILED and "missing fields: prompt" in err
    else:
        assert code == exitcodes.OK, err
