"""The report as one self-contained HTML file people look at.

The HTML opens offline: inline CSS and inline SVG charts, no script, no font,
no link to anywhere. Every text from cases, responses and scores is escaped as
`html.escape` escapes (escape.py: a `<script>` in a response shows as text). The gate's verdict
and reasons are `score`'s own, word for word.

Charts are hand-written SVG: bars with whiskers are a few rectangles, and a
charting library would put JavaScript (inlined, hundreds of kilobytes) into a
page whose content is untrusted text.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ...text import plural
from ..rows import ResultRow
from ..rubric import CONDITIONS, METRICS
from .escape import escape
from .escape import html_text as _e
from .view import (
    CaseView,
    Inputs,
    Selection,
    case_views,
    criteria_header,
    criteria_rows,
    selection,
    selection_note,
)
from .view import interval_rows as _interval_rows
from .view import outside_note as _outside_note
from .view import signed as _signed
from .view import trial_spread as _trial_spread
from .view import verdict as _verdict

if TYPE_CHECKING:
    from ..rows import ScoreSummary
    from ..summaries import CriteriaSummary

COLOURS = {"baseline": "#7a8ca3", "candidate": "#2f7d4f", "comparator": "#b8860b"}
# in the order the stacked bars draw them: passing first, never-run last
STATUS_COLOURS = {
    "pass": "#2f7d4f",
    "fail": "#b03a2e",
    "error": "#6c3483",
    "unwritten": "#c9c9c9",
    "orphan": "#8a6d3b",
}


def _svg(label: str, height: int, parts: list[str], width: int = 720) -> str:
    return (
        f'<svg class="chart" role="img" aria-label="{_e(label)}" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}">' + "".join(parts) + "</svg>"
    )


def _legend(colours: dict[str, str], top: int) -> list[str]:
    """A swatch and a name for each colour, in a row from where the bars begin."""
    return [
        f'<rect x="{130 + i * 110}" y="{top}" width="10" height="10" fill="{colour}"/>'
        f'<text x="{144 + i * 110}" y="{top + 10}" class="tick">{_e(name)}</text>'
        for i, (name, colour) in enumerate(colours.items())
    ]


def _metric_chart(scores: Sequence[Mapping[str, object]]) -> str:
    spread = _trial_spread(scores)
    conditions = [c for c in CONDITIONS if any(k[0] == c for k in spread)]
    width, bar, gap = 720, 18, 34
    height = 34 + len(METRICS) * (len(conditions) * bar + gap)
    parts: list[str] = []
    x0, scale = 130, (width - 170) / 5
    for tick in range(1, 6):
        x = x0 + tick * scale
        parts.append(f'<line x1="{x:.1f}" y1="10" x2="{x:.1f}" y2="{height - 10}" class="grid"/>')
        parts.append(f'<text x="{x:.1f}" y="{height - 1}" class="tick">{tick}</text>')
    parts += _legend({c: COLOURS[c] for c in conditions}, 0)
    y = 24
    for metric in METRICS:
        parts.append(f'<text x="0" y="{y + bar:.1f}" class="label">{_e(metric)}</text>')
        for condition in conditions:
            mean, low, high = spread.get((condition, metric), (0.0, 0.0, 0.0))
            parts.append(
                f'<rect x="{x0}" y="{y}" width="{mean * scale:.1f}" height="{bar - 4}" '
                f'fill="{COLOURS[condition]}"><title>{_e(condition)} {mean:.2f} '
                f"(trials {low:.2f}-{high:.2f})</title></rect>"
            )
            mid = y + (bar - 4) / 2
            parts.append(
                f'<line x1="{x0 + low * scale:.1f}" y1="{mid:.1f}" x2="{x0 + high * scale:.1f}" '
                f'y2="{mid:.1f}" class="whisker"/>'
            )
            right = x0 + max(mean, high) * scale + 6  # past the whisker, not under it
            parts.append(f'<text x="{right:.1f}" y="{y + bar - 6}" class="value">{mean:.2f}</text>')
            y += bar
        y += gap
    return _svg("Mean score per metric and condition", height, parts)


def _bars(values: dict[str, float], top: float, label: str, fmt: str = "{:.3f}") -> str:
    width, bar = 720, 26
    height = 10 + len(values) * (bar + 8)
    scale = (width - 260) / top if top else 0
    parts = []
    for i, (name, value) in enumerate(values.items()):
        y = 6 + i * (bar + 8)
        parts.append(f'<text x="0" y="{y + bar - 8}" class="label">{_e(name)}</text>')
        parts.append(
            f'<rect x="130" y="{y}" width="{value * scale:.1f}" height="{bar - 6}" '
            f'fill="{COLOURS.get(name, "#666")}"/>'
        )
        parts.append(
            f'<text x="{136 + value * scale:.1f}" y="{y + bar - 8}" class="value">{fmt.format(value)}</text>'
        )
    return _svg(label, height, parts, width)


def _check_chart(checks: list[ResultRow]) -> str:
    counts: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(STATUS_COLOURS, 0))
    for row in checks:  # rows.result_problems admitted only these statuses
        counts[row["condition"]][row["status"]] += 1
    width, bar = 720, 26
    height = 30 + len(counts) * (bar + 8)
    parts = []
    for i, (condition, n) in enumerate(sorted(counts.items())):
        total = sum(n.values()) or 1
        y, x = 6 + i * (bar + 8), 130.0
        parts.append(
            f'<text x="0" y="{y + bar - 8}" class="label">{_e(condition)} {n["pass"]}/{total}</text>'
        )
        for status, colour in STATUS_COLOURS.items():
            w = (width - 150) * n[status] / total
            parts.append(
                f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar - 6}" fill="{colour}">'
                f"<title>{status}: {n[status]}</title></rect>"
            )
            x += w
    parts += _legend(STATUS_COLOURS, height - 16)
    return _svg("Checks by condition", height, parts, width)


def _gate_html(inputs: Inputs) -> str:
    if inputs.summary is None:
        why = "No scores were given: the gate needs them (report --scores SCORES)."
        return (
            f'<section class="gate none"><h2 id="verdict">Release gate: no verdict</h2><p>{why}</p></section>'
        )
    title, style, reasons = _verdict(inputs.summary)
    items = "".join(f"<li>{_e(r)}</li>" for r in reasons)
    return f'<section class="gate {style}"><h2 id="verdict">{_e(title)}</h2><ul>{items}</ul></section>'


def _interval_chart(summary: ScoreSummary) -> str:
    """Per metric, the mean Δ as a dot and its 95% interval as a whisker, on a line at zero."""
    rows = _interval_rows(summary)
    reach = max([0.5, *(abs(v) for _, mean, low, high in rows for v in (mean, low, high) if v is not None)])
    step, x0, x1 = 30, 130, 500  # the values' text goes right of x1
    zero, scale = (x0 + x1) / 2, (x1 - x0) / 2 / (reach * 1.1)
    height = 30 + len(rows) * step
    parts = [
        f'<line x1="{zero:.1f}" y1="4" x2="{zero:.1f}" y2="{height - 18}" class="zero"/>',
        f'<text x="{zero:.1f}" y="{height - 4}" class="tick" text-anchor="middle">0</text>',
    ]
    for i, (metric, mean, low, high) in enumerate(rows):
        y = 16 + i * step
        parts.append(f'<text x="0" y="{y + 4}" class="label">{_e(metric)}</text>')
        if low is not None and high is not None:
            parts.append(
                f'<line x1="{zero + low * scale:.1f}" y1="{y}" x2="{zero + high * scale:.1f}" y2="{y}" '
                'class="whisker"/>'
            )
        ci = "no interval" if low is None or high is None else f"95% CI {_signed(low)}..{_signed(high)}"
        parts.append(
            f'<circle cx="{zero + mean * scale:.1f}" cy="{y}" r="5" class="dot"><title>{_e(metric)} '
            f"Δ {_signed(mean)}, {ci}</title></circle>"
        )
        parts.append(f'<text x="{x1 + 12}" y="{y + 4}" class="value">Δ {_signed(mean)}, {ci}</text>')
    return _svg("Mean difference per metric with its 95% interval", height, parts)


def _case_html(view: CaseView) -> str:
    case = view.case
    deltas = " ".join(f"{m} {d:+.2f}" for m, d in view.deltas.items()) or "no scores"
    criteria = "".join(f"<li>{_e(c)}</li>" for c in case["criteria"])
    columns = []
    others = sorted(set(view.responses) - set(CONDITIONS))  # a runner's own names are shown too, after ours
    for condition in (*CONDITIONS, *others):
        rows = sorted(view.responses.get(condition, []), key=lambda r: r["trial"])
        if rows:
            answers = "".join(f"<h5>trial {_e(r['trial'])}</h5><pre>{_e(r['response'])}</pre>" for r in rows)
            columns.append(f'<div class="column"><h4>{_e(condition)}</h4>{answers}</div>')
    checks = "".join(f'<li class="fail">{_e(f)}</li>' for f in view.failing)
    checks += "".join(f'<li class="unwritten">{_e(u)}</li>' for u in view.unwritten)
    return (
        f'<tr id="case-{_e(case["id"])}"><td>{_e(case["id"])}</td><td>{view.weighted_delta:+.3f}</td>'
        f"<td>{_e(deltas)}</td><td>{view.blockers}</td><td>{len(view.failing)}</td><td>{len(view.unwritten)}</td></tr>"
        f'<tr class="detail"><td colspan="6"><details><summary>{_e(case["id"])}: prompt, criteria, responses'
        f"</summary><h4>Prompt</h4><pre>{_e(case['prompt'])}</pre><h4>Criteria</h4><ul>{criteria}</ul>"
        f"{f'<h4>Checks not passing</h4><ul>{checks}</ul>' if checks else ''}"
        f'<div class="side">{"".join(columns)}</div></details></td></tr>'
    )


_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em}section.gate{padding:.6em 1em;border-radius:6px}
section.passed,section.better{background:#e6f4ea}section.failed,section.incomparable,section.worse{background:#fdecea}section.none{background:#f2f2f2}
section.doubtful,section.inconclusive{background:#fff4ce}svg .zero{stroke:#888;stroke-dasharray:3 3}svg .dot{fill:#2f7d4f}
svg.chart{display:block;max-width:100%;height:auto}svg .grid{stroke:#ddd}svg .whisker{stroke:#111;stroke-width:2}
svg .label{font-size:13px}svg .tick,svg .value{font-size:11px;fill:#444}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #e5e5e5;padding:4px 6px;text-align:left;vertical-align:top}
tr.detail td{border-bottom:2px solid #ccc}pre{white-space:pre-wrap;word-break:break-word;background:#f7f7f7;padding:6px}
.warning{background:#fff4ce;padding:.5em 1em}.side{display:flex;gap:12px}.side .column{flex:1;min-width:0}li.fail{color:#b03a2e}li.unwritten{color:#777}
"""


def html_report(inputs: Inputs) -> str:
    views = case_views(inputs)
    chosen = selection(views, full=inputs.full)
    parts = [
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">",
        f"<title>adhd-evals report</title><style>{_CSS}</style></head><body>",
        "<h1>adhd-evals report</h1>",
        _gate_html(inputs),
    ]
    if note := _outside_note(inputs):
        parts.append(f'<p class="warning">{_e(note)}</p>')
    if inputs.scores:
        parts += _score_sections(inputs.scores, inputs.summary)
    if inputs.checks:
        parts += [
            "<h2>Checks</h2><p>Unwritten checks (placeholders) are shown apart from failed ones.</p>",
            _check_chart(inputs.checks),
        ]
        parts.append(
            _audit_html(inputs.checks, None if chosen is None else {v.case["id"] for v in chosen.shown})
        )
    if inputs.criteria is not None:
        parts.append(_criteria_html(inputs.criteria))
    parts += _cases_section(views, chosen)
    return "".join(parts)


def _score_sections(scores: Sequence[Mapping[str, object]], summary: ScoreSummary | None) -> list[str]:
    """The charts of the scores, who judged them, and the void rows."""
    parts = [
        "<h2>Scores per metric</h2>",
        "<p>Bars are means; whiskers span the lowest to the highest trial mean.</p>",
        _metric_chart(scores),
    ]
    if summary is not None:
        weighted = {c: v["weighted_score"] for c, v in summary["conditions"].items()}
        parts += ["<h2>Weighted score</h2>", _bars(weighted, 5.0, "Weighted score per condition")]
    if summary is not None and "paired" in summary:
        parts += _paired_section(summary)
    parts += _judge_section(scores)
    if summary is not None and summary.get("void"):
        rows = "".join(
            f"<li>{_e(v['case_id'])} trial {_e(v['trial'])} {_e(v['condition'])}: {_e(v['void'])}</li>"
            for v in summary["void"]
        )
        parts.append(f"<h2>Void rows</h2><ul>{rows}</ul>")
    return parts


def _paired_section(summary: ScoreSummary) -> list[str]:
    how = summary["paired"]["method"]
    n = summary["paired"]["weighted_score"]["n"]
    exact = summary["paired"]["weighted_score"]["bootstrap"] == "exact"
    drawn = (
        "every resample counted exactly" if exact else f"{how['resamples']:,} resamples, seed {how['seed']}"
    )
    return [
        "<h2>Paired differences (candidate − baseline, per case)</h2>",
        f"<p>Dots are the mean difference over {plural(n, 'case')}; whiskers its 95% interval "
        f"({_e(how['interval'])}, {drawn}). "
        "An interval crossing the dashed zero line cannot tell the conditions apart.</p>",
        _interval_chart(summary),
    ]


def _judge_section(scores: Sequence[Mapping[str, object]]) -> list[str]:
    # as text: a hand-edited sheet may hold anything there, and a list cannot go in a set
    judges = {
        (str(judge.get("runner")), str(judge.get("template")))
        for judge in (r.get("judge") for r in scores)
        if isinstance(judge, dict)
    }
    if not judges:
        return []
    listed = ", ".join(
        f"{_e(runner)} (prompt template {_e(template)})" for runner, template in sorted(judges)
    )
    return [f"<h2>Judge</h2><p>Scores came from judge {listed}.</p>"]


def _cases_section(views: list[CaseView], chosen: Selection | None) -> list[str]:
    """The table of cases: every case, or a large run's selection and what it left out."""
    parts = ["<h2>Cases, worst regression first</h2>"]
    if chosen is not None:
        views = chosen.shown
        parts.append(f'<p class="warning" id="sampled">{_e(selection_note(chosen))}</p>')
    parts.append(
        "<table><thead><tr><th>case</th><th>weighted Δ</th>"
        "<th>Δ per metric (candidate − baseline)</th><th>blockers</th><th>failing checks</th>"
        "<th>unwritten</th></tr></thead><tbody>"
    )
    parts += [_case_html(view) for view in views]
    parts.append("</tbody></table></body></html>\n")
    return parts


def _audit_html(checks: list[ResultRow], shown: set[str] | None) -> str:
    """The audit of the checks (issue 37): each check's label, rates and flip rate, and the suite's
    lines; empty when no result says whose trial it is (a file a person made with the gate's
    fields alone). On a large run's page (`shown`: the ids its table of cases holds) the table
    keeps those cases' rows alone; the labels and the suite's lines still count every case."""
    # imported here, not at the top: audit alone took 83-113 ms beside 0.84-1.5 s for all of
    # cli.scoring (python -X importtime, loaded 2-core machine, 2026-12-02), paid by every scoring command
    from ..deciding.audit import audit, check_outcomes, item_rows, suite_lines
    from ..deciding.outcomes import is_placed_result

    placed = [row for row in checks if is_placed_result(row)]
    if not placed:
        return ""
    found = audit(check_outcomes(placed))
    header, *body = item_rows(found)
    kept = body if shown is None else [row for row in body if row[0] in shown]
    said = (
        ""
        if shown is None
        else f"<p>The rows of {plural(len(kept), 'check')} of {len(body)}: those of the cases in the "
        "table of cases below (<code>adhd-evals audit</code> lists every one).</p>"
    )
    head = "".join(f"<th>{escape(cell, quote=True)}</th>" for cell in header)
    cells = "".join(
        "<tr>" + "".join(f"<td>{escape(cell, quote=True)}</td>" for cell in row) + "</tr>" for row in kept
    )
    lines = "".join(f"<li>{escape(line, quote=True)}</li>" for line in suite_lines(found))
    return (
        '<h2 id="audit">Suite audit</h2><p>Each check labelled by how it behaves over the trials: '
        "saturated and floor checks cannot show a difference, flaky ones flip within a case (see "
        "<code>adhd-evals audit</code>).</p>"
        f"{said}<table><thead><tr>{head}</tr></thead><tbody>{cells}</tbody></table><ul>{lines}</ul>"
    )


def _criteria_html(found: CriteriaSummary) -> str:
    """Per condition, the criteria passed by who decided them, and what stayed undecided."""
    head = "".join(f"<th>{_e(h)}</th>" for h in criteria_header())
    body = "".join(
        "<tr>" + "".join(f"<td>{_e(cell)}</td>" for cell in row) + "</tr>" for row in criteria_rows(found)
    )
    return (
        "<h2>Criteria: who decided</h2><p>Each criterion is decided by a written check, else a person's "
        "label, else a certified judge; anything else is undecided and never passes.</p>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )
