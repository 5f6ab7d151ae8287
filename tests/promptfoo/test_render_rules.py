"""The renderer's rules one by one: each rendering worked by hand from Nunjucks' semantics, each refusal by name.

Nunjucks (3.2.4, inside promptfoo 0.120.0) compiles a template to JavaScript: `==` is
JavaScript's loose equality, output is String(value) with null and undefined printed as
nothing, and each filter is the function in nunjucks/src/filters.js. Jinja2 parses the
same text and means Python by it. Where the two have no single meaning, the renderer
refuses (TemplateProblem) naming the construct; each refusal below says why they differ.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from adhd_evals.importing.formats.promptfoo.jsvalues import js_value
from adhd_evals.importing.formats.promptfoo.render import (
    TemplateProblem,
    auto_wrap,
    render,
    render_in_object,
)

VARS: dict[str, Any] = js_value(
    {
        "name": "Ada",
        "nothing": None,
        "falsy": False,
        "zero": 0,
        "minus": -1,
        "n": 1.5,
        "items": ["a", None, 3],
        "empty": [],
        "obj": {"k": "v", "1": "one"},
        "astral": "\U0001f600x",
        "json_text": '{"a": [1, 2]}',
        "num_text": "1",
    }
)


# the module, not the function of the same name its package exports
render_module = importlib.import_module("adhd_evals.importing.formats.promptfoo.render")


def rendered(template: str) -> str:
    return render(template, VARS, {})


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        # upper/lower: `str = normalize(str, '')`, and normalize maps null, undefined and false to ''
        pytest.param(
            "[{{ nothing | upper }}][{{ missing | lower }}][{{ falsy | upper }}]",
            "[][][]",
            id="case-of-nothing",
        ),
        # dump: JSON.stringify(obj, null, spaces); an indent of 0 or below is no indent, above 10 is 10
        pytest.param("{{ items | dump(2) }}", '[\n  "a",\n  null,\n  3\n]', id="dump-indent-2"),
        pytest.param("{{ items | dump(0) }}", '["a",null,3]', id="dump-indent-0-is-compact"),
        pytest.param("{{ items | dump(minus) }}", '["a",null,3]', id="dump-negative-indent-is-compact"),
        pytest.param(
            "{{ empty | dump(40) }}|{{ obj | dump(40) }}",
            "[]|{\n" + " " * 10 + '"1": "one",\n' + " " * 10 + '"k": "v"\n}',
            id="dump-indent-capped-at-10",
        ),
        # JSON.stringify(undefined) is undefined, printed as nothing; null is "null"
        pytest.param("[{{ missing | dump }}]{{ nothing | dump }}", "[]null", id="dump-undefined-and-null"),
        # join: `del = del || ''`, then Array.prototype.join, which prints null and undefined as ''
        pytest.param("{{ items | join(', ') }}|{{ items | join }}", "a, , 3|a3", id="join-with-nulls"),
        pytest.param(
            "{{ items | join(0) }}|{{ items | join(falsy) }}|{{ items | join(n) }}",
            "a3|a3|a1.51.53",
            id="join-false-separators-are-empty",
        ),
        # default(val, def, bool): `bool ? val || def : val !== undefined ? val : def`
        pytest.param(
            "{{ missing | default('x', true) }}{{ falsy | default('y', true) }}{{ nothing | default('w', true) }}",
            "xyw",
            id="default-boolean-takes-falsy",
        ),
        pytest.param(
            "{{ zero | default('z') }}[{{ nothing | default('v') }}]{{ empty | default('e', true) }}",
            "0[]",
            id="default-plain-only-undefined",
        ),
        pytest.param("{{ missing | d('d') }}", "d", id="d-is-default"),
        # length: normalize(val, ''), then an object's key count or .length (UTF-16 units)
        pytest.param(
            "{{ astral | length }} {{ obj | length }} {{ nothing | length }} {{ missing | length }} {{ items | length }}",
            "3 2 0 0 3",
            id="length-astral-object-null",
        ),
        # first/last: arr[0] and arr[arr.length - 1]; an empty array or text gives undefined
        pytest.param(
            "{{ items | first }} {{ items | last }} {{ name | first }}{{ name | last }} [{{ empty | first }}][{{ empty | last }}][{{ '' | last }}]",
            "a 3 Aa [][][]",
            id="first-last",
        ),
        # load is promptfoo's JSON.parse; the array prints as String([1, 2])
        pytest.param("{{ (json_text | load).a }}|{{ 'null' | load }}", "1,2|", id="load"),
        pytest.param("{{ name | safe }}", "Ada", id="safe-changes-nothing"),
        # `a ~ b` compiles to `a + "" + b`: String(null) is "null", String(undefined) "undefined",
        # String([]) is "", String(["a", null, 3]) is "a,,3", and 1.5 prints as 1.5
        pytest.param(
            "{{ name ~ nothing }}|{{ name ~ missing }}|{{ zero ~ empty ~ n ~ items }}",
            "Adanull|Adaundefined|01.5a,,3",
            id="concat",
        ),
        pytest.param("{{ obj ~ '' }}", "[object Object]", id="concat-object"),
        # loose ==: "1" == 1, null == undefined, "" == 0, false == 0, " 0x10 " == 16 (Number() trims, reads hex)
        pytest.param(
            "{% if num_text == 1 %}a{% endif %}{% if nothing == missing %}b{% endif %}{% if '' == 0 %}c{% endif %}"
            "{% if falsy == 0 %}d{% endif %}{% if ' 0x10 ' == 16 %}e{% endif %}{% if '1e0' == 1 %}f{% endif %}"
            "{% if '.5' == 0.5 %}g{% endif %}{% if ' ' == 0 %}h{% endif %}",
            "abcdefgh",
            id="loose-equal-true",
        ),
        # null == 0 and null == '' are false (null equals only null and undefined); 'abc' is NaN
        pytest.param(
            "{% if nothing == 0 %}X{% endif %}{% if nothing == '' %}X{% endif %}{% if 'abc' == 0 %}X{% endif %}"
            "{% if 'a' == 'A' %}X{% endif %}{% if '0x1g' == 1 %}X{% endif %}{% if nothing != 0 %}ne{% endif %}",
            "ne",
            id="loose-equal-false",
        ),
        # in: indexOf on an array (strict: 3 is there, '3' is not; null is), substring, object key
        pytest.param(
            "{% if 'a' in items %}a{% endif %}{% if 3 in items %}b{% endif %}{% if '3' not in items %}c{% endif %}"
            "{% if null in items %}d{% endif %}{% if 'da' in name %}e{% endif %}{% if 'k' in obj %}f{% endif %}"
            "{% if 'z' not in obj %}g{% endif %}{% if true in items %}X{% endif %}",
            "abcdefg",
            id="in",
        ),
        # ordering: two strings by code unit ('B' is 66, 'a' 97; '10' < '9'); otherwise as numbers,
        # null as 0, undefined as NaN (every comparison with NaN is false)
        pytest.param(
            "{% if 'B' < 'a' %}a{% endif %}{% if '10' < '9' %}b{% endif %}{% if nothing < 1 %}c{% endif %}"
            "{% if falsy < 1 %}d{% endif %}{% if '2' > 10 %}X{% endif %}{% if 2 >= '2' %}e{% endif %}"
            "{% if nothing <= 0 %}f{% endif %}{% if missing < 1 %}X{% endif %}{% if missing >= missing %}X{% endif %}",
            "abcdef",
            id="ordering",
        ),
        # a loop over null or undefined runs its else branch, as over an empty array
        pytest.param(
            "{% for x in nothing %}X{% else %}E{% endfor %}{% for x in missing %}X{% else %}F{% endfor %}",
            "EF",
            id="loop-over-nothing",
        ),
        pytest.param(
            "{% for x in items %}{{ loop.index0 }}{{ loop.revindex }}{{ loop.first }};{% endfor %}",
            "03true;12false;21false;",
            id="loop-variables",
        ),
        # defined is `!== undefined` (null is defined); none/null is `=== null`; `null` is a literal in Nunjucks
        pytest.param(
            "{% if missing is undefined %}u{% endif %}{% if nothing is defined %}d{% endif %}{% if null is defined %}n{% endif %}"
            "{% if nothing is none %}0{% endif %}{% if missing is none %}X{% endif %}",
            "udn0",
            id="tests",
        ),
        # member lookup: an object's own key (a number key read as its text), an array's index, else undefined
        pytest.param(
            "{{ obj[1] }}{{ obj['1'] }}{{ items[0] }}[{{ items[5] }}][{{ obj.missing.more }}][{{ nothing.x }}]",
            "oneonea[][][]",
            id="lookups",
        ),
        pytest.param(
            "{{ 'x' if missing else 'y' }}{{ empty and 'z' }}{{ not empty }}{{ zero or 'w' }}",
            "yzfalsew",
            id="truth-of-javascript",
        ),
    ],
)
def test_renders_as_nunjucks(template: str, expected: str) -> None:
    assert rendered(template) == expected


# Refusals met while rendering (a value the template meets): they carry no line.
RUNTIME_REFUSALS = [
    # (1.5).toUpperCase is not a function in JavaScript; Python has no upper() on a float either
    pytest.param(
        "{{ n | upper }}",
        "the upper filter on a float (JavaScript has no such method there)",
        id="upper-on-a-number",
    ),
    # trim, unlike upper and lower, does not normalize: null.replace is a TypeError in Nunjucks
    pytest.param(
        "{{ nothing | trim }}",
        "the trim filter on null (Nunjucks stops with a TypeError there)",
        id="trim-on-null",
    ),
    pytest.param(
        "{{ missing | trim }}",
        "the trim filter on undefined (Nunjucks stops with a TypeError there)",
        id="trim-on-undefined",
    ),
    pytest.param(
        "{{ falsy | trim }}",
        "the trim filter on false (Nunjucks stops with a TypeError there)",
        id="trim-on-false",
    ),
    # JSON.stringify indents with a string's own characters ("\t"), and with 2.5 as 2
    pytest.param(
        "{{ items | dump('  ') }}",
        "the dump filter with an indent that is not a whole number",
        id="dump-text-indent",
    ),
    pytest.param(
        "{{ items | dump(2.5) }}",
        "the dump filter with an indent that is not a whole number",
        id="dump-fraction-indent",
    ),
    pytest.param(
        "{{ items | dump(falsy) }}",
        "the dump filter with an indent that is not a whole number",
        id="dump-boolean-indent",
    ),
    # Nunjucks' join(arr, del, attr) maps v[attr] over JavaScript values first
    pytest.param("{{ items | join(',', 'k') }}", "the join filter with an attribute", id="join-attribute"),
    # "Ada".join is undefined in JavaScript: a TypeError
    pytest.param("{{ name | join }}", "the join filter on something that is not an array", id="join-on-text"),
    pytest.param(
        "{{ nothing | join(',') }}",
        "the join filter on null (Nunjucks stops with a TypeError there)",
        id="join-on-null",
    ),
    pytest.param(
        "{{ missing | join }}",
        "the join filter on undefined (Nunjucks stops with a TypeError there)",
        id="join-on-undefined",
    ),
    # (1.5).length is undefined in JavaScript, an error in Python
    pytest.param("{{ n | length }}", "the length filter on a float", id="length-of-a-number"),
    # "😀x"[0] is half a surrogate pair in JavaScript, a whole character in Python
    pytest.param(
        "{{ astral | first }}",
        "first/last of a string with characters outside ASCII (JavaScript counts UTF-16 units)",
        id="first-of-astral-text",
    ),
    pytest.param(
        "{{ 'é' | last }}",
        "first/last of a string with characters outside ASCII (JavaScript counts UTF-16 units)",
        id="last-of-accented-text",
    ),
    pytest.param("{{ n | first }}", "the first filter on a float", id="first-of-a-number"),
    pytest.param("{{ obj | last }}", "the last filter on a JSDict", id="last-of-an-object"),
    # JSON.parse(String(value)) would parse "a,,3"; promptfoo's load is meant for text
    pytest.param("{{ items | load }}", "the load filter on something that is not text", id="load-not-text"),
    pytest.param(
        "{{ name | load }}",
        "the load filter on text that is not JSON (promptfoo stops there)",
        id="load-not-json",
    ),
    # Python's json reads NaN; JSON.parse throws on it
    pytest.param(
        "{{ 'NaN' | load }}",
        "the load filter on text that is not JSON (promptfoo stops there)",
        id="load-nan",
    ),
    # JavaScript compares arrays and objects by identity, Python by content
    pytest.param(
        "{% if items == items %}{% endif %}",
        "comparing an array or object (JavaScript compares identities)",
        id="compare-arrays",
    ),
    pytest.param(
        "{% if obj != 'x' %}{% endif %}",
        "comparing an array or object (JavaScript compares identities)",
        id="compare-object",
    ),
    pytest.param(
        "{% if items < 1 %}{% endif %}",
        "comparing an array or object (JavaScript compares identities)",
        id="order-array",
    ),
    # JavaScript orders UTF-16 code units, Python code points: they differ past U+FFFF
    pytest.param(
        "{% if astral < 'a' %}{% endif %}",
        "ordering text outside ASCII (JavaScript compares UTF-16 units)",
        id="order-astral-text",
    ),
    # Nunjucks throws on `in` over anything else; `3 in "a3"` would be a substring search of "3"
    pytest.param(
        "{% if 1 in n %}{% endif %}",
        "`in` on something that is not an array, text or object",
        id="in-a-number",
    ),
    pytest.param(
        "{% if 'x' in missing %}{% endif %}",
        "`in` on something that is not an array, text or object",
        id="in-undefined",
    ),
    pytest.param(
        "{% if 3 in name %}{% endif %}",
        "`in` on something that is not an array, text or object",
        id="number-in-text",
    ),
    # Nunjucks iterates an object's [key, value] pairs, a string's characters by UTF-16 unit
    pytest.param(
        "{% for x in obj %}{% endfor %}",
        "a for loop over an object (Nunjucks iterates arrays the same way, nothing else)",
        id="loop-over-object",
    ),
    pytest.param(
        "{% for x in name %}{% endfor %}",
        "a for loop over a str (Nunjucks iterates arrays the same way, nothing else)",
        id="loop-over-text",
    ),
    # attribute access reaches an object's own keys and an array's indexes only
    pytest.param(
        "{{ items.length }}",
        "looking up 'length' in an array (JavaScript gives its own properties there)",
        id="array-property",
    ),
    pytest.param(
        "{{ name['length'] }}",
        "looking up 'length' in a string (JavaScript gives its own properties there)",
        id="string-property",
    ),
    pytest.param(
        "{{ n.x }}",
        "looking up 'x' in float (JavaScript gives its own properties there)",
        id="number-property",
    ),
    pytest.param(
        "{{ env.HOME }}",
        "env.HOME: a variable of the environment promptfoo runs in",
        id="machine-environment",
    ),
]


@pytest.mark.parametrize(("template", "construct"), RUNTIME_REFUSALS)
def test_values_with_no_single_meaning_are_refused(template: str, construct: str) -> None:
    with pytest.raises(TemplateProblem) as caught:
        rendered(template)
    assert (caught.value.construct, caught.value.line) == (construct, None)


# Refusals of the template itself, found before anything renders: each is on line 2 here.
STATIC_REFUSALS = [
    # no loader: a file, another template, or blocks of one
    pytest.param("{% include 'x' %}", "{% include %} (a file the template would read)", id="include"),
    pytest.param("{% import 'x' as y %}", "{% import %}", id="import"),
    pytest.param("{% from 'x' import y %}", "{% from ... import %}", id="from-import"),
    pytest.param("{% extends 'x' %}", "{% extends %}", id="extends"),
    pytest.param("{% block b %}{% endblock %}", "{% block %}", id="block"),
    pytest.param("{% macro m() %}{% endmacro %}", "{% macro %}", id="macro"),
    pytest.param("{% call m() %}{% endcall %}", "{% call %}", id="call-block"),
    pytest.param("{% filter upper %}x{% endfilter %}", "{% filter %} blocks", id="filter-block"),
    # Nunjucks' set scopes differently (a set in a loop is visible after it in Nunjucks only)
    pytest.param("{% set x = 1 %}", "{% set %}", id="set"),
    pytest.param("{% set x %}y{% endset %}", "{% set %} blocks", id="set-block"),
    pytest.param("{% with x = 1 %}{% endwith %}", "{% with %} (not Nunjucks)", id="with"),
    pytest.param("{% autoescape true %}{% endautoescape %}", "{% autoescape %}", id="autoescape"),
    # Nunjucks reads name[1:2] as its own slice of arrays only; Python slices text too
    pytest.param("{{ name[1:2] }}", "slices ([a:b]), which Nunjucks reads differently", id="slice"),
    pytest.param("{{ [1] }}", "list literals", id="list-literal"),
    pytest.param("{{ (1, 2) }}", "tuples and several loop variables", id="tuple"),
    pytest.param("{{ {'a': 1} }}", "object literals", id="object-literal"),
    # JavaScript's arithmetic on text and null differs from Python's ("1" + 1 is "11", null + 1 is 1)
    pytest.param("{{ +n }}", "unary +", id="unary-plus"),
    pytest.param("{{ -n }}", "unary -", id="unary-minus"),
    pytest.param("{{ n + 1 }}", "+ (JavaScript adds text and numbers differently)", id="add"),
    pytest.param("{{ n - 1 }}", "-", id="subtract"),
    pytest.param("{{ name * 2 }}", "* (repeats text in Python)", id="multiply"),
    pytest.param("{{ n / 2 }}", "/", id="divide"),
    pytest.param("{{ n // 2 }}", "//", id="floor-divide"),
    pytest.param("{{ n % 2 }}", "%", id="modulo"),
    pytest.param("{{ n ** 2 }}", "** (unbounded in Python)", id="power"),
    # no call at all: there is nothing safe to call
    pytest.param("{{ name() }}", "calling a function or method", id="call"),
    pytest.param("{{ name | title }}", "the title filter", id="unknown-filter"),
    pytest.param(
        "{{ items | join(d=',') }}", "keyword arguments to the join filter", id="filter-keyword-arguments"
    ),
    pytest.param(
        "{{ items | join(*items) }}", "keyword arguments to the join filter", id="filter-star-arguments"
    ),
    pytest.param("{% if n is odd %}{% endif %}", "the `is odd` test", id="unknown-test"),
    pytest.param(
        "{% if n is defined(x=1) %}{% endif %}", "the Keyword construct", id="test-keyword-argument"
    ),
    pytest.param(
        "{% for x in items if x %}{% endfor %}",
        "for loops with `if` or `recursive` (not Nunjucks)",
        id="loop-filter",
    ),
    pytest.param(
        "{% for x in items recursive %}{% endfor %}",
        "for loops with `if` or `recursive` (not Nunjucks)",
        id="recursive-loop",
    ),
    pytest.param(
        "{% for k, v in items %}{% endfor %}", "for loops with several variables", id="loop-unpacking"
    ),
    # the renderer's own helpers are written into the context under this prefix
    pytest.param("{{ __pf_concat }}", "the name __pf_concat", id="helper-name"),
    # JavaScript reads a < b < c as (a < b) < c; Jinja2 as a < b and b < c
    pytest.param(
        "{{ 1 < n < 2 }}",
        "chained comparisons (JavaScript compares the first result with the next)",
        id="chained-comparison",
    ),
    # Jinja2's lexer reads these; Nunjucks' reads them differently or not at all
    pytest.param(
        "{{ True }}", "True (a constant in Jinja2, a variable name in Nunjucks)", id="capitalized-constant"
    ),
    pytest.param(
        "{{ 1e3 }}",
        "the number 1e3 (Nunjucks reads digits with at most one point, nothing else)",
        id="exponent",
    ),
    pytest.param(
        "{{ 0x10 }}",
        "the number 0x10 (Nunjucks reads digits with at most one point, nothing else)",
        id="hex-number",
    ),
    pytest.param(
        "{{ items.0 }}", ".0 (an index after a dot, which Nunjucks cannot read)", id="index-after-dot"
    ),
    pytest.param(
        r"{{ '\x41' }} {{ 'A' }}",
        "the escapes of 'A' (two strings alike in Jinja2, not in Nunjucks)",
        id="escapes-alike-in-jinja2",
    ),
]


@pytest.mark.parametrize(("template", "construct"), STATIC_REFUSALS)
def test_constructs_with_no_single_meaning_are_refused_with_their_line(template: str, construct: str) -> None:
    with pytest.raises(TemplateProblem) as caught:
        rendered("first line\n" + template)
    assert (caught.value.construct, caught.value.line) == (construct, 2)


@pytest.mark.parametrize(
    "template",
    [
        pytest.param("{% do x %}", id="do-tag"),
        pytest.param("{% for x in items %}{% break %}{% endfor %}", id="break"),
        pytest.param("{{ x", id="unfinished-output"),
    ],
)
def test_what_neither_engine_reads_is_refused_with_the_parser_line(template: str) -> None:
    """do/break/continue are Jinja2 extensions not loaded here (and not Nunjucks)."""
    with pytest.raises(TemplateProblem) as caught:
        rendered("first line\n" + template)
    assert caught.value.construct.startswith("a template Nunjucks cannot read either: ")
    assert caught.value.line == 2


def test_loops_past_the_budget_are_refused() -> None:
    """100,001 iterations of one loop: one past MAX_LOOP_ITERATIONS (100,000)."""
    many = js_value({"xs": [0] * 100_001})
    with pytest.raises(TemplateProblem) as caught:
        render("{% for x in xs %}{% endfor %}", many, {})
    assert caught.value.construct == "loops of more than 100000 iterations in one template"
    # exactly at the budget it renders: two loops of 50,000 spend it together
    half = js_value({"xs": [0] * 50_000})
    assert render("{% for x in xs %}{% endfor %}{% for x in xs %}{% endfor %}.", half, {}) == "."


def test_output_past_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limit is on characters written, counted piece by piece: 6 + 6 is past 10."""
    monkeypatch.setattr(render_module, "MAX_OUTPUT", 10)
    assert render("{{ s }}{{ s }}", {"s": "12345"}, {}) == "1234512345"
    with pytest.raises(TemplateProblem) as caught:
        render("{{ s }}{{ s }}", {"s": "123456"}, {})
    assert caught.value.construct == "output longer than 10 characters"


@pytest.mark.long
def test_values_nested_too_deep_to_print_are_refused() -> None:
    """String() of an array 100,000 deep: Python's recursion stops before JavaScript's would."""
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(TemplateProblem) as caught:
        render("{{ deep }}", {"deep": deep}, {})
    assert caught.value.construct == "nesting too deep to render"


def test_an_error_inside_a_test_is_a_refusal_naming_it() -> None:
    """`defined` takes no argument: the TypeError becomes a refusal, never a traceback."""
    with pytest.raises(TemplateProblem) as caught:
        rendered("{% if n is defined(1) %}{% endif %}")
    assert caught.value.construct.startswith("TypeError: ")


def test_an_unfinished_tag_beside_endraw_is_refused() -> None:
    """promptfoo wraps text holding an unfinished tag in {% raw %}; an {% endraw %} already there
    would close its wrapping early, so what it renders depends on where the tags fall."""
    with pytest.raises(TemplateProblem) as caught:
        auto_wrap("a {{ b\n{% endraw %}")
    assert (
        caught.value.construct
        == "an unfinished tag beside {% endraw %} (promptfoo's raw wrapping breaks there)"
    )


def test_a_json_prompt_renders_every_string_inside_it() -> None:
    """renderVarsInObject: strings in a JSON prompt render with the vars; keys and other values stay."""
    prompt = js_value({"role": "user", "content": ["{{ name }}", 2, None, {"{{ k }}": "{{ n }}"}]})
    out = render_in_object(prompt, VARS, {})
    assert out == {"role": "user", "content": ["Ada", 2, None, {"{{ k }}": "1.5"}]}


def test_env_holds_only_the_config_env() -> None:
    assert render("{{ env.REGION }}|{{ env['REGION'] }}", {}, {"REGION": "eu"}) == "eu|eu"
