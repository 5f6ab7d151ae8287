"""The rest of promptfoo's assertion rules (0.120.0, src/assertions/*.ts), one test per rule.

A check promptfoo would run the same way becomes that check; one it rejects becomes a
placeholder carrying promptfoo's reason ("promptfoo (rejected)"); one adhd-evals cannot
run the same way (a value read from a file, a pattern with no exact Python form, a
JSON comparison) becomes a placeholder saying why, and the file is not refused for it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from adhd_evals.importing.formats.promptfoo import assertion_from_string
from adhd_evals.importing.formats.promptfoo.asserts import map_assertion
from adhd_evals.importing.model import Check, CheckKind


def _one(assertion: Any) -> Check:
    mapped = map_assertion(assertion, lambda value: value, "assert[0]")
    assert len(mapped.checks) == 1
    return mapped.checks[0]


@pytest.mark.parametrize(
    ("assertion", "reason"),
    [
        pytest.param("contains", "an assertion must be an object with a type", id="not-an-object"),
        pytest.param(
            {"type": "assert-set", "assert": {"type": "contains"}},
            "assert-set must have an assert list",
            id="assert-set-without-list",
        ),
        pytest.param(
            {"type": "contains-all", "value": 3},
            '"contains-all" assertion type must have an array value',
            id="contains-all-number",
        ),
        pytest.param(
            {"type": "starts-with", "value": ""},
            '"starts-with" assertion type must have a string value',
            id="starts-with-empty",
        ),
        pytest.param(
            {"type": "starts-with", "value": 1},
            '"starts-with" assertion type must have a string value',
            id="starts-with-number",
        ),
        pytest.param(
            {"type": "regex", "value": ["a"]},
            '"regex" assertion type must have a string value',
            id="regex-list",
        ),
        pytest.param(
            {"type": "is-json", "value": "a: [b"}, "its schema is not YAML", id="is-json-schema-not-yaml"
        ),
        pytest.param(
            {"type": "is-json", "value": ["a"]},
            "is-json assertion must have a string or object value",
            id="is-json-schema-list",
        ),
    ],
)
def test_what_promptfoo_rejects_is_a_placeholder_with_its_reason(assertion: Any, reason: str) -> None:
    check = _one(assertion)
    assert (check.kind, check.via) == (CheckKind.UNWRITTEN, "promptfoo (rejected)")
    assert check.criterion.startswith(f"promptfoo rejects this assertion ({reason}): ")


@pytest.mark.parametrize(
    ("assertion", "via", "why"),
    [
        pytest.param(
            {"type": "select-best", "value": "the best"}, "promptfoo select-best", "", id="select-best"
        ),
        pytest.param({"type": "human"}, "promptfoo human", "", id="human"),
        pytest.param(
            {"type": "contains", "value": "file://needle.txt"},
            "promptfoo contains",
            "its value is read from a file when promptfoo runs",
            id="value-from-file",
        ),
        pytest.param(
            {"type": "llm-rubric", "value": "  "},
            "promptfoo llm-rubric",
            "a model-graded assertion without a text criterion",
            id="rubric-without-text",
        ),
        pytest.param(
            {"type": "equals", "value": {"a": 1}},
            "promptfoo equals",
            "equals with a JSON value compares parsed JSON",
            id="equals-object",
        ),
        pytest.param(
            {"type": "equals", "value": None},
            "promptfoo equals",
            "equals with a JSON value compares parsed JSON",
            id="equals-null",
        ),
        pytest.param(
            {"type": "not-is-json", "value": {"type": "object"}},
            "promptfoo not-is-json",
            "not-is-json with a schema",
            id="not-is-json-schema",
        ),
        pytest.param(
            {"type": "regex", "value": "(?<year>\\d+)"},
            "promptfoo regex",
            "a JavaScript pattern with no exact Python form: the group '(?<y'… (JavaScript reads it differently or not at all)",
            id="untranslatable-regex",
        ),
    ],
)
def test_what_runs_differently_here_is_a_placeholder_saying_why(
    assertion: dict[str, Any], via: str, why: str
) -> None:
    check = _one(assertion)
    assert (check.kind, check.via) == (CheckKind.UNWRITTEN, via)
    # the assertion as written (one line of JSON), then why it is a placeholder
    assert check.args == (json.dumps(assertion, ensure_ascii=False) + (f" ({why})" if why else ""),)


def test_equals_without_a_value_compares_with_undefined() -> None:
    """String(undefined) === output: the text "undefined"."""
    check = _one({"type": "equals"})
    assert (check.kind, check.args) == (CheckKind.EQUALS, ("undefined",))


def test_array_needles_are_their_javascript_text() -> None:
    """String(1.0) is "1", String(null) "null", String(true) "true"."""
    check = _one({"type": "icontains-any", "value": [1.0, None, True, "x"]})
    assert (check.kind, check.args) == (CheckKind.CONTAINS_ANY, (["1", "null", "true", "x"],))
    assert _one({"type": "not-contains-any", "value": ["a"]}).kind is CheckKind.CONTAINS_NONE


def test_is_json_without_a_schema_and_its_negation() -> None:
    assert (_one({"type": "is-json"}).kind, _one({"type": "not-is-json"}).kind) == (
        CheckKind.IS_JSON,
        CheckKind.NOT_IS_JSON,
    )


def test_a_yaml_schema_travels_as_json_text() -> None:
    check = _one({"type": "is-json", "value": "type: object\nrequired: [a]\n"})
    assert check.options == (("schema", '{"type":"object","required":["a"]}'),)


def test_the_criterion_wording_names_a_written_check_not_a_placeholder() -> None:
    """config.criterion is the catalog's wording (what export writes back); a placeholder keeps its own text."""
    worded = {"config": {"criterion": "mentions the id"}}
    assert _one({"type": "contains", "value": "id", **worded}).criterion == "mentions the id"
    assert _one({"type": "not-regex", "value": "x{2}", **worded}).kind is CheckKind.NOT_REGEX
    rejected = _one({"type": "starts-with", "value": 1, **worded})
    assert rejected.criterion.startswith("promptfoo rejects this assertion")


def test_the_grading_provider_is_a_note() -> None:
    mapped = map_assertion(
        {"type": "llm-rubric", "value": "polite", "provider": "openai:gpt-4o"}, lambda v: v, "assert[2]"
    )
    assert [(n.key, n.value, n.remark) for n in mapped.notes] == [
        ("assert[2].provider", "openai:gpt-4o", "the model promptfoo grades this with")
    ]


def test_an_assert_sets_weight_and_metric_are_notes_naming_its_size() -> None:
    mapped = map_assertion(
        {"type": "assert-set", "weight": 2, "metric": "m", "assert": [{"type": "contains", "value": "a"}]},
        lambda v: v,
        "assert[0]",
    )
    assert [(n.key, n.value) for n in mapped.notes] == [("assert[0].weight", 2), ("assert[0].metric", "m")]
    assert all(n.remark.startswith("of an assert-set of 1, flattened here") for n in mapped.notes)


def test_a_rendering_refusal_reaches_the_caller() -> None:
    """The reader's render raises a ValueError carrying the position: it is not swallowed into a placeholder."""

    def refuse(value: Any) -> Any:
        raise ValueError("refused where it stands")

    with pytest.raises(ValueError, match="refused where it stands"):
        map_assertion({"type": "contains", "value": "{{ x }}"}, refuse, "assert[0]")


@pytest.mark.parametrize(
    ("text", "assertion"),
    [
        # javascript:, fn: and eval: lose their prefix; a file:// JavaScript or TypeScript path is kept whole
        pytest.param("fn: output.length > 1 ", {"type": "javascript", "value": "output.length > 1"}, id="fn"),
        pytest.param("eval:x", {"type": "javascript", "value": "x"}, id="eval"),
        pytest.param(
            "file://check.mts", {"type": "javascript", "value": "file://check.mts"}, id="javascript-file"
        ),
        # python: and a file:// .py path (with or without a function) lose their first seven characters
        pytest.param("python: ok ", {"type": "python", "value": "ok"}, id="python"),
        pytest.param("file://grade.py:fn", {"type": "python", "value": "grade.py:fn"}, id="python-file"),
        # contains-json and is-json keep their value untrimmed; without one, value is undefined
        pytest.param('is-json:{"a": 1} ', {"type": "is-json", "value": '{"a": 1} '}, id="is-json-untrimmed"),
        pytest.param("contains-all", {"type": "contains-all", "value": None}, id="list-type-without-value"),
        pytest.param("is-valid-openai-tools-call", {"type": "is-valid-openai-tools-call"}, id="no-value"),
        # promptfoo's type list has "similar" before "similar:cosine": the alternation takes "similar"
        pytest.param(
            "similar:cosine:hello",
            {"type": "similar", "value": "cosine:hello", "threshold": 0.8},
            id="similar-colon",
        ),
        pytest.param(
            "levenshtein(3):x", {"type": "levenshtein", "value": "x", "threshold": 3.0}, id="threshold"
        ),
        pytest.param(
            "file://check.ts:fn",
            {"type": "equals", "value": "file://check.ts:fn"},
            id="not-a-javascript-path",
        ),
    ],
)
def test_csv_expected_text_reads_as_assertion_from_string(text: str, assertion: dict[str, Any]) -> None:
    """promptfoo 0.120.0's assertionFromString (src/util/csv.ts), case by case."""
    assert assertion_from_string(text) == assertion
