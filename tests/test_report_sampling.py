"""A large run's HTML report (issue 38): the cases that regressed or failed, a seeded sample of the
rest, a statement of both, and `--full` writing every case and saying how big the page is.

Expected pages are worked from the rules in runs/reporting/view.py: up to LARGE_RUN (200) cases
every case is in; past it, the first FLAGGED_CAP (200) flagged cases in the table's order (worst
weighted Δ first, ties by id) and SAMPLE_SIZE (100) of the others, the positions drawn by
random.Random(0).sample over the others in the table's order."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.catalog import CaseRow
from adhd_evals.entry import main
from adhd_evals.runs.reporting.report import Inputs, html_report
from adhd_evals.runs.rows import ResponseRow, ResultRow

METRICS = ("correctness", "autonomy", "actionability", "safety", "concision")


def _case(case_id: str) -> CaseRow:
    return {
        "id": case_id,
        "category": "x",
        "prompt": f"Prompt {case_id}.",
        "risk": "low",
        "criteria": ["Done."],
    }


def _score(case_id: str, condition: str, mark: int, blocker: bool = False) -> dict[str, Any]:
    return {
        "case_id": case_id,
        "trial": 1,
        "condition": condition,
        **dict.fromkeys(METRICS, mark),
        "blocker": blocker,
        "notes": "",
    }


def _check(case_id: str, condition: str, status: str) -> ResultRow:
    row: dict[str, Any] = {
        "case_id": case_id,
        "trial": 1,
        "condition": condition,
        "runner": "r",
        "criterion": "Done.",
        "check": "done",
        "status": status,
    }
    return row  # type: ignore[return-value]


def _run(
    ids: list[str],
    *,
    regressed: dict[str, int],
    failing: frozenset[str] = frozenset(),
    blocked: frozenset[str] = frozenset(),
) -> Inputs:
    """Every case scored 3 by both conditions, but a regressed case's candidate scores 3 - drop;
    a failing case's candidate check fails; a blocked case's candidate row carries a blocker."""
    scores, checks, answers = [], [], []
    for case_id in ids:
        scores.append(_score(case_id, "baseline", 3))
        scores.append(_score(case_id, "candidate", 3 - regressed.get(case_id, 0), case_id in blocked))
        for condition in ("baseline", "candidate"):
            failed = condition == "candidate" and case_id in failing
            checks.append(_check(case_id, condition, "fail" if failed else "pass"))
            answer: ResponseRow = {
                "case_id": case_id,
                "trial": 1,
                "condition": condition,
                "runner": "r",
                "response": f"answer {case_id} {condition}",
            }
            answers.append(answer)
    return Inputs([_case(i) for i in ids], answers, checks=checks, scores=scores)


def _table_ids(page: str) -> list[str]:
    return re.findall(r'<tr id="case-([^"]+)">', page)


def _ids(count: int) -> list[str]:
    return [f"c{n:03d}" for n in range(count)]


def test_a_run_of_200_cases_is_shown_whole_with_no_statement() -> None:
    """200 cases is not large: every case in the table, no statement, the same page as --full."""
    inputs = _run(_ids(200), regressed={"c000": 1})
    page = html_report(inputs)
    assert len(_table_ids(page)) == 200
    assert 'id="sampled"' not in page
    inputs.full = True
    assert page == html_report(inputs)


def test_a_large_run_shows_every_flagged_case_and_a_seeded_sample() -> None:
    """201 cases: c000-c009 regressed (candidate 1 lower on every metric: weighted Δ -1), c010 a
    failing candidate check, c011 a candidate blocker: 12 flagged, all shown. The other 189
    (Δ 0, in id order) give 100 drawn by random.Random(0).sample(range(189), 100)."""
    ids = _ids(201)
    regressed = {f"c{n:03d}": 1 for n in range(10)}
    page = html_report(
        _run(ids, regressed=regressed, failing=frozenset({"c010"}), blocked=frozenset({"c011"}))
    )
    others = ids[12:]
    drawn = {others[i] for i in random.Random(0).sample(range(189), 100)}
    shown = _table_ids(page)
    # the table's order: regressed first (Δ -1, by id), then the rest by Δ 0, blockers first
    assert shown[:10] == ids[:10]
    assert shown[10] == "c011"
    assert set(shown) == set(ids[:12]) | drawn
    assert len(shown) == 112
    statement = (
        "This run has 201 cases, too many for one page a browser opens quickly. The table holds the 12 "
        "cases that regressed or failed (weighted Δ below 0, a candidate blocker, or a check "
        "failing or erroring) and 100 of the other 189, drawn at random (seed 0); 89 cases are left "
        "out. The charts, the audit and the verdict count every case; report --full writes every case."
    )
    assert f'<p class="warning" id="sampled">{statement}</p>' in page


def test_past_the_cap_the_worst_200_flagged_cases_are_shown() -> None:
    """250 regressed cases, c000 the worst (drop 2: Δ -2), the other 249 dropped 1; 150 not: the
    page keeps c000 and the 199 next by id (c001-c199), leaving c200-c249 out."""
    ids = _ids(400)
    regressed = dict.fromkeys(ids[:250], 1) | {"c000": 2}
    page = html_report(_run(ids, regressed=regressed))
    shown = _table_ids(page)
    assert shown[:200] == ids[:200]
    assert not set(shown) & set(ids[200:250])
    assert len(shown) == 300  # and 100 of the 150 others
    assert "The table holds the worst 200 of the 250 cases that regressed or failed" in page
    assert "and 100 of the other 150, drawn at random (seed 0); 100 cases are left out." in page


def test_one_case_left_out_is_said_in_the_singular() -> None:
    """201 regressed cases, no others: the worst 200 shown, one left out, none to sample."""
    ids = _ids(201)
    page = html_report(_run(ids, regressed=dict.fromkeys(ids, 1)))
    assert len(_table_ids(page)) == 200
    assert "and 0 of the other 0, drawn at random (seed 0); 1 case is left out." in page


def test_full_shows_every_case_of_a_large_run() -> None:
    ids = _ids(201)
    inputs = _run(ids, regressed={})
    inputs.full = True
    page = html_report(inputs)
    assert sorted(_table_ids(page)) == ids
    assert 'id="sampled"' not in page


def test_the_audit_keeps_the_rows_of_the_shown_cases_and_counts_every_case() -> None:
    """Every case has one check per condition: the audit has a row per (case, criterion, check),
    201 of them; the page's audit table keeps the 112 of the cases shown (as above)."""
    ids = _ids(201)
    regressed = {f"c{n:03d}": 1 for n in range(10)}
    page = html_report(
        _run(ids, regressed=regressed, failing=frozenset({"c010"}), blocked=frozenset({"c011"}))
    )
    audit = page.split('<h2 id="audit">', 1)[1].split("<h2>", 1)[0]
    assert "<p>The rows of 112 checks of 201: those of the cases in the table of cases below" in audit
    rows = re.findall(r"<tr><td>(c\d{3})</td>", audit)
    assert sorted(rows) == sorted(_table_ids(page))
    # a small run's audit keeps every row and says nothing about it
    small = html_report(_run(_ids(3), regressed={}))
    assert "The rows of" not in small
    assert len(re.findall(r"<tr><td>(c\d{3})</td>", small.split('<h2 id="audit">', 1)[1])) == 3


def test_report_full_says_how_big_the_page_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`report --full` writes every case and states the page's size in megabytes (bytes / 10^6,
    one decimal); without --full the line says nothing of size."""

    ids = _ids(201)
    inputs = _run(ids, regressed={})
    files: dict[str, list[Any]] = {
        "cases": inputs.cases,
        "responses": inputs.responses,
        "scores": list(inputs.scores or []),
    }
    for name, rows in files.items():
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    argv = [
        "report",
        "--cases",
        str(tmp_path / "cases.jsonl"),
        "--responses",
        str(tmp_path / "responses.jsonl"),
    ]
    argv += ["--scores", str(tmp_path / "scores.jsonl"), "--out"]
    assert main([*argv, str(tmp_path / "full.html"), "--full"]) == exitcodes.OK
    size = (tmp_path / "full.html").stat().st_size
    said = capsys.readouterr().out
    assert said == f"Wrote {tmp_path / 'full.html'} (201 cases, 402 responses, {size / 1_000_000:.1f} MB)\n"
    assert len(_table_ids((tmp_path / "full.html").read_text(encoding="utf-8"))) == 201
    assert main([*argv, str(tmp_path / "sampled.html")]) == exitcodes.OK
    assert capsys.readouterr().out == f"Wrote {tmp_path / 'sampled.html'} (201 cases, 402 responses)\n"
    assert len(_table_ids((tmp_path / "sampled.html").read_text(encoding="utf-8"))) == 100
