"""`adhd-evals report`: one self-contained HTML file people look at, or Markdown for CI.

The view model (`view.py`) aggregates the rows; each renderer draws it, chosen by name from
`RENDERERS`.

The HTML opens offline: inline CSS and inline SVG charts, no script, no font,
no link to anywhere. Every text from cases, responses and scores is escaped as
`html.escape` escapes (escape.py: a `<script>` in a response shows as text). The gate's verdict
and reasons are `score`'s own, word for word.

Charts are hand-written SVG: bars with whiskers are a few rectangles, and a
charting library would put JavaScript (inlined, hundreds of kilobytes) into a
page whose content is untrusted text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from .escape import html_text as _e
from .escape import md_text as _md
from .render_markdown import markdown_report
from .view import CaseView, Inputs, case_views, criteria_header, criteria_rows, outside_catalog

__all__ = [
    "RENDERERS",
    "CaseView",
    "Inputs",
    "_e",
    "_md",
    "case_views",
    "criteria_header",
    "criteria_rows",
    "html_report",
    "markdown_report",
    "outside_catalog",
    "render",
    "size_text",
]

ReportFormat = Literal["html", "markdown"]  # report --format: the names of RENDERERS


def html_report(inputs: Inputs) -> str:
    """The offline HTML page (render_html.py), imported where one is drawn: a Markdown report
    needs none of its page, styles and charts (about 1.2 ms of `report --format markdown`)."""
    from .render_html import html_report as page

    return page(inputs)


RENDERERS: dict[ReportFormat, Callable[[Inputs], str]] = {"html": html_report, "markdown": markdown_report}


def size_text(text: str) -> str:
    """A written report's size in megabytes, as `report --full` states it."""
    return f"{len(text.encode('utf-8')) / 1_000_000:.1f} MB"


def render(name: ReportFormat, inputs: Inputs) -> str:
    """The report in the format named (a key of RENDERERS)."""
    return RENDERERS[name](inputs)
