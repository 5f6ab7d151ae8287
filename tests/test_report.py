"""`adhd-evals report`: the golden Markdown, hostile text, refusals, and a real browser.

The fixture run in fixtures/report was written by hand; its numbers were
worked out from the rules (refund-2: correctness 5 -> 1, actionability 4 -> 2,
safety 5 -> 1, concision 4 -> 5, so -4*.35 - 2*.2 - 4*.1 + 1*.1 = -2.100).
Regenerate report.md only with `pytest --regen-golden`, then review the diff.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals import exitcodes
from adhd_evals.catalog import CaseRow
from adhd_evals.entry import main
from adhd_evals.runs.reporting.report import Inputs, markdown_report
from adhd_evals.runs.rows import checked_rows, is_response, is_result
from helpers import FIXTURES

RUN = FIXTURES / "report"
CASE_IDS = ["greet-1", "refund-2", "sum-3"]


def _args(out: Path, *extra: str) -> list[str]:
    return [
        "report",
        "--cases",
        str(RUN / "cases.jsonl"),
        "--responses",
        str(RUN / "responses.jsonl"),
        "--checks",
        str(RUN / "checks.jsonl"),
        "--scores",
        str(RUN / "scores.jsonl"),
        "--out",
        str(out),
        *extra,
    ]


def test_markdown_matches_golden(tmp_path: Path, regen_golden: bool) -> None:
    out = tmp_path / "report.md"
    assert main(_args(out, "--format", "markdown")) == exitcodes.OK
    if regen_golden:
        (RUN / "report.md").write_text(out.read_text(encoding="utf-8"), encoding="utf-8")
        pytest.skip("golden report regenerated: review the diff")
    assert out.read_text(encoding="utf-8") == (RUN / "report.md").read_text(encoding="utf-8")


def test_markdown_worst_case_first_with_hand_worked_deltas(tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    main(_args(out, "--format", "markdown"))
    rows = [
        line for line in out.read_text(encoding="utf-8").splitlines() if line.startswith("| ") and "-" in line
    ]
    cases = [r.split(" | ")[0][2:] for r in rows if r.split(" | ")[0][2:] in CASE_IDS]
    assert cases == ["refund-2", "greet-1", "sum-3"]
    assert "| refund-2 | -2.100 | 2 | 1 | 0 |" in rows
    assert "| sum-3 | +1.200 | 0 | 0 | 2 |" in rows  # 2 unwritten, apart from failing


def test_markdown_is_cut_with_a_note_past_65000_characters() -> None:
    cases: list[CaseRow] = [
        {"id": f"case-{i:05d}", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}
        for i in range(3000)
    ]
    checks = [
        {"case_id": c["id"], "trial": 1, "condition": "candidate", "criterion": "x", "status": "unwritten"}
        for c in cases
    ]
    text = markdown_report(Inputs(cases, [], checks=checked_rows(checks, is_result)))
    assert len(text) <= 65_000
    assert text.rstrip().endswith("the HTML report has every case._")
    assert "case-00000" in text and "case-02999" not in text
    rows = [line for line in text.splitlines() if line.startswith("| case-")]
    assert rows and all(
        re.fullmatch(r"\| case-\d{5} \| \+0\.000 \| 0 \| 0 \| 1 \|", row) for row in rows
    )  # whole rows
    assert text.splitlines()[-2] == ""  # the note starts after the last whole row


def test_without_scores_there_is_no_verdict(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    args = [
        "report",
        "--cases",
        str(RUN / "cases.jsonl"),
        "--responses",
        str(RUN / "responses.jsonl"),
        "--out",
        str(out),
    ]
    assert main(args) == exitcodes.OK
    assert "Release gate: no verdict" in out.read_text(encoding="utf-8")


def test_key_without_scores_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.html"
    args = [
        "report",
        "--cases",
        str(RUN / "cases.jsonl"),
        "--responses",
        str(RUN / "responses.jsonl"),
        "--key",
        str(RUN / "scores.jsonl"),
        "--out",
        str(out),
    ]
    assert main(args) == exitcodes.USAGE
    assert "--key" in capsys.readouterr().err
    assert not out.exists()


def test_scores_score_refuses_are_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labelled = tmp_path / "sheet.jsonl"
    rows = [json.loads(line) for line in (RUN / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    labelled.write_text("".join(json.dumps({**r, "condition": "A"}) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "r.html"
    args = [
        "report",
        "--cases",
        str(RUN / "cases.jsonl"),
        "--responses",
        str(RUN / "responses.jsonl"),
        "--scores",
        str(labelled),
        "--out",
        str(out),
    ]
    assert main(args) != exitcodes.OK
    err = capsys.readouterr().err
    assert "labelled sheet" in err and "Traceback" not in err
    assert not out.exists()


# ---- hostile text ---------------------------------------------------------------------

HOSTILE = (
    '<script>alert(1)</script></script><img src=x onerror=alert(2)><a href="javascript:alert(3)">x</a>'
    '<link rel=stylesheet href="https://evil.example/x.css"><iframe src="https://evil.example"></iframe>'
    "\u202e\u0000\u200b\x1b[31m]]><!-- --><style>body{display:none}</style>"
)


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _hostile_run(tmp_path: Path) -> Path:
    case = {"id": "hostile-1", "category": "x", "prompt": HOSTILE, "risk": "low", "criteria": [HOSTILE]}
    (tmp_path / "cases.jsonl").write_text(json.dumps(case) + "\n", encoding="utf-8")
    responses = [
        {"case_id": "hostile-1", "trial": 1, "condition": c, "runner": "r", "response": HOSTILE}
        for c in ("baseline", "candidate")
    ]
    (tmp_path / "responses.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in responses), encoding="utf-8"
    )
    scores = [
        {
            "case_id": "hostile-1",
            "trial": 1,
            "condition": c,
            "correctness": 3,
            "autonomy": 3,
            "actionability": 3,
            "safety": 3,
            "concision": 3,
            "blocker": False,
            "notes": HOSTILE,
        }
        for c in ("baseline", "candidate")
    ]
    (tmp_path / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in scores), encoding="utf-8")
    checks = [
        {"case_id": "hostile-1", "trial": 1, "condition": "candidate", "criterion": HOSTILE, "status": "fail"}
    ]
    (tmp_path / "checks.jsonl").write_text(json.dumps(checks[0]) + "\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("fmt", ["html", "markdown"])
def test_hostile_text_renders_as_text(tmp_path: Path, fmt: str) -> None:
    run = _hostile_run(tmp_path)
    out = tmp_path / f"report.{fmt}"
    args = [
        "report",
        "--cases",
        str(run / "cases.jsonl"),
        "--responses",
        str(run / "responses.jsonl"),
        "--scores",
        str(run / "scores.jsonl"),
        "--checks",
        str(run / "checks.jsonl"),
        "--out",
        str(out),
        "--format",
        fmt,
    ]
    assert main(args) == exitcodes.OK
    parser = _Elements()
    parser.feed(out.read_text(encoding="utf-8"))
    names = [tag for tag, _ in parser.tags]
    for forbidden in ("script", "img", "a", "link", "iframe", "object", "embed", "base", "form"):
        assert forbidden not in names, forbidden
    assert names.count("style") == (1 if fmt == "html" else 0)  # only the report's own
    assert not any(name.startswith("on") for _, attrs in parser.tags for name in attrs)
    assert not any("javascript:" in (value or "") for _, attrs in parser.tags for value in attrs.values())
    if fmt == "html":
        text = "".join(parser.text)
        assert "<script>alert(1)</script>" in text  # shown, as text
        assert "<U+202E>" in text and "<U+0000>" in text and "<U+001B>" in text  # controls made visible
        assert "\u202e" not in text and "\x00" not in text


@pytest.mark.parametrize(
    ("char", "shown"),
    [
        pytest.param("\u061c", "<U+061C>", id="arabic-letter-mark"),
        pytest.param("\u2060", "<U+2060>", id="word-joiner"),
        pytest.param("\u2064", "<U+2064>", id="invisible-plus"),
        pytest.param("\U000e0041", "<U+E0041>", id="tag-latin-a"),
        pytest.param("\u00ad", "<U+00AD>", id="soft-hyphen"),
        pytest.param("\ufe0f", "<U+FE0F>", id="variation-selector-16"),
        pytest.param("\U000e0100", "<U+E0100>", id="variation-selector-17"),
        pytest.param("\u2028", "<U+2028>", id="line-separator"),
    ],
)
def test_invisible_code_points_are_shown_not_passed_raw(char: str, shown: str) -> None:
    """Each of these draws nothing (or hides or reorders text) in a browser: the report shows
    it as its code point. The escaping is html.escape after the substitution, so the page
    text reads `<U+061C>` where the raw character was."""
    from adhd_evals.runs.reporting.report import _e

    assert _e(f"a{char}b") == f"a{shown}b".replace("<", "&lt;").replace(">", "&gt;")


def test_markdown_cells_carry_no_link_image_or_mention() -> None:
    """Worked by hand: `[` `]` `*` `_` and `|` are backslash-escaped (GitHub then shows them as
    written and makes no link, image or emphasis); `<` becomes &lt;; `@` goes in a code span
    (GitHub makes no mention inside code)."""
    from adhd_evals.runs.reporting.report import _md

    hostile = "see [here](https://evil.example) ![x](https://evil.example/p.png) @alice **bold** a|b <b>"
    assert _md(hostile) == (
        "see \\[here\\](https://evil.example) !\\[x\\](https://evil.example/p.png) `@`alice "
        "\\*\\*bold\\*\\* a\\|b &lt;b&gt;"
    )


# ---- a real browser ---------------------------------------------------------------------


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("Chromium is not installed here (.ci/run installs Debian's chromium with apt-get)")


def _headless(browser: str, *args: str) -> subprocess.CompletedProcess[str]:
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-extensions",
        "--no-first-run",
        "--window-size=1200,1600",
    ]
    return subprocess.run([browser, *flags, *args], capture_output=True, text=True, timeout=120, check=False)


def _png_pixels(path: Path) -> tuple[int, int, bytes]:
    """Width, height and raw (filtered) scanlines of an 8-bit PNG, from its IDAT chunks."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        (length,), kind = struct.unpack(">I", data[pos : pos + 4]), data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return width, height, zlib.decompress(idat)


@pytest.mark.long
def test_report_renders_in_a_real_browser(tmp_path: Path) -> None:
    browser = _chromium()
    out = tmp_path / "report.html"
    assert main(_args(out)) == exitcodes.OK
    dom = _headless(browser, "--dump-dom", out.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "Release gate: FAILED" in dom.stdout
    assert "Candidate has blocking safety or correctness findings." in dom.stdout
    for case_id in CASE_IDS:
        assert f'id="case-{case_id}"' in dom.stdout
    assert dom.stdout.count("<svg") == 4  # metrics, weighted score, paired intervals, checks
    # nothing in the file reaches out: no URL with a scheme, no CSS url()
    assert not re.search(r"""(?:src|href|xlink:href|action)\s*=\s*["']?[a-z]+:""", dom.stdout, re.I)
    assert "url(" not in dom.stdout and "@import" not in dom.stdout
    shot = tmp_path / "shot.png"
    taken = _headless(browser, f"--screenshot={shot}", out.as_uri())
    assert taken.returncode == 0 and shot.exists(), taken.stderr[-2000:]
    width, height, raw = _png_pixels(shot)
    assert (width, height) == (1200, 1600)
    # a blank page compresses to a handful of distinct bytes; charts and text give many
    assert len(set(raw)) > 20


def test_a_judged_labelled_sheet_shows_provenance_and_void_rows(tmp_path: Path) -> None:
    label = {"baseline": "A", "candidate": "B"}
    sheet, key = [], []
    for line in (RUN / "scores.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        key.append(
            {
                "case_id": row["case_id"],
                "trial": row["trial"],
                "label": label[row["condition"]],
                "condition": row["condition"],
            }
        )
        row = {
            **row,
            "condition": label[row["condition"]],
            "judge": {"runner": "judge-cli", "template": "t-7"},
        }
        if (row["case_id"], row["trial"], row["condition"]) == ("sum-3", 2, "B"):
            row = {k: row[k] for k in ("case_id", "trial", "condition", "judge")} | {
                "void": "no verdict line"
            }
        sheet.append(row)
    (tmp_path / "sheet.jsonl").write_text("".join(json.dumps(r) + "\n" for r in sheet), encoding="utf-8")
    (tmp_path / "key.jsonl").write_text("".join(json.dumps(r) + "\n" for r in key), encoding="utf-8")
    out = tmp_path / "r.html"
    args = [
        "report",
        "--cases",
        str(RUN / "cases.jsonl"),
        "--responses",
        str(RUN / "responses.jsonl"),
        "--scores",
        str(tmp_path / "sheet.jsonl"),
        "--key",
        str(tmp_path / "key.jsonl"),
        "--out",
        str(out),
    ]
    assert main(args) == exitcodes.OK
    page = out.read_text(encoding="utf-8")
    assert "Scores came from judge judge-cli (prompt template t-7)" in page
    assert "<li>sum-3 trial 2 candidate: no verdict line</li>" in page
    assert "Release gate: FAILED" in page and "1 judged row void" in page


# the report's own elements; anything else in a parsed page came from the data
OWN_TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "h1",
    "h2",
    "h4",
    "h5",
    "section",
    "ul",
    "li",
    "p",
    "svg",
    "line",
    "text",
    "rect",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "details",
    "summary",
    "pre",
    "div",
}


@pytest.mark.long
@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=80))
def test_no_text_adds_an_element_or_attribute(text: str) -> None:
    from adhd_evals.runs.reporting.report import html_report

    case: CaseRow = {"id": "c-1", "category": "x", "prompt": text, "risk": "low", "criteria": [text]}
    rows = [
        {"case_id": "c-1", "trial": 1, "condition": c, "runner": text, "response": text}
        for c in ("baseline", "candidate")
    ]
    checks = [{"case_id": "c-1", "trial": 1, "condition": "candidate", "criterion": text, "status": "fail"}]
    parser = _Elements()
    parser.feed(
        html_report(Inputs([case], checked_rows(rows, is_response), checks=checked_rows(checks, is_result)))
    )
    assert {tag for tag, _ in parser.tags} <= OWN_TAGS
    assert not any(name.startswith("on") or name in ("href", "src") for _, a in parser.tags for name in a)


@pytest.mark.parametrize("fmt", ["html", "markdown"])
def test_rows_for_cases_the_catalog_lacks_are_named(tmp_path: Path, fmt: str) -> None:
    responses = tmp_path / "responses.jsonl"
    stray = {"case_id": "gone-9", "trial": 1, "condition": "baseline", "runner": "fake", "response": "x"}
    responses.write_text(
        (RUN / "responses.jsonl").read_text(encoding="utf-8") + json.dumps(stray) + "\n", encoding="utf-8"
    )
    out = tmp_path / "r.out"
    args = [
        "report",
        "--cases",
        str(RUN / "cases.jsonl"),
        "--responses",
        str(responses),
        "--out",
        str(out),
        "--format",
        fmt,
    ]
    assert main(args) == exitcodes.OK
    assert "Rows name 1 case the catalog lacks (gone-9)" in out.read_text(encoding="utf-8")


def test_an_out_that_is_a_folder_is_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        "report",
        "--cases",
        str(RUN / "cases.jsonl"),
        "--responses",
        str(RUN / "responses.jsonl"),
        "--out",
        str(tmp_path),
    ]
    assert main(args) == exitcodes.OUTPUT
    assert f"cannot write {tmp_path}: it is a directory" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_responses_under_a_condition_of_their_own_are_shown(tmp_path: Path) -> None:
    responses = tmp_path / "responses.jsonl"
    text = (RUN / "responses.jsonl").read_text(encoding="utf-8")
    responses.write_text(
        text.replace('"condition": "candidate"', '"condition": "variant-x"'), encoding="utf-8"
    )
    out = tmp_path / "r.html"
    args = ["report", "--cases", str(RUN / "cases.jsonl"), "--responses", str(responses), "--out", str(out)]
    assert main(args) == exitcodes.OK
    page = out.read_text(encoding="utf-8")
    assert page.count("<h4>variant-x</h4>") == 3  # one column per case
    assert "Sure, refunded!" in page


def test_odd_judge_provenance_is_shown_as_text(tmp_path: Path) -> None:
    text = (RUN / "scores.jsonl").read_text(encoding="utf-8")
    scores = tmp_path / "scores.jsonl"
    scores.write_text(
        text.replace('"notes": ""', '"notes": "", "judge": {"runner": ["a"], "template": {"x": 1}}'),
        encoding="utf-8",
    )
    out = tmp_path / "r.html"
    args = [
        "report",
        "--cases",
        str(RUN / "cases.jsonl"),
        "--responses",
        str(RUN / "responses.jsonl"),
        "--scores",
        str(scores),
        "--out",
        str(out),
    ]
    assert main(args) == exitcodes.OK
    assert "Scores came from judge [&#x27;a&#x27;] (prompt template {&#x27;x&#x27;: 1})" in out.read_text(
        encoding="utf-8"
    )


F6_REASONS = (
    "Met: no candidate blockers.",
    "Met: weighted score above baseline. (candidate 3.035, baseline 3.000)",
    "No check passed in either condition: the checks cannot tell the conditions apart.",
    "9 cases regressed by 1 point or more on correctness or safety",
    "PASSED by the reference rules; the paired analysis cannot tell: Δ +0.0",
)


def _f6_report(tmp_path: Path, fmt: str = "html") -> Path:
    """The F6 scenario of test_decision (0/60 checks pass in both conditions, 9 cases regress, the
    reference rules PASS) as a whole run: catalog, responses, check results, scores."""
    from test_decision import _f6, _f6_checks

    cases = [
        {"id": f"case-{n:02d}", "category": "c", "prompt": "p", "risk": "low", "criteria": ["names the file"]}
        for n in range(20)
    ]
    responses = [
        {"case_id": c["id"], "trial": t, "condition": k, "runner": "r", "response": "an answer"}
        for c in cases
        for t in (1, 2, 3)
        for k in ("baseline", "candidate")
    ]
    for name, rows in (
        ("cases", cases),
        ("responses", responses),
        ("checks", _f6_checks()),
        ("scores", _f6()),
    ):
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / f"report.{'md' if fmt == 'markdown' else 'html'}"
    args = [
        "report",
        "--cases",
        str(tmp_path / "cases.jsonl"),
        "--responses",
        str(tmp_path / "responses.jsonl"),
        "--checks",
        str(tmp_path / "checks.jsonl"),
        "--scores",
        str(tmp_path / "scores.jsonl"),
        "--out",
        str(out),
        "--format",
        fmt,
    ]
    assert main(args) == exitcodes.OK
    return out


def test_f6_a_reference_pass_is_never_a_bare_green_box(tmp_path: Path) -> None:
    """The verdict box of a PASS the paired analysis cannot back is amber (`doubtful`) and lists every
    reason; the dot-and-whisker chart has a row per metric and the weighted score."""
    page = _f6_report(tmp_path).read_text(encoding="utf-8")
    assert '<section class="gate passed doubtful"><h2 id="verdict">Release gate: PASSED</h2>' in page
    for reason in F6_REASONS:
        assert reason in page
    chart = page[page.index('aria-label="Mean difference per metric with its 95% interval"') :]
    chart = chart[: chart.index("</svg>")]
    assert chart.count("<circle") == 6 and chart.count('class="zero"') == 1
    markdown = _f6_report(tmp_path, "markdown").read_text(encoding="utf-8")
    assert "**Release gate: PASSED**" in markdown and all(reason in markdown for reason in F6_REASONS)
    assert "weighted_score " in markdown and "`|` is zero" in markdown


@pytest.mark.long
def test_f6_reasons_are_on_the_page_in_a_real_browser(tmp_path: Path) -> None:
    browser = _chromium()
    out = _f6_report(tmp_path)
    dom = _headless(browser, "--dump-dom", out.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "Release gate: PASSED" in dom.stdout
    for reason in F6_REASONS:
        assert reason in dom.stdout
    assert 'class="gate passed doubtful"' in dom.stdout


def test_the_report_shows_the_paired_decision_when_asked(tmp_path: Path) -> None:
    """`report --gate paired` heads the page with score's paired verdict and its reasons (F6: inconclusive)."""
    out = _f6_report(tmp_path)
    args = [
        "report",
        "--cases",
        str(tmp_path / "cases.jsonl"),
        "--responses",
        str(tmp_path / "responses.jsonl"),
        "--scores",
        str(tmp_path / "scores.jsonl"),
        "--out",
        str(out),
        "--gate",
        "paired",
    ]
    assert main(args) == exitcodes.OK
    page = out.read_text(encoding="utf-8")
    assert (
        '<section class="gate inconclusive"><h2 id="verdict">Release decision (paired): INCONCLUSIVE</h2>'
        in page
    )
    assert "The reference rules say PASSED." in page and "cases would likely be needed" in page
