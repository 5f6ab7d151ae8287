"""The report's renderers are chosen by name from one registry, the names `report --format` takes."""

from __future__ import annotations

from typing import get_args

from adhd_evals.runs.reporting import report
from adhd_evals.runs.reporting.render_html import html_report
from adhd_evals.runs.reporting.render_markdown import markdown_report
from adhd_evals.runs.reporting.report import ReportFormat

CASE = {"id": "c1", "category": "x", "prompt": "Do it.", "risk": "low", "criteria": ["It is done."]}
ANSWER = {"case_id": "c1", "trial": 1, "condition": "baseline", "runner": "r", "response": "Done."}


def test_the_registry_names_every_format_report_takes() -> None:
    """The Literal `report --format` takes its choices from names exactly the registry's keys."""
    assert sorted(report.RENDERERS) == sorted(get_args(ReportFormat)) == ["html", "markdown"]


def test_render_by_name_is_that_renderer() -> None:
    """The registry adds no step of its own: by name, the same text the renderer writes."""
    inputs = report.Inputs([CASE], [ANSWER])  # type: ignore[list-item]
    assert report.render("html", inputs) == html_report(inputs)
    assert report.render("markdown", inputs) == markdown_report(inputs)
    assert report.render("html", inputs).startswith("<!DOCTYPE html>")
    assert report.render("markdown", inputs).startswith("## adhd-evals report\n")
