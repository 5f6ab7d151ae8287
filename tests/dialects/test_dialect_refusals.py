"""A dialect file a person could really write wrong: one test per refusal, each naming the
dialect file, the key and (where the file has one) the line and column, with the import's
exit code and nothing written. The dialect's own fixtures under fixtures/*/bad cover the
rules a schema says; these are the refusals before and after it (YAML, top level, schema)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adhd_evals.entry import main
from adhd_evals.importing.model import RefusalCode

HEAD = "adhd-evals-dialect: 1\nformat: evals-json\n"
SOURCE = {"skill_name": "s", "evals": [{"id": 1, "prompt": "p", "assertions": []}]}


def _import(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> str:
    """Import a good evals.json with `text` as its dialect: the refusal's message (stderr)."""
    source = tmp_path / "evals.json"
    source.write_text(json.dumps(SOURCE))
    rules = tmp_path / "dialect.yaml"
    rules.write_text(text)
    out = tmp_path / "out"
    argv = ["import", "--format", "evals-json", str(source), "--dialect", str(rules), "--out", str(out)]
    assert main(argv) == RefusalCode.DIALECT_INVALID.exit_code
    err = capsys.readouterr().err
    assert f"{rules} is not a valid dialect file" in err and "(DialectInvalid)" in err
    assert "Traceback" not in err and not out.exists()
    return err


def test_yaml_that_does_not_parse_is_refused_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`[evals-json` never closes: the parser stops at the stream's end, line 3 column 1
    (two lines of text, each ending in a newline)."""
    err = _import(tmp_path, "adhd-evals-dialect: 1\nformat: [evals-json\n", capsys)
    assert "expected ',' or ']'" in err and "(line 3, column 1)" in err


def test_a_key_written_twice_is_refused_at_the_second(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Which `format:` would win is a guess: refused at the second one, line 3 column 1."""
    err = _import(tmp_path, HEAD + "format: yaml\n", capsys)
    assert 'duplicate key "format"' in err and "(line 3, column 1)" in err


def test_an_integer_past_the_digit_limit_is_refused_not_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Python will not read an integer of 5000 digits (its limit is 4300): a ValueError from
    inside the YAML reader, said as "not YAML", never a traceback."""
    err = _import(tmp_path, HEAD + "assertions:\n  - when: {type: " + "9" * 5000 + "}\n", capsys)
    assert "not YAML (" in err and "4300" in err


@pytest.mark.parametrize(
    ("text", "actual"),
    [
        pytest.param("- adhd-evals-dialect: 1\n", "a list of 1 item", id="a list"),
        pytest.param("evals-json\n", '"evals-json"', id="a string"),
    ],
)
def test_a_top_level_that_is_not_a_mapping_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, actual: str
) -> None:
    """The file must be a mapping starting with its version line; what it is instead is said."""
    err = _import(tmp_path, text, capsys)
    assert f'(top level): Expected a mapping starting "adhd-evals-dialect: 1", actual {actual}' in err


RULE = HEAD + "assertions:\n  - when: {type: json}\n    check: is_json\n    schema: "


def test_an_invalid_json_schema_is_refused_at_the_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`type: 12` is no JSON Schema type (a name or a list of names): refused where the
    schema's value starts, line 6 column 13 (`    schema: ` is 12 characters)."""
    err = _import(tmp_path, RULE + "{type: 12}\n", capsys)
    assert "assertions[0].schema: Expected a valid JSON Schema, actual 12" in err
    assert "(line 6, column 13)" in err


def test_a_schema_json_cannot_write_is_refused_at_the_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """YAML's `.nan` is a float JSON has no spelling for, so the check module could not hold
    the schema: refused at the schema (line 6 column 13), not written as invalid JSON."""
    err = _import(tmp_path, RULE + "{const: .nan}\n", capsys)
    assert "assertions[0].schema: Expected a schema JSON can write" in err
    assert "(line 6, column 13)" in err


def test_a_criteria_check_without_a_letter_case_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `criteria:` place that makes `contains` checks must say whether case matters, as an
    assertion rule must: refused at the entry (line 5, column 7: `    - ` is 6 characters)."""
    text = HEAD + "cases:\n  criteria:\n    - {at: expected, check: contains}\n"
    err = _import(tmp_path, text, capsys)
    assert "cases.criteria[0].case: Expected sensitive or insensitive: contains compares text" in err
    assert "actual missing (line 5, column 7)" in err
