"""A dialect file a person could really write wrong: one test per refusal, each naming the
dialect file, the key and (where the file has one) the line and column, with the import's
exit code and nothing written. The dialect's own fixtures under fixtures/*/bad cover the
rules a schema says; these are the refusals before and after it (YAML, top level, schema)."""

from __future__ import annotations

import errno
import json
import os
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


def test_a_schema_on_a_rule_that_is_not_is_json_is_refused_at_the_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A schema is read by is_json alone: on a `contains` rule it would be silently unused, so
    it is refused at the schema (line 8, column 13), naming the rule's check."""
    text = HEAD + (
        "assertions:\n  - when: {type: x}\n    check: contains\n    needle: value\n"
        "    case: sensitive\n    schema: {type: object}\n"
    )
    err = _import(tmp_path, text, capsys)
    assert "assertions[0].schema: Expected a schema only with check: is_json, actual check: contains" in err
    assert "(line 8, column 13)" in err


def test_a_rule_without_a_needle_is_refused_at_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`contains` needs the key its needle is read from; a rule without one could only guess.
    Refused at the rule (line 4, column 5: the entry after `  - `), since the key is absent."""
    text = HEAD + "assertions:\n  - when: {type: x}\n    check: contains\n    case: sensitive\n"
    err = _import(tmp_path, text, capsys)
    assert "assertions[0].needle: Expected the key that holds contains's argument, actual missing" in err
    assert "(line 4, column 5)" in err


def test_a_criteria_check_without_a_letter_case_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `criteria:` place that makes `contains` checks must say whether case matters, as an
    assertion rule must: refused at the entry (line 5, column 7: `    - ` is 6 characters)."""
    text = HEAD + "cases:\n  criteria:\n    - {at: expected, check: contains}\n"
    err = _import(tmp_path, text, capsys)
    assert "cases.criteria[0].case: Expected sensitive or insensitive: contains compares text" in err
    assert "actual missing (line 5, column 7)" in err


# ---- what a dialect's rules and paths meet in a case file ---------------------------


def _import_cases(
    tmp_path: Path, text: str, evals: list[dict[str, object]], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    source = tmp_path / "evals.json"
    source.write_text(json.dumps({"skill_name": "s", "evals": evals}))
    rules = tmp_path / "dialect.yaml"
    rules.write_text(text)
    out = tmp_path / "out"
    argv = ["import", "--format", "evals-json", str(source), "--dialect", str(rules), "--out", str(out)]
    code = main(argv)
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("inputs", "what"),
    [
        pytest.param("Reset my password.", "a string", id="a string"),
        pytest.param(None, "null", id="null"),
        pytest.param(3, "a number", id="a number"),
        pytest.param(False, "true or false", id="a boolean"),
        pytest.param(["Reset my password."], "a list", id="a list"),
    ],
)
def test_a_prompt_path_through_a_value_that_is_not_an_object_says_what_it_met(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], inputs: object, what: str
) -> None:
    """`inputs.prompt` cannot go on when `inputs` is not an object: the refusal names the case,
    the path, and what `inputs` is in words, so the person sees why without opening the file."""
    code, err = _import_cases(
        tmp_path,
        HEAD + "cases:\n  prompt: [inputs.prompt]\n",
        [{"id": 1, "inputs": inputs}],
        capsys,
    )
    assert code == RefusalCode.NOT_EVALS_JSON.exit_code
    assert "case 1, inputs.prompt: Expected a non-empty string at inputs.prompt" in err
    assert f"actual inputs is {what}, not an object with a key prompt" in err


def test_an_id_path_through_a_number_says_what_it_met(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`meta.ticket_id` where `meta` is 7: the id's refusal says `meta is a number`."""
    code, err = _import_cases(
        tmp_path, HEAD + "cases:\n  id: [meta.ticket_id]\n", [{"meta": 7, "prompt": "p"}], capsys
    )
    assert code == RefusalCode.NOT_EVALS_JSON.exit_code
    assert "meta.ticket_id" in err and "actual meta is a number, not an object with a key ticket_id" in err


WEIGHTED = HEAD + (
    "assertions:\n  - when: {type: contains, weight: 1}\n    check: contains\n"
    "    needle: value\n    case: sensitive\n"
)


def test_a_rule_matches_numbers_by_value_and_never_a_boolean_or_a_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`when: {type: contains, weight: 1}` matches weight 1 and 1.0 (one JSON number), not
    `true` (JSON's true is not 1) and not `type: [contains]` (a list is not the string):
    2 converted, the other 2 kept as placeholders counted by their shape."""
    assertions: list[object] = [
        {"type": "contains", "weight": 1, "value": "a"},
        {"type": "contains", "weight": 1.0, "value": "b"},
        {"type": "contains", "weight": True, "value": "c"},
        {"type": ["contains"], "weight": 1, "value": "d"},
    ]
    code, err = _import_cases(
        tmp_path, WEIGHTED, [{"id": 1, "prompt": "p", "assertions": assertions}], capsys
    )
    assert code == 0, err
    assert "converted 2 assertions into checks" in err
    assert '({type: "contains", weight: 1} -> contains): 2 converted' in err
    module = (tmp_path / "out" / "checks.py").read_text()
    assert 'contains(answer, "a", ignore_case=False)' in module
    assert 'contains(answer, "b", ignore_case=False)' in module
    assert 'contains(answer, "c"' not in module and 'contains(answer, "d"' not in module


def test_a_regex_past_re_s_repetition_limit_is_refused_not_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`a{4294967296}` makes Python's re raise OverflowError (not re.error): still a refusal
    naming the case and the needle's key, never a traceback."""
    text = HEAD + (
        "assertions:\n  - when: {type: regex}\n    check: regex\n    needle: pattern\n    case: sensitive\n"
    )
    evals: list[dict[str, object]] = [
        {"id": 1, "prompt": "p", "assertions": [{"type": "regex", "pattern": "a{4294967296}"}]}
    ]
    code, err = _import_cases(tmp_path, text, evals, capsys)
    assert code == RefusalCode.NOT_EVALS_JSON.exit_code
    assert "case 1, assertions[0].pattern" in err and "the repetition number is too large" in err
    assert "Traceback" not in err


# ---- a dialect path that cannot be read as one UTF-8 file ----------------------------


def _dialect_at(tmp_path: Path, rules: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    source = tmp_path / "evals.json"
    source.write_text(json.dumps(SOURCE))
    out = tmp_path / "out"
    argv = ["import", "--format", "evals-json", str(source), "--dialect", str(rules), "--out", str(out)]
    code = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err and not out.exists()
    return code, err


def test_a_dialect_saved_as_utf16_is_refused_with_the_repair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Windows editors save UTF-16 with a byte-order mark (FF FE): byte 0 is not UTF-8, on
    line 1; the hint says what to do about it."""
    rules = tmp_path / "dialect.yaml"
    rules.write_bytes(HEAD.encode("utf-16"))
    code, err = _dialect_at(tmp_path, rules, capsys)
    assert code == RefusalCode.DIALECT_INVALID.exit_code
    assert f"{rules} is not a valid dialect file: invalid UTF-8 at byte offset 0" in err
    assert "hint: the file starts with a UTF-16 byte-order mark: save it as UTF-8" in err


def test_a_dialect_path_that_is_a_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "dialects"
    rules.mkdir()
    code, err = _dialect_at(tmp_path, rules, capsys)
    assert code == RefusalCode.FILE_UNREADABLE.exit_code
    assert f"{rules} cannot be read: it is a directory, and this format reads one file" in err


def test_a_dialect_path_under_a_file_is_refused_with_the_systems_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """notes.txt/dialect.yaml where notes.txt is a file: the system's reason (ENOTDIR), said."""
    (tmp_path / "notes.txt").write_text("x\n")
    rules = tmp_path / "notes.txt" / "dialect.yaml"
    code, err = _dialect_at(tmp_path, rules, capsys)
    assert code == RefusalCode.FILE_UNREADABLE.exit_code
    assert f"{rules} cannot be read: {os.strerror(errno.ENOTDIR)}" in err


# ---- a rule's needle or criterion of the wrong kind in a case file ---------------------------


def _one_rule(check: str, case: bool) -> str:
    return HEAD + (
        f"assertions:\n  - when: {{type: x}}\n    check: {check}\n    needle: value\n"
        + ("    case: sensitive\n" if case else "")
        + "    criterion: description\n"
    )


# The assertion sits on line 3; `    {"type": "x", "value": ` is 27 characters, so the needle's
# value starts at column 28.
ASSERTION = '{{"skill_name": "s", "evals": [\n  {{"id": 1, "prompt": "p", "assertions": [\n    {{"type": "x", "value": {value}}}]}}]}}\n'


@pytest.mark.parametrize(
    ("check", "value", "expected", "actual"),
    [
        pytest.param("contains", "5", "a string", "5", id="a number for one text"),
        pytest.param("contains", '""', "a non-empty string", '""', id="empty text"),
        pytest.param(
            "contains_any",
            "[]",
            "a non-empty string or a non-empty list of non-empty strings",
            "an empty list",
            id="an empty list of texts",
        ),
        pytest.param(
            "contains_all",
            '["a", 3]',
            "a non-empty string or a non-empty list of non-empty strings",
            "a list of 2 items",
            id="a number among the texts",
        ),
        pytest.param(
            "min_chars", '"10"', "a whole number from 0 to 1,000,000,000", '"10"', id="a count as text"
        ),
        pytest.param(
            "max_words", "-1", "a whole number from 0 to 1,000,000,000", "-1", id="a negative count"
        ),
        pytest.param(
            "max_words", "true", "a whole number from 0 to 1,000,000,000", "true", id="a count of true"
        ),
    ],
)
def test_a_needle_of_the_wrong_kind_for_its_check_is_refused_at_the_needle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], check: str, value: str, expected: str, actual: str
) -> None:
    """Each check takes one kind of argument (a text, texts, a count): anything else would make
    a check that cannot run, so the case file is refused at the needle (line 3, column 28)."""
    source = tmp_path / "evals.json"
    source.write_text(ASSERTION.format(value=value))
    rules = tmp_path / "dialect.yaml"
    rules.write_text(_one_rule(check, case=check not in ("min_chars", "max_words")))
    out = tmp_path / "out"
    argv = ["import", "--format", "evals-json", str(source), "--dialect", str(rules), "--out", str(out)]
    assert main(argv) == RefusalCode.NOT_EVALS_JSON.exit_code
    err = capsys.readouterr().err
    assert f"case 1, assertions[0].value: Expected {expected}, actual {actual} (line 3, column 28)" in err
    assert not out.exists()


def test_a_criterion_key_that_holds_no_text_is_refused_at_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`criterion: description` names where the check's criterion text lives; `description: 5`
    is no text to name a criterion by: refused there (line 3, column 48: after `"a", `
    and `"description": `)."""
    source = tmp_path / "evals.json"
    source.write_text(ASSERTION.format(value='"a", "description": 5'))
    rules = tmp_path / "dialect.yaml"
    rules.write_text(_one_rule("contains", case=True))
    argv = [
        "import",
        "--format",
        "evals-json",
        str(source),
        "--dialect",
        str(rules),
        "--out",
        str(tmp_path / "o"),
    ]
    assert main(argv) == RefusalCode.NOT_EVALS_JSON.exit_code
    err = capsys.readouterr().err
    assert "case 1, assertions[0].description: Expected a string, actual 5 (line 3, column 48)" in err
