"""Templates render as Nunjucks renders them, or are refused naming the construct; template text is data."""

from __future__ import annotations

import time

import pytest

from adhd_evals.importing.formats.promptfoo.jsregex import NotTranslatable, translate
from adhd_evals.importing.formats.promptfoo.jsvalues import js_json, js_number, js_string, js_value
from adhd_evals.importing.formats.promptfoo.render import (
    TemplateProblem,
    auto_wrap,
    render,
    resolve_variables,
)

VARS = js_value(
    {
        "name": "Ada",
        "items": ["a", "b", 1.0],
        "n": 1.0,
        "none": None,
        "flag": True,
        "obj": {"k": "v", "2": "two"},
        "empty": [],
    }
)


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        pytest.param("{{ name | upper }}/{{ name | lower }}", "ADA/ada", id="upper-lower"),
        pytest.param("{{ items }}", "a,b,1", id="array-prints-as-String-joins-it"),
        pytest.param("{{ n }}", "1", id="1.0-prints-as-1"),
        pytest.param(
            "[{{ none }}][{{ missing }}][{{ missing.deeper.still }}]", "[][][]", id="undefined-and-null"
        ),
        pytest.param("{{ flag }}", "true", id="booleans-in-javascript-spelling"),
        pytest.param("{{ obj | dump }}", '{"2":"two","k":"v"}', id="dump-orders-index-keys-first"),
        pytest.param("{% if empty %}true{% endif %}", "true", id="an-empty-array-is-true"),
        pytest.param(
            "{{ missing | default('x') }}{{ none | default('y') }}", "x", id="default-only-for-undefined"
        ),
        pytest.param("{% for i in items %}{{ loop.index }}{{ i }}{% endfor %}", "1a2b31", id="loop"),
        pytest.param("{% if n == '1' %}loose{% endif %}", "loose", id="double-equals-is-loose"),
        pytest.param("{{ '  x ' | trim }}|{{ items | join('-') }}", "x|a-b-1", id="trim-join"),
        pytest.param("{{ '{{type}}' }}", "{{type}}", id="a-literal-with-braces"),
        pytest.param("line\n", "line\n", id="trailing-newline-kept"),
    ],
)
def test_renders_as_nunjucks(template: str, expected: str) -> None:
    """Each expectation is Nunjucks' documented output for these vars (undefined and null print
    nothing; String([..]) joins with commas; JSON.stringify puts array-index keys first)."""
    assert render(template, VARS, {}) == expected


@pytest.mark.parametrize(
    ("template", "named"),
    [
        pytest.param("{{ ''.__class__ }}", "__class__", id="python-internals"),
        pytest.param("{{ name.__class__.__mro__ }}", "__class__", id="python-internals-of-a-var"),
        pytest.param("{% include '/etc/passwd' %}", "include", id="include"),
        pytest.param("{% import 'x' as y %}", "import", id="import"),
        pytest.param("{% for i in range(10**9) %}x{% endfor %}", "calling", id="huge-range"),
        pytest.param("{{ 'a' * 1000000000 }}", "*", id="huge-repeat"),
        pytest.param("{{ 9 ** 9 ** 9 }}", "**", id="huge-power"),
        pytest.param("{{ name.upper() }}", "calling", id="method-call"),
        pytest.param("{{ name.length }}", "length", id="javascript-property"),
        pytest.param("{{ env.HOME }}", "env.HOME", id="the-machine's-environment"),
        pytest.param("{{ name | wordcount }}", "wordcount filter", id="unknown-filter"),
        pytest.param("{% set x = 1 %}", "set", id="set"),
        pytest.param("{{ x", "Nunjucks cannot read", id="syntax-error"),
    ],
)
def test_hostile_or_different_templates_are_refused_by_name_quickly(template: str, named: str) -> None:
    started = time.perf_counter()
    with pytest.raises(TemplateProblem) as caught:
        render(template, VARS, {})
    assert named in caught.value.construct
    assert time.perf_counter() - started < 2.0


def test_nested_loops_stop_at_the_loop_budget() -> None:
    """1,000 x 1,000 iterations over data: past the 100,000-iteration budget, refused within seconds."""
    many = js_value({"xs": ["x"] * 1000})
    started = time.perf_counter()
    with pytest.raises(TemplateProblem, match="loops of more than"):
        render("{% for a in xs %}{% for b in xs %}{% endfor %}{% endfor %}", many, {})
    assert time.perf_counter() - started < 5.0


def test_config_env_is_the_only_env() -> None:
    assert render("{{ env.REGION }}", {}, {"REGION": "eu"}) == "eu"


def test_unfinished_tag_is_wrapped_raw_as_promptfoo_does() -> None:
    """autoWrapRawIfPartialNunjucks: `{{` with no `}` before the line ends makes the whole text literal."""
    assert auto_wrap("a {{ b\n}}") == "{% raw %}a {{ b\n}}{% endraw %}"
    assert render(auto_wrap("a {{ b\n}}"), {}, {}) == "a {{ b\n}}"
    assert auto_wrap("a {{ b }}") == "a {{ b }}"


def test_vars_resolve_before_rendering_with_javascript_replace_patterns() -> None:
    """resolveVariables: the first `{{ name }}` of a var is replaced by var `name`, String.replace
    style ($& is the matched text), at most five passes: "x {{ b }} y" with b = "$& B" gains five " B"."""
    variables: dict[str, object] = {"a": "x {{ b }} y", "b": "$& B", "c": "{{ nowhere }}"}
    resolve_variables(variables)
    assert variables == {"a": "x {{ b }} B B B B B y", "b": "$& B", "c": "{{ nowhere }}"}


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (0.1, "0.1"),
        (1e21, "1e+21"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (123456789012345680000.0, "123456789012345680000"),
        (-2.5, "-2.5"),
        (float("inf"), "Infinity"),
    ],
)
def test_numbers_print_as_javascript_prints_them(value: float, text: str) -> None:
    assert js_number(value) == text


def test_javascript_string_and_json_of_containers() -> None:
    assert js_string(js_value([1, None, [2, 3], {"a": 1}])) == "1,,2,3,[object Object]"
    assert (
        js_json(js_value({"b": [1.0, None], "a": "é"}), 2)
        == '{\n  "b": [\n    1,\n    null\n  ],\n  "a": "é"\n}'
    )


@pytest.mark.parametrize(
    ("pattern", "python"),
    [
        ("abc", "abc"),
        (r"\d+", "[0-9]+"),
        ("a$", r"a\Z"),
        (r"\bword\b", r"(?a)\bword\b"),
        ("a.b", "a[^\n\r\u2028\u2029]b"),
    ],
)
def test_javascript_patterns_translate_to_python_ones_that_match_alike(pattern: str, python: str) -> None:
    assert translate(pattern) == python


@pytest.mark.parametrize("pattern", ["(?<name>x)", "[^]", r"\e", "(?i)x"])
def test_javascript_patterns_with_no_exact_python_form_are_named(pattern: str) -> None:
    with pytest.raises(NotTranslatable):
        translate(pattern)
