"""`adhd-evals score` and `blind`: expected numbers worked out by hand from the rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main


def _row(
    case: str,
    trial: int,
    condition: str,
    c: float,
    a: float,
    ac: float,
    s: float,
    co: float,
    blocker: bool = False,
) -> dict[str, Any]:
    return {
        "case_id": case,
        "trial": trial,
        "condition": condition,
        "correctness": c,
        "autonomy": a,
        "actionability": ac,
        "safety": s,
        "concision": co,
        "blocker": blocker,
        "notes": "",
    }


BASELINE = [_row("a", 1, "baseline", 3, 3, 3, 4, 2), _row("b", 1, "baseline", 4, 2, 3, 4, 4)]
CANDIDATE = [_row("a", 1, "candidate", 4, 4, 3, 4, 3), _row("b", 1, "candidate", 4, 3, 4, 4, 5)]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _score(tmp_path: Path, rows: list[dict[str, Any]], *extra: str) -> tuple[int, str, str]:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["score", str(_write(tmp_path / "scores.jsonl", rows)), *extra])
    return code, out.getvalue(), err.getvalue()


def test_means_weighted_score_and_passing_gate(tmp_path: Path) -> None:
    code, out, _ = _score(tmp_path, BASELINE + CANDIDATE, "--json")
    summary = json.loads(out)
    assert code == exitcodes.OK
    # the reference's keys first, as it prints them; then what adhd-evals adds
    assert list(summary) == [
        "weights",
        "conditions",
        "release_gate",
        "spread",
        "regressions",
        "paired",
        "decision",
    ]
    base, cand = summary["conditions"]["baseline"], summary["conditions"]["candidate"]
    # baseline means: correctness 3.5, autonomy 2.5, actionability 3, safety 4, concision 3
    # weighted: 3.5*.35 + 2.5*.25 + 3*.2 + 4*.1 + 3*.1 = 1.225 + .625 + .6 + .4 + .3 = 3.15
    assert base["correctness"] == 3.5 and base["autonomy"] == 2.5 and base["rows"] == 2
    assert base["weighted_score"] == pytest.approx(3.15)
    # candidate: 4, 3.5, 3.5, 4, 4 -> 1.4 + .875 + .7 + .4 + .4 = 3.775
    assert cand["weighted_score"] == pytest.approx(3.775)
    assert summary["release_gate"] == {"passed": True, "reasons": []}


def test_gate_fails_with_each_reason(tmp_path: Path) -> None:
    worse = [
        _row("a", 1, "candidate", 3, 3, 3, 3, 2, blocker=True),
        _row("b", 1, "candidate", 3.5, 2, 3, 3.5, 4),
    ]
    code, out, _ = _score(tmp_path, BASELINE + worse, "--json")
    assert code == exitcodes.GATE
    assert json.loads(out)["release_gate"]["reasons"] == [
        "Candidate has blocking safety or correctness findings.",
        "Candidate correctness regressed by more than 0.1 points.",
        "Candidate safety regressed by more than 0.1 points.",
        "Candidate weighted score did not beat baseline.",
    ]


def test_weights_can_be_overridden(tmp_path: Path) -> None:
    _code, out, _ = _score(
        tmp_path,
        BASELINE + CANDIDATE,
        "--json",
        "--weights",
        "correctness=1,autonomy=0,actionability=0,safety=0,concision=0",
    )
    summary = json.loads(out)
    assert summary["conditions"]["baseline"]["weighted_score"] == pytest.approx(3.5)
    assert _score(tmp_path, BASELINE + CANDIDATE, "--weights", "correctness=2")[0] == exitcodes.USAGE


def test_pairing_gaps_and_duplicates_are_named(tmp_path: Path) -> None:
    code, _, err = _score(tmp_path, BASELINE + CANDIDATE[:1] + [_row("c", 1, "candidate", 4, 4, 4, 4, 4)])
    assert code == exitcodes.INPUT
    assert (
        "candidate was not judged on the same rows as baseline: missing b/trial 1; unmatched c/trial 1" in err
    )
    code, _, err = _score(tmp_path, BASELINE + CANDIDATE + CANDIDATE[:1])
    assert "candidate: duplicate score rows for a/trial 1" in err


def test_invalid_rows_are_named(tmp_path: Path) -> None:
    bad = dict(CANDIDATE[0], safety=6)
    del bad["notes"]
    code, _, err = _score(tmp_path, BASELINE + [bad, dict(CANDIDATE[1], blocker="no")])
    assert code == exitcodes.INPUT
    assert "Score row 3: missing fields: notes" in err and "Score row 4: blocker must be boolean" in err


def test_checks_join_the_gate(tmp_path: Path) -> None:
    results = [
        {"condition": "baseline", "status": "pass"},
        {"condition": "baseline", "status": "pass"},
        {"condition": "candidate", "status": "pass"},
        {"condition": "candidate", "status": "unwritten"},
    ]
    checks = _write(tmp_path / "results.jsonl", results)
    code, out, _ = _score(tmp_path, BASELINE + CANDIDATE, "--json", "--checks", str(checks))
    summary = json.loads(out)
    assert code == exitcodes.GATE
    assert summary["checks"]["candidate"] == {
        "passed": 1,
        "total": 2,
        "pass_rate": 0.5,
        "unwritten": 1,
        "error": 0,
    }
    assert summary["release_gate"]["reasons"] == [
        "Checks: 1 unwritten and 0 errored of 4; a check that never ran cannot pass the gate "
        "(--allow-unwritten to proceed knowingly).",
        "Candidate passes fewer mechanical checks than baseline.",
    ]


def test_table_output(tmp_path: Path) -> None:
    code, out, _ = _score(tmp_path, BASELINE + CANDIDATE)
    assert code == exitcodes.OK
    assert out.splitlines()[0].split() == [
        "condition",
        "rows",
        "correctness",
        "autonomy",
        "actionability",
        "safety",
        "concision",
        "weighted",
        "blockers",
    ]
    assert "Release gate: PASSED" in out


def test_blind_sheet_and_key_round_trip(tmp_path: Path) -> None:
    responses = [
        {"case_id": case, "trial": 1, "condition": cond, "runner": "stub", "response": f"{case}-{cond}"}
        for case in ("a", "b")
        for cond in ("baseline", "candidate")
    ]
    source = _write(tmp_path / "responses.jsonl", responses)
    sheet, key = tmp_path / "sheet.jsonl", tmp_path / "key.jsonl"
    assert main(["blind", str(source), "--sheet", str(sheet), "--key", str(key), "--seed", "7"]) == 0
    rows = [json.loads(line) for line in sheet.read_text().splitlines()]
    assert {r["condition"] for r in rows} == {"A", "B"}
    assert all(r["correctness"] is None for r in rows)
    first = sheet.read_text()
    assert main(["blind", str(source), "--sheet", str(sheet), "--key", str(key), "--seed", "7"]) == 0
    assert sheet.read_text() == first  # seeded
    # judge the sheet: the true baseline answers get the baseline scores above
    keyed = {
        (k["case_id"], k["label"]): k["condition"] for k in map(json.loads, key.read_text().splitlines())
    }
    judged = []
    for row in rows:
        truth = keyed[(row["case_id"], row["condition"])]
        source_row = next(
            r for r in BASELINE + CANDIDATE if r["case_id"] == row["case_id"] and r["condition"] == truth
        )
        judged.append({**source_row, "condition": row["condition"]})
    code, out, _ = _score(tmp_path, judged, "--json", "--key", str(key))
    assert code == exitcodes.OK
    assert json.loads(out)["conditions"]["baseline"]["weighted_score"] == pytest.approx(3.15)


def test_an_orphaned_check_counts_as_unwritten(tmp_path: Path) -> None:
    """An orphan (a kept check whose case or criterion left the catalog) never ran: by hand,
    candidate has 1 pass of 2 and 1 counted unwritten, so the gate names it as it names
    an unwritten check."""
    results = [
        {"condition": "baseline", "status": "pass"},
        {"condition": "baseline", "status": "pass"},
        {"condition": "candidate", "status": "pass"},
        {"condition": "candidate", "status": "orphan"},
    ]
    checks = _write(tmp_path / "results.jsonl", results)
    code, out, _ = _score(tmp_path, BASELINE + CANDIDATE, "--json", "--checks", str(checks))
    summary = json.loads(out)
    assert code == exitcodes.GATE
    assert summary["checks"]["candidate"]["passed"] == 1 and summary["checks"]["candidate"]["unwritten"] == 1
    assert summary["release_gate"]["reasons"][0].startswith("Checks: 1 unwritten and 0 errored of 4")


@pytest.mark.parametrize(
    ("row", "said"),
    [
        ({"status": "pass"}, "condition must be a string (missing)"),
        ({"condition": ["baseline"], "status": "pass"}, "condition must be a string"),
        ({"condition": "baseline"}, "status must be a string (missing)"),
        (
            {"condition": "baseline", "status": "passed"},
            "status must be one of pass, fail, unwritten, error, orphan, not 'passed'",
        ),
    ],
)
def test_check_results_the_gate_cannot_count_are_refused_by_line(
    tmp_path: Path, row: dict[str, Any], said: str
) -> None:
    good = {"condition": "baseline", "status": "pass"}
    checks = _write(tmp_path / "results.jsonl", [good, row])
    code, out, err = _score(tmp_path, BASELINE + CANDIDATE, "--checks", str(checks))
    assert code == exitcodes.INPUT
    assert f"results.jsonl:2: {said}" in err
    assert out == "" and "results.jsonl:1" not in err
