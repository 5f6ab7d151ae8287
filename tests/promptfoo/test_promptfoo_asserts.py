"""Assertions map by promptfoo 0.120.0's own rules (src/assertions/*.ts); one test per rule."""

from __future__ import annotations

from typing import Any

import pytest

from adhd_evals.importing.formats.promptfoo import assertion_from_string
from adhd_evals.importing.formats.promptfoo.asserts import map_assertion
from adhd_evals.importing.model import Check, CheckKind


def _one(assertion: dict[str, Any]) -> Check:
    mapped = map_assertion(assertion, lambda value: value, "assert[0]")
    assert len(mapped.checks) == 1
    return mapped.checks[0]


def test_contains_any_text_honours_quoted_items() -> None:
    """contains-any splits 'a,"b, c"' with /(".*?"|[^,]+)(?=\\s*,|\\s*$)/g, quotes removed: a quoted
    item right after its comma keeps its comma (after a space, the space starts a plain item)."""
    check = _one({"type": "contains-any", "value": 'a,"b, c"'})
    assert (check.kind, check.args, check.options) == (
        CheckKind.CONTAINS_ANY,
        (["a", "b, c"],),
        (("ignore_case", False),),
    )


def test_icontains_all_text_splits_on_every_comma() -> None:
    check = _one({"type": "icontains-all", "value": "A , b,"})
    assert (check.kind, check.args, check.options) == (
        CheckKind.CONTAINS_ALL,
        (["A", "b", ""],),
        (("ignore_case", True),),
    )


def test_not_contains_is_contains_none_of_one_needle() -> None:
    assert _one({"type": "not-contains", "value": "x"})[1:3] == (CheckKind.CONTAINS_NONE, (["x"],))


def test_not_contains_all_is_its_own_negation() -> None:
    assert _one({"type": "not-contains-all", "value": ["a", "b"]})[1:3] == (
        CheckKind.NOT_CONTAINS_ALL,
        (["a", "b"],),
    )


def test_contains_a_number_compares_its_javascript_text() -> None:
    """String(2.0) is "2" in JavaScript."""
    assert _one({"type": "contains", "value": 2.0}).args == ("2",)


def test_equals_and_starts_with_compare_without_stripping() -> None:
    equals = _one({"type": "equals", "value": " x "})
    assert (equals.kind, equals.args, equals.options) == (
        CheckKind.EQUALS,
        (" x ",),
        (("ignore_case", False), ("strip", False)),
    )
    assert _one({"type": "not-starts-with", "value": "a"}).kind is CheckKind.NOT_STARTS_WITH


def test_is_json_schema_travels_as_json_text() -> None:
    check = _one({"type": "is-json", "value": "type: object\nrequired: [a]"})
    assert check.options == (("schema", '{"type":"object","required":["a"]}'),)


def test_regex_is_translated() -> None:
    assert _one({"type": "regex", "value": "end$"}).args == (r"end\Z",)


@pytest.mark.parametrize("kind", ["llm-rubric", "g-eval", "model-graded-closedqa", "factuality"])
def test_model_graded_text_is_a_prose_criterion(kind: str) -> None:
    check = _one({"type": kind, "value": " Is polite "})
    assert (check.criterion, check.kind, check.via) == ("Is polite", CheckKind.UNWRITTEN, "")


@pytest.mark.parametrize(
    "kind", ["javascript", "python", "webhook", "similar", "cost", "latency", "perplexity"]
)
def test_everything_else_is_a_placeholder_counted_by_type(kind: str) -> None:
    check = _one({"type": kind, "value": "v", "threshold": 0.5})
    assert (check.kind, check.via) == (CheckKind.UNWRITTEN, f"promptfoo {kind}")
    assert kind in check.args[0] and "threshold" in check.criterion


def test_transformed_output_is_a_placeholder() -> None:
    assert _one({"type": "contains", "value": "x", "transform": "output.trim()"}).via == "promptfoo transform"


@pytest.mark.parametrize(
    ("assertion", "reason"),
    [
        ({"type": "not-contains", "value": ["a"]}, "must have a string or number value"),
        ({"type": "made-up", "value": "x"}, "Unknown assertion type: made-up"),
        ({"type": "contains-any"}, "must have a value"),
        ({"value": "x"}, "must have a type"),
    ],
)
def test_what_promptfoo_rejects_is_a_placeholder_with_its_reason(
    assertion: dict[str, Any], reason: str
) -> None:
    check = _one(assertion)
    assert (
        check.kind is CheckKind.UNWRITTEN
        and check.via == "promptfoo (rejected)"
        and reason in check.criterion
    )


def test_assert_set_is_flattened_with_its_threshold_as_a_note() -> None:
    mapped = map_assertion(
        {
            "type": "assert-set",
            "threshold": 0.5,
            "assert": [{"type": "contains", "value": "a"}, {"type": "icontains", "value": "b"}],
        },
        lambda v: v,
        "assert[0]",
    )
    assert [c.kind for c in mapped.checks] == [CheckKind.CONTAINS, CheckKind.CONTAINS]
    assert [(n.key, n.value) for n in mapped.notes] == [("assert[0].threshold", 0.5)]


def test_weight_metric_and_threshold_are_notes() -> None:
    mapped = map_assertion(
        {"type": "contains", "value": "a", "weight": 0, "metric": "m"}, lambda v: v, "assert[1]"
    )
    assert [(n.key, n.value) for n in mapped.notes] == [("assert[1].weight", 0), ("assert[1].metric", "m")]
    assert "passed whatever the output" in mapped.notes[0].remark


@pytest.mark.parametrize(
    ("text", "assertion"),
    [
        ("contains: x", {"type": "contains", "value": "x"}),
        ("not-icontains:  Y ", {"type": "not-icontains", "value": "Y"}),
        ("contains-any: a, b", {"type": "contains-any", "value": ["a", "b"]}),
        ("llm-rubric: polite", {"type": "llm-rubric", "value": " polite"}),
        ("starts-with(0.5):Hi", {"type": "starts-with", "value": "Hi", "threshold": 0.5}),
        ("just some text", {"type": "equals", "value": "just some text"}),
    ],
)
def test_csv_expected_columns_read_as_promptfoo_reads_them(text: str, assertion: dict[str, Any]) -> None:
    assert assertion_from_string(text) == assertion
