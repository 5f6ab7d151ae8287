"""Escaping for the report's renderers: every text from cases, responses and scores shown as text,
never as markup, and never hiding or reordering what a reader sees."""

from __future__ import annotations

import re

# Shown as <U+XXXX> so a response cannot hide or reorder what a reader sees: C0/C1 controls
# (but tab and newline), the soft hyphen, the Arabic letter mark, Hangul and Khmer fillers,
# Mongolian selectors, zero-width marks, line and paragraph separators, bidi embeddings,
# overrides and isolates, word joiner and invisible operators (U+2060-2064) and the other
# format characters to U+206F, variation selectors, the BOM, interlinear annotations, and
# the tag characters and supplementary variation selectors (U+E0000-E0FFF).
_CONTROLS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e0fff]"
)
# Markdown syntax a cell must not carry: links and images (no `[`, no link), emphasis, code,
# strike-through, table pipes. < and > are HTML-escaped; a `(` alone makes nothing.
_MD_SYNTAX = re.compile(r"([\\`*_\[\]~|])")


def escape(text: str, *, quote: bool) -> str:
    """html.escape's text, without importing html (its html.entities is about 1.5 ms of report's
    start-up): &, < and > as entities, and with `quote` the quotes too; & first, so none is
    escaped twice (tests/test_startup_runs_escape.py holds it to html.escape)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if quote:
        text = text.replace('"', "&quot;").replace("'", "&#x27;")
    return text


def _visible(match: re.Match[str]) -> str:
    return f"<U+{ord(match.group()):04X}>"


def html_text(text: object) -> str:
    return escape(_CONTROLS.sub(_visible, str(text)), quote=True)


def md_text(text: object) -> str:
    """One cell or line of text: no line breaks, no HTML, and no Markdown a response could use
    (links, images, emphasis: each sign backslash-escaped); an `@` goes in a code span, where
    GitHub makes no mention of it (a backslash would not stop a mention)."""
    escaped = _MD_SYNTAX.sub(r"\\\1", " ".join(str(text).split()))
    return escape(_CONTROLS.sub(_visible, escaped), quote=False).replace("@", "`@`")
