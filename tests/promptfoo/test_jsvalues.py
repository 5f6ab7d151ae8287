"""JavaScript's view of config values: String(), Number.prototype.toString, JSON.stringify, truth, trim, key order.

Expectations are ECMAScript's (checked with node where not plain from the spec).
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2 import Undefined

from adhd_evals.importing.formats.promptfoo.jsvalues import (
    JSDict,
    JSList,
    js_json,
    js_keys,
    js_number,
    js_parse_json,
    js_string,
    js_trim,
    js_truthy,
    js_value,
)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (10**20, "100000000000000000000"),  # an integer below 10^21 prints in full
        (10**21, "1e+21"),  # from 10^21 on, exponent form, as the double it becomes
        (-(10**21), "-1e+21"),
        (2**53, "9007199254740992"),
        (float("nan"), "NaN"),
        (float("-inf"), "-Infinity"),
        (-0.0, "0"),  # String(-0) is "0"
        (0.0, "0"),
        (1.23e-18, "1.23e-18"),  # digits "123", point 17 places left of them: exponent -18
        (1.5e300, "1.5e+300"),
        (123.456, "123.456"),
        (0.1 + 0.2, "0.30000000000000004"),  # the shortest text that reads back as the same double
        (5e-324, "5e-324"),
        (999999999999999900000.0, "999999999999999900000"),  # 21 digits: still positional
        (True, "true"),
    ],
)
def test_numbers_print_as_number_to_string(value: float, text: str) -> None:
    assert js_number(value) == text


@pytest.mark.long
@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_printed_number_reads_back_as_the_same_double(value: float) -> None:
    """Number.prototype.toString gives the shortest digits that round-trip; so must we."""
    text = js_number(value)
    assert float(text) == value
    assert not text.endswith(".0") and "e+0" not in text and "e-0" not in text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, ""),  # Nunjucks prints null and undefined as nothing
        (Undefined(), ""),
        (False, "false"),
        (2.0, "2"),
        ([1, [None, 2.5], {}], "1,,2.5,[object Object]"),  # String(array) is join(","), null as ""
        ([Undefined(), "a"], ",a"),
        ({"a": 1}, "[object Object]"),
        (datetime.date(2024, 1, 2), "2024-01-02"),  # anything else: its own text
    ],
)
def test_string_is_javascript_string(value: Any, text: str) -> None:
    assert js_string(value) == text


def test_keys_list_array_indexes_first_ascending_then_the_rest_in_order() -> None:
    """Object.keys: integer keys below 2^32 - 1 ascending; "01" and 4294967295 are plain keys."""
    obj = {"b": 1, "2": 2, "a": 3, "1": 4, "01": 5, "4294967295": 6, "4294967294": 7}
    assert js_keys(obj) == ["1", "2", "4294967294", "b", "a", "01", "4294967295"]
    assert js_keys({"b": 1, "a": 2}) == ["b", "a"]


@pytest.mark.parametrize(
    ("value", "indent", "text"),
    [
        (
            [Undefined(), float("nan"), float("inf")],
            0,
            "[null,null,null]",
        ),  # not representable: null in an array
        ({"a": Undefined(), "b": 1}, 0, '{"b":1}'),  # and left out of an object
        ({"a": Undefined()}, 2, "{}"),
        ({}, 2, "{}"),
        ({"a": []}, 2, '{\n  "a": []\n}'),
        ((1, "é"), 0, '[1,"é"]'),  # a tuple is an array; text is not escaped to ASCII
        ({"2": True, "1": None}, 0, '{"1":null,"2":true}'),
        (datetime.date(2024, 1, 2), 0, '"2024-01-02"'),
        (Undefined(), 0, None),  # JSON.stringify(undefined) is undefined
    ],
)
def test_json_is_json_stringify(value: Any, indent: int, text: str | None) -> None:
    assert js_json(value, indent) == text


@pytest.mark.parametrize(
    ("value", "truth"),
    [
        (float("nan"), False),
        (0, False),
        ("", False),
        ("0", True),
        (JSList(), True),
        (JSDict(), True),
        ([], True),
    ],
)
def test_truth_is_javascript_truth(value: Any, truth: bool) -> None:
    """Arrays and objects are true even when empty; NaN is false."""
    assert js_truthy(value) is truth


def test_empty_arrays_and_objects_are_true_in_conditions() -> None:
    assert bool(JSList()) and bool(JSDict())


def test_parse_json_gives_javascript_containers_and_rejects_what_json_parse_rejects() -> None:
    parsed = js_parse_json('{"b": [1, {"c": null}]}')
    assert parsed == {"b": [1, {"c": None}]}
    assert (
        isinstance(parsed, JSDict) and isinstance(parsed["b"], JSList) and isinstance(parsed["b"][1], JSDict)
    )
    for text in ("NaN", "Infinity", "-Infinity", "[1,]", "{'a': 1}"):
        with pytest.raises(ValueError):
            js_parse_json(text)


def test_trim_removes_javascript_whitespace_only() -> None:
    """String.prototype.trim: the BOM, NBSP and ideographic space are whitespace; ZERO WIDTH SPACE is not."""
    assert js_trim("\ufeff\u00a0 x \u3000\u2029") == "x"
    assert js_trim("\u200bx") == "\u200bx"


def test_values_take_javascript_shapes() -> None:
    """YAML keys become text (1 is "1"), sequences and tuples arrays, mappings objects, all the way down."""
    value = js_value({1: (2, {"a": [3]})})
    assert value == {"1": [2, {"a": [3]}]}
    assert isinstance(value, JSDict)
    outer = value["1"]
    assert isinstance(outer, JSList)
    inner = outer[1]
    assert isinstance(inner, JSDict)
    assert isinstance(inner["a"], JSList)
