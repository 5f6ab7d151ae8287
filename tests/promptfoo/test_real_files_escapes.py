"""Nunjucks' string escapes, rendered as Nunjucks' lexer reads them: `\\n`, `\\t` and `\\r` are
control characters, any other escaped character is itself (promptfoo 0.120.0 rendered the
fixture nunjucks-escapes that way: the equivalence test compares it)."""

from __future__ import annotations

import pytest

from adhd_evals.importing.formats.promptfoo.render import TemplateProblem, nunjucks_string, render


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        pytest.param(r'{{ "\{" }}', "{", id="brace"),
        pytest.param(r'{{ "\q" }}', "q", id="any-letter"),
        pytest.param(r'{{ "\x41" }}', "x41", id="hex-is-not-hex"),
        pytest.param(r'{{ "\u0041" }}', "u0041", id="unicode-is-not-unicode"),
        pytest.param(r'{{ "a\tb" }}', "a\tb", id="tab"),
        pytest.param(r'{{ "\\" }}', "\\", id="backslash"),
        pytest.param(r"{{ 'it\'s' }}", "it's", id="quote"),
        pytest.param(r'{{ "\{" }} {{ "B" }}', "{ B", id="beside-a-plain-string"),
        pytest.param('{{ "\\x41" }}\n{{ "A" }}', "x41\nA", id="alike-on-two-lines"),
    ],
)
def test_strings_render_as_nunjucks_reads_them(template: str, expected: str) -> None:
    assert render(template, {}, {}) == expected


def test_two_strings_jinja2_reads_alike_on_one_line_are_refused() -> None:
    """ "\\x41" and "A" are both "A" to Jinja2, "x41" and "A" to Nunjucks: the tree cannot tell them."""
    with pytest.raises(TemplateProblem) as caught:
        render(r'{{ "\x41" }}{{ "A" }}', {}, {})
    assert "two strings alike in Jinja2, not in Nunjucks" in str(caught.value)


def test_nunjucks_string_by_hand() -> None:
    assert nunjucks_string(r'"a\nb\{\r\\"') == "a\nb{\r\\"
