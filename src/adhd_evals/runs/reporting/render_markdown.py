"""The report as Markdown for CI: the verdict, the paired picture in text, the means, the criteria
and the worst cases, cut to fit a pull-request comment."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...text import plural
from ..rows import Quantity
from ..rubric import METRICS
from .escape import md_text as _md
from .view import Inputs, case_views, criteria_header, criteria_rows
from .view import interval_rows as _interval_rows
from .view import outside_note as _outside_note
from .view import signed as _signed
from .view import verdict as _verdict

if TYPE_CHECKING:
    from ..rows import ScoreSummary

MARKDOWN_LIMIT = 65_000


def _interval_text(summary: ScoreSummary, width: int = 41) -> list[str]:
    """The dot-and-whisker picture in text: `|` is zero, `[---●---]` the interval and the mean."""
    rows = _interval_rows(summary)
    reach = (
        max([0.5, *(abs(v) for _, mean, low, high in rows for v in (mean, low, high) if v is not None)]) * 1.1
    )
    n = summary["paired"]["weighted_score"]["n"]
    lines = [
        f"Paired differences, candidate − baseline per case ({plural(n, 'case')}; `|` is zero, `●` the mean, "
        "`[ ]` the 95% interval):",
        "",
        "```text",
    ]

    def at(value: float) -> int:
        return round((value / reach + 1) / 2 * (width - 1))

    for metric, mean, low, high in rows:
        line = [" "] * width
        line[at(0.0)] = "|"
        if low is not None and high is not None:
            for i in range(at(low), at(high) + 1):
                line[i] = "-" if line[i] == " " else line[i]
            line[at(low)], line[at(high)] = "[", "]"
        line[at(mean)] = "●"
        ci = "no interval" if low is None or high is None else f"95% CI {_signed(low)}..{_signed(high)}"
        lines.append(f"{metric:<15} {''.join(line)}  Δ {_signed(mean)}, {ci}")
    return lines + ["```", ""]


def markdown_report(inputs: Inputs, limit: int = MARKDOWN_LIMIT) -> str:
    lines = ["## adhd-evals report", ""]
    if inputs.summary is None:
        lines += ["**Release gate: no verdict.** No scores were given (report --scores SCORES).", ""]
    else:
        title, _, reasons = _verdict(inputs.summary)
        lines += [f"**{title}**", ""] + [f"- {_md(r)}" for r in reasons] + [""]
        if "paired" in inputs.summary:
            lines += _interval_text(inputs.summary)
        conditions = inputs.summary["conditions"]
        lines += ["| metric | " + " | ".join(conditions) + " |", "| --- |" + " ---: |" * len(conditions)]
        shown: list[Quantity] = [*METRICS, "weighted_score"]
        for metric in shown:
            digits = 3 if metric == "weighted_score" else 2  # as score's table prints them
            means = []
            for (
                means_of
            ) in conditions.values():  # a loop: mypy loses a loop variable's Literal type in a comprehension
                means.append(means_of[metric])
            lines.append(f"| {metric} | " + " | ".join(f"{v:.{digits}f}" for v in means) + " |")
        lines.append("")
    if note := _outside_note(inputs):
        lines += [f"> {_md(note)}", ""]
    if inputs.criteria is not None:
        lines += [
            "### Criteria: who decided",
            "",
            "| " + " | ".join(criteria_header()) + " |",
            "| --- |" + " ---: |" * (len(criteria_header()) - 1),
        ]
        lines += [
            "| " + " | ".join(_md(cell) for cell in row) + " |" for row in criteria_rows(inputs.criteria)
        ]
        lines.append("")
    views = [v for v in case_views(inputs) if v.deltas or v.failing or v.unwritten]
    if views:
        lines += [
            "### Worst cases",
            "",
            "| case | weighted Δ | blockers | failing checks | unwritten |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        lines += [
            f"| {_md(v.case['id'])} | {v.weighted_delta:+.3f} | {v.blockers} | {len(v.failing)} | "
            f"{len(v.unwritten)} |"
            for v in views
        ]
    text = "\n".join(lines) + "\n"
    if len(text) <= limit:
        return text
    note = "\n_Cut here: the report is longer than 65,000 characters; the HTML report has every case._\n"
    return text[: text.rfind("\n", 0, limit - len(note)) + 1] + note
