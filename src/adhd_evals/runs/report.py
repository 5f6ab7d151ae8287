"""`adhd-evals report`: one self-contained HTML file people look at, or Markdown for CI.

The HTML opens offline: inline CSS and inline SVG charts, no script, no font,
no link to anywhere. Every text from cases, responses and scores goes through
`html.escape` (a `<script>` in a response shows as text). The gate's verdict
and reasons are `score`'s own, word for word.

Charts are hand-written SVG: bars with whiskers are a few rectangles, and a
charting library would put JavaScript (inlined, hundreds of kilobytes) into a
page whose content is untrusted text.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..text import plural
from .rows import Quantity, ResponseRow, ResultRow, ScoreSummary
from .rubric import CONDITIONS, METRICS, WEIGHTS
from .score import verdict_word
from .summaries import CriteriaSummary

COLOURS = {"baseline": "#7a8ca3", "candidate": "#2f7d4f", "comparator": "#b8860b"}
# in the order the stacked bars draw them: passing first, never-run last
STATUS_COLOURS = {
    "pass": "#2f7d4f",
    "fail": "#b03a2e",
    "error": "#6c3483",
    "unwritten": "#c9c9c9",
    "orphan": "#8a6d3b",
}
MARKDOWN_LIMIT = 65_000


@dataclass
class Inputs:
    cases: list[dict[str, Any]]
    responses: list[ResponseRow]
    checks: list[ResultRow] | None = None
    scores: list[dict[str, Any]] | None = None  # conditions already mapped back (score --key)
    summary: ScoreSummary | None = None  # score.summarize's, when there are scores
    criteria: CriteriaSummary | None = None  # criteria.summarize's (score --criteria), when given


@dataclass
class CaseView:
    case: dict[str, Any]
    deltas: dict[str, float] = field(default_factory=dict)  # candidate minus baseline, per metric
    weighted_delta: float = 0.0
    blockers: int = 0
    failing: list[str] = field(default_factory=list)
    unwritten: list[str] = field(default_factory=list)
    responses: dict[str, list[ResponseRow]] = field(default_factory=dict)


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


def _visible(match: re.Match[str]) -> str:
    return f"<U+{ord(match.group()):04X}>"


def _e(text: Any) -> str:
    return html.escape(_CONTROLS.sub(_visible, str(text)), quote=True)


def case_views(inputs: Inputs) -> list[CaseView]:
    """One view per case, the worst regression first."""
    views = {case["id"]: CaseView(case) for case in inputs.cases}
    for row in inputs.responses:
        if row["case_id"] in views:
            views[row["case_id"]].responses.setdefault(row["condition"], []).append(row)
    _add_checks(views, inputs.checks or [])
    _add_scores(views, inputs.scores or [])
    return sorted(views.values(), key=lambda v: (v.weighted_delta, -v.blockers, v.case["id"]))


def _add_checks(views: dict[str, CaseView], checks: list[ResultRow]) -> None:
    for row in checks:
        view, status = views.get(str(row.get("case_id"))), row["status"]
        if view is not None and status in ("fail", "error"):
            view.failing.append(f"{row.get('criterion')} ({row['condition']}, {status})")
        elif view is not None and status in ("unwritten", "orphan"):
            view.unwritten.append(f"{row.get('criterion')} ({row['condition']}, {status})")


def _add_scores(views: dict[str, CaseView], scores: list[dict[str, Any]]) -> None:
    """Candidate blockers, and candidate-minus-baseline means per metric (void rows score nothing)."""
    means: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for row in scores:
        if isinstance(row.get("void"), str):
            continue
        for metric in METRICS:
            if isinstance(row.get(metric), (int, float)):
                means[(row["case_id"], row["condition"], metric)].append(float(row[metric]))
        if row.get("blocker") is True and row["case_id"] in views and row["condition"] == "candidate":
            views[row["case_id"]].blockers += 1
    for case_id, view in views.items():
        for metric in METRICS:
            base, cand = means.get((case_id, "baseline", metric)), means.get((case_id, "candidate", metric))
            if base and cand:
                view.deltas[metric] = sum(cand) / len(cand) - sum(base) / len(base)
        view.weighted_delta = sum(view.deltas.get(m, 0.0) * w for m, w in WEIGHTS.items())


def outside_catalog(inputs: Inputs) -> list[str]:
    """Case ids that rows name but the catalog lacks: shown, never silently left out."""
    known = {case["id"] for case in inputs.cases}
    rows = [*inputs.responses, *(inputs.checks or []), *(inputs.scores or [])]
    return sorted({str(row.get("case_id")) for row in rows} - known)


def _outside_note(inputs: Inputs) -> str:
    outside = outside_catalog(inputs)
    if not outside:
        return ""
    shown = ", ".join(outside[:20]) + (f" and {len(outside) - 20} more" if len(outside) > 20 else "")
    return (
        f"Rows name {plural(len(outside), 'case')} the catalog lacks ({shown}): they count in the gate's "
        "numbers, as in score, but have no entry in the table of cases."
    )


def _trial_spread(scores: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[float, float, float]]:
    """(condition, metric) -> (mean, lowest trial mean, highest trial mean)."""
    per_trial: dict[tuple[str, str, Any], list[float]] = defaultdict(list)
    for row in scores:
        if isinstance(row.get("void"), str):
            continue
        for metric in METRICS:
            if isinstance(row.get(metric), (int, float)):
                per_trial[(row["condition"], metric, row["trial"])].append(float(row[metric]))
    grouped: dict[tuple[str, str], list[float]] = defaultdict(list)
    every: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (condition, name, _), values in per_trial.items():
        grouped[(condition, name)].append(sum(values) / len(values))
        every[(condition, name)] += values
    return {k: (sum(every[k]) / len(every[k]), min(v), max(v)) for k, v in grouped.items()}


# ---- HTML --------------------------------------------------------------------------


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


def _metric_chart(scores: list[dict[str, Any]]) -> str:
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


def _verdict(summary: ScoreSummary) -> tuple[str, str, list[str]]:
    """The headline, its CSS class and its reasons: the decision `score` states, word for word."""
    decided = summary.get("decision")
    if decided is None:
        word = verdict_word(summary["release_gate"])
        return f"Release gate: {word}", word.lower(), list(summary["release_gate"]["reasons"])
    if decided["gate"] == "paired":
        return (
            f"Release decision (paired): {decided['verdict'].upper()}",
            decided["verdict"],
            decided["reasons"],
        )
    word = verdict_word(summary["release_gate"])
    # a PASS the paired analysis cannot back is not shown as a plain green box
    doubtful = (
        " doubtful" if any(r.startswith(f"{word} by the reference rules") for r in decided["reasons"]) else ""
    )
    return f"Release gate: {word}", word.lower() + doubtful, decided["reasons"]


def _gate_html(inputs: Inputs) -> str:
    if inputs.summary is None:
        why = "No scores were given: the gate needs them (report --scores SCORES)."
        return (
            f'<section class="gate none"><h2 id="verdict">Release gate: no verdict</h2><p>{why}</p></section>'
        )
    title, style, reasons = _verdict(inputs.summary)
    items = "".join(f"<li>{_e(r)}</li>" for r in reasons)
    return f'<section class="gate {style}"><h2 id="verdict">{_e(title)}</h2><ul>{items}</ul></section>'


def _interval_rows(summary: ScoreSummary) -> list[tuple[str, float, float | None, float | None]]:
    section = summary["paired"]
    quantities: list[Quantity] = ["weighted_score", *summary["weights"]]
    return [(m, section[m]["mean_delta"], *(section[m]["ci"] or (None, None))) for m in quantities]


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


def _signed(value: float) -> str:
    return f"{value:+.2f}".replace("-", "−")


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
        parts += [
            "<h2>Scores per metric</h2>",
            "<p>Bars are means; whiskers span the lowest to the highest trial mean.</p>",
            _metric_chart(inputs.scores),
        ]
        if inputs.summary is not None:
            weighted = {c: v["weighted_score"] for c, v in inputs.summary["conditions"].items()}
            parts += ["<h2>Weighted score</h2>", _bars(weighted, 5.0, "Weighted score per condition")]
        if inputs.summary is not None and "paired" in inputs.summary:
            how = inputs.summary["paired"]["method"]
            n = inputs.summary["paired"]["weighted_score"]["n"]
            exact = inputs.summary["paired"]["weighted_score"]["bootstrap"] == "exact"
            drawn = (
                "every resample counted exactly"
                if exact
                else f"{how['resamples']:,} resamples, seed {how['seed']}"
            )
            parts += [
                "<h2>Paired differences (candidate − baseline, per case)</h2>",
                f"<p>Dots are the mean difference over {plural(n, 'case')}; whiskers its 95% interval "
                f"({_e(how['interval'])}, {drawn}). "
                "An interval crossing the dashed zero line cannot tell the conditions apart.</p>",
                _interval_chart(inputs.summary),
            ]
        # as text: a hand-edited sheet may hold anything there, and a list cannot go in a set
        judges = {
            (str(r["judge"].get("runner")), str(r["judge"].get("template")))
            for r in inputs.scores
            if isinstance(r.get("judge"), dict)
        }
        if judges:
            listed = ", ".join(
                f"{_e(runner)} (prompt template {_e(template)})" for runner, template in sorted(judges)
            )
            parts.append(f"<h2>Judge</h2><p>Scores came from judge {listed}.</p>")
        if inputs.summary is not None and inputs.summary.get("void"):
            rows = "".join(
                f"<li>{_e(v['case_id'])} trial {_e(v['trial'])} {_e(v['condition'])}: {_e(v['void'])}</li>"
                for v in inputs.summary["void"]
            )
            parts.append(f"<h2>Void rows</h2><ul>{rows}</ul>")
    if inputs.checks:
        parts += [
            "<h2>Checks</h2><p>Unwritten checks (placeholders) are shown apart from failed ones.</p>",
            _check_chart(inputs.checks),
        ]
        parts.append(_audit_html(inputs.checks))
    if inputs.criteria is not None:
        parts.append(_criteria_html(inputs.criteria))
    parts.append(
        "<h2>Cases, worst regression first</h2><table><thead><tr><th>case</th><th>weighted Δ</th>"
        "<th>Δ per metric (candidate − baseline)</th><th>blockers</th><th>failing checks</th>"
        "<th>unwritten</th></tr></thead><tbody>"
    )
    parts += [_case_html(view) for view in views]
    parts.append("</tbody></table></body></html>\n")
    return "".join(parts)


def _audit_html(checks: list[ResultRow]) -> str:
    """The audit of the checks (issue 37): each check's label, rates and flip rate."""
    from .audit import html_section  # only when a report has check results

    return html_section(checks)


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


def criteria_header() -> list[str]:
    return [
        "condition",
        "criteria",
        "passed",
        "by check",
        "by person",
        "by certified judge",
        "undecided",
        "judge pass rate (raw → corrected, 95%)",
    ]


def criteria_rows(found: CriteriaSummary) -> list[list[str]]:
    """One row per condition: passed/decided by each decider, undecided by kind, the judge's rate."""
    rows = []
    for name, c in found["conditions"].items():
        by = [c["decided"].get(d, {"pass": 0, "fail": 0}) for d in ("check", "person", "judge")]
        undecided = ", ".join(f"{n} {kind}" for kind, n in c["undecided"].items() if n) or "0"
        rate = c.get("judge_rate")
        shown = (
            "-"
            if rate is None
            else f"{rate['raw']:.3f} → "
            + (
                "not correctable"
                if rate["corrected"] is None
                else f"{rate['corrected']:.3f} [{rate['interval'][0]:.3f}, {rate['interval'][1]:.3f}]"
            )
        )
        rows.append(
            [
                name,
                str(c["criteria"]),
                str(c["passed"]),
                *(f"{d['pass']}/{d['pass'] + d['fail']}" for d in by),
                undecided,
                shown,
            ]
        )
    return rows


# ---- Markdown -------------------------------------------------------------------------


def _md(text: Any) -> str:
    """One cell or line of text: no line breaks, no HTML, and no Markdown a response could use
    (links, images, emphasis: each sign backslash-escaped); an `@` goes in a code span, where
    GitHub makes no mention of it (a backslash would not stop a mention)."""
    escaped = _MD_SYNTAX.sub(r"\\\1", " ".join(str(text).split()))
    return html.escape(_CONTROLS.sub(_visible, escaped), quote=False).replace("@", "`@`")


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
