"""The report's own HTML escape (escape.escape: report starts without the html package, whose
html.entities is about 1.5 ms of its start-up) escapes exactly as html.escape does."""

from __future__ import annotations

import html

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adhd_evals.runs.reporting.escape import escape, html_text, md_text

# the characters either escape touches, among others, so a draw meets them often
TOUCHED = st.text(alphabet=st.sampled_from("&<>\"'a;#x27lt") | st.characters(), max_size=40)


@given(TOUCHED, st.booleans())
def test_it_escapes_as_html_escape_does(text: str, quote: bool) -> None:
    assert escape(text, quote=quote) == html.escape(text, quote=quote)


@pytest.mark.parametrize(
    ("text", "quote", "expected"),
    [
        # by hand from html.escape's rules: & first (so "&lt;" given becomes "&amp;lt;", never
        # escaped twice), then < and >, and with quote " as &quot; and ' as &#x27;
        ('&lt;<b>"x"\'', True, "&amp;lt;&lt;b&gt;&quot;x&quot;&#x27;"),
        ('&lt;<b>"x"\'', False, '&amp;lt;&lt;b&gt;"x"\''),
    ],
)
def test_each_sign_by_hand(text: str, quote: bool, expected: str) -> None:
    assert escape(text, quote=quote) == expected


def test_the_renderers_texts_keep_their_rules() -> None:
    """html_text quotes (and shows a control as <U+XXXX>, escaped); md_text does not quote, and
    puts an @ in a code span: worked by hand from escape.py's rules."""
    assert html_text("a\u200b'<") == "a&lt;U+200B&gt;&#x27;&lt;"
    assert md_text('@x "<y>"') == '`@`x "&lt;y&gt;"'
