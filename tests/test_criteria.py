"""`score --criteria`: criteria passed per condition by who decided, the judge's corrected rate, the gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.deciding import criteria
from adhd_evals.runs.judging.agree import Rate
from adhd_evals.runs.rows import checked_rows
from judging import write_jsonl
from test_verdicts import FINGERPRINT, certificate_for, fingerprints


def test_rogan_gladen_by_hand() -> None:
    """The judge passed 30 of the 50 criteria it decided (raw 0.6); its certificate has TPR
    40/40 and TNR 39/40 (0.975). Corrected = (0.6 + 0.975 - 1) / (1 + 0.975 - 1) = 0.575 / 0.975
    = 0.5897.
    Wilson intervals (z = 1.95996): 30/50 -> [0.4618, 0.7239]; 40/40 -> [0.9124, 1];
    39/40 -> [0.8712, 0.9956].
    Lowest corner: raw low, TNR low, TPR high: (0.4618 + 0.8712 - 1) / (1 + 0.8712 - 1) =
    0.3330 / 0.8712 = 0.3822. Highest: raw high, TNR high, TPR low: (0.7239 + 0.9956 - 1) /
    (0.9124 + 0.9956 - 1) = 0.7195 / 0.9080 = 0.7924."""
    found = criteria.corrected(Rate(30, 50), Rate(40, 40), Rate(39, 40))
    assert found["raw"] == 0.6
    assert found["raw_interval"] == pytest.approx([0.4618, 0.7239], abs=1e-4)
    assert found["corrected"] == pytest.approx(0.5897, abs=1e-4)
    assert found["interval"] == pytest.approx([0.3822, 0.7924], abs=1e-4)


def test_a_perfect_judge_is_not_corrected() -> None:
    """TPR = TNR = 1: corrected = (p + 1 - 1) / (1 + 1 - 1) = p."""
    assert criteria.corrected(Rate(3, 4), Rate(50, 50), Rate(50, 50))["corrected"] == 0.75


def test_a_judge_no_better_than_a_coin_is_not_corrected() -> None:
    """TPR 10/20 and TNR 10/20: TPR + TNR = 1, so the correction divides by zero."""
    found = criteria.corrected(Rate(5, 10), Rate(10, 20), Rate(10, 20))
    assert found["corrected"] is None and found["interval"] == [0.0, 1.0]


def test_rates_below_the_floor_clip_to_zero() -> None:
    """Raw 1/20 = 0.05 with TNR 0.9 and TPR 0.95 (19/20, 18/20): (0.05 + 0.9 - 1) / 0.85 < 0 -> 0."""
    assert criteria.corrected(Rate(1, 20), Rate(19, 20), Rate(18, 20))["corrected"] == 0.0


def _row(condition: str, criterion: str, status: str, by: str, **extra: Any) -> dict[str, Any]:
    return {
        "case_id": "c",
        "trial": 1,
        "condition": condition,
        "criterion": criterion,
        "status": status,
        "decided_by": by,
        **extra,
    }


def _scores(tmp_path: Path) -> Path:
    """Candidate 4s over baseline 3s, no blocker: the reference gate passes on its own."""
    metrics = ("correctness", "autonomy", "actionability", "safety", "concision")
    return write_jsonl(
        tmp_path / "scores.jsonl",
        [
            {
                "case_id": "c",
                "trial": 1,
                "condition": c,
                **dict.fromkeys(metrics, n),
                "blocker": False,
                "notes": "",
            }
            for c, n in (("baseline", 3), ("candidate", 4))
        ],
    )


def _score(tmp_path: Path, rows: list[dict[str, Any]], *extra: str) -> int:
    verdicts = write_jsonl(tmp_path / "verdicts.jsonl", rows)
    return main(["score", str(_scores(tmp_path)), "--criteria", str(verdicts), *extra])


DECIDED = [
    _row("baseline", "a", "pass", "check"),
    _row("baseline", "b", "fail", "person"),
    _row("candidate", "a", "pass", "check"),
    _row("candidate", "b", "pass", "person"),
]


def test_every_criterion_decided_lets_the_gate_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _score(tmp_path, DECIDED) == 0
    out = capsys.readouterr().out
    assert "Release gate: PASSED" in out
    lines = out.split("Criteria (passed / decided, by who decided):")[1].splitlines()
    candidate = next(line.split() for line in lines if line.startswith("candidate"))
    # criteria 2, passed 2, by check 1/1, by person 1/1, by judge 0/0, undecided 0, no judge rate
    assert candidate == ["candidate", "2", "2", "1/1", "1/1", "0/0", "0", "-"]


def test_the_gate_fails_while_anything_is_undecided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        *DECIDED,
        _row("baseline", "c", "unwritten", "nobody"),
        _row("candidate", "c", "error", "check"),
        _row("candidate", "d", "void", "nobody"),
    ]
    rows[-2]["decided_by"] = "nobody"
    assert _score(tmp_path, rows) == exitcodes.GATE
    out = capsys.readouterr().out
    assert (
        "Criteria: 3 of 7 undecided (1 unwritten (nobody decided), 1 error (a check raised), 1 void (the judge "
        "could not judge)); decided by check 2, by person 2, by certified judge 0."
    ) in out


def test_a_judges_verdict_counts_only_under_its_certificate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The candidate's c was decided by the judge (pass). Without a certificate, and with one for
    another model, it is uncertified; with the judge's own, it counts and the gate passes."""
    rows = [
        *DECIDED,
        _row("baseline", "c", "pass", "judge", judge=FINGERPRINT),
        _row("candidate", "c", "pass", "judge", judge=FINGERPRINT),
    ]
    assert _score(tmp_path, rows) == exitcodes.GATE
    assert "2 uncertified (an uncertified judge's)" in capsys.readouterr().out
    cert = tmp_path / "cert.json"
    cert.write_text(json.dumps(certificate_for({**FINGERPRINT, "model": "opus"})))
    assert _score(tmp_path, rows, "--certificate", str(cert)) == exitcodes.GATE
    cert.write_text(json.dumps(certificate_for(FINGERPRINT)))
    assert _score(tmp_path, rows, "--certificate", str(cert)) == 0
    out = capsys.readouterr().out
    # 1 of 1 judged passes; TPR = TNR = 40/40, so corrected = raw = 1; the interval's low end:
    # (0.2065 + 0.9124 - 1) / (1 + 0.9124 - 1) = 0.1189 / 0.9124 = 0.1303 (Wilson 1/1 -> [0.2065, 1])
    assert "1.000 -> 1.000 [0.130, 1.000]" in out


def test_a_smaller_share_of_criteria_fails_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [_row("baseline", "a", "pass", "check"), _row("candidate", "a", "fail", "check")]
    assert _score(tmp_path, rows) == exitcodes.GATE
    assert (
        "Criteria: the candidate passes a smaller share of its criteria than baseline (0/1 against 1/1)."
        in capsys.readouterr().out
    )


def test_a_certificate_without_criteria_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", str(_scores(tmp_path)), "--certificate", "c.json"]) == exitcodes.USAGE


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        (_row("baseline", "a", "pass", "nobody"), "a pass is decided by someone, not 'nobody'"),
        (_row("baseline", "a", "unwritten", "judge"), "a unwritten is decided by nobody, not 'judge'"),
        (_row("baseline", "a", "maybe", "check"), "status must be one of pass, fail, unwritten"),
        (_row("baseline", "a", "pass", "oracle"), "decided_by must be one of check, person, judge, nobody"),
    ],
)
def test_rows_the_gate_cannot_count_are_named(
    tmp_path: Path, row: dict[str, Any], problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _score(tmp_path, [row]) == exitcodes.INPUT
    err = capsys.readouterr().err
    assert "verdicts.jsonl:1: " in err and problem in err


@pytest.mark.long
@given(
    rows=st.lists(st.tuples(fingerprints(), st.sampled_from(["pass", "fail"])), min_size=1, max_size=8),
    certified=st.one_of(st.none(), fingerprints()),
)
@settings(max_examples=150, deadline=None)
def test_score_never_counts_a_judge_the_certificate_does_not_name(
    rows: list[tuple[dict[str, Any], str]], certified: dict[str, Any] | None
) -> None:
    """Whatever the verdicts file says, a judge verdict counts only under a matching certificate."""
    verdicts = [
        {**_row(c, f"k{i}", said, "judge", judge=fingerprint), "trial": 1}
        for i, (fingerprint, said) in enumerate(rows)
        for c in ("baseline", "candidate")
    ]
    found = criteria.summarize(
        checked_rows(verdicts, criteria.is_verdict_row), certificate_for(certified) if certified else None
    )
    counted = sum(2 for fingerprint, said in rows if said == "pass" and certified == fingerprint)
    passed = sum(c["passed"] for c in found["conditions"].values())
    assert passed == counted
    uncertified = sum(c["undecided"].get("uncertified", 0) for c in found["conditions"].values())
    assert uncertified == sum(2 for fingerprint, _ in rows if certified != fingerprint)


def test_the_paired_gate_cannot_say_better_while_a_criterion_is_undecided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ten cases, the candidate 2 or 3 points up on every metric of every case (an interval with
    width, all ten up): the paired gate says better (exit 0) on the scores alone; one unwritten
    criterion makes it inconclusive (exit 8)."""
    metrics = ("correctness", "autonomy", "actionability", "safety", "concision")
    scores = write_jsonl(
        tmp_path / "scores.jsonl",
        [
            {
                "case_id": f"c{n}",
                "trial": 1,
                "condition": c,
                **dict.fromkeys(metrics, m),
                "blocker": False,
                "notes": "",
            }
            for n in range(10)
            for c, m in (("baseline", 2), ("candidate", 4 + n % 2))
        ],
    )
    assert main(["score", str(scores), "--gate", "paired"]) == 0
    rows = [*DECIDED, _row("candidate", "c", "unwritten", "nobody")]
    verdicts = write_jsonl(tmp_path / "verdicts.jsonl", rows)
    capsys.readouterr()
    assert (
        main(["score", str(scores), "--gate", "paired", "--criteria", str(verdicts)])
        == exitcodes.INCONCLUSIVE
    )
    out = capsys.readouterr().out
    assert "Release decision (--gate paired): INCONCLUSIVE" in out and "Criteria: 1 of 5 undecided" in out


def test_per_case_the_criteria_are_compared_as_the_scores_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ten cases of one criterion each: baseline passes it in every case, the candidate in none.
    Per case Δ = 0/1 - 1/1 = -1, the same in every case, so the mean is -1 and every resample's
    too: the interval is [-1, -1], wholly below 0."""
    rows = [
        {**_row(c, "a", s, "check"), "case_id": f"c{n}"}
        for n in range(10)
        for c, s in (("baseline", "pass"), ("candidate", "fail"))
    ]
    found = criteria.summarize(checked_rows(rows, criteria.is_verdict_row), None)
    paired = found.get("paired")
    assert paired is not None
    assert (paired["n"], paired["mean_delta"], paired["ci"]) == (
        10,
        -1.0,
        [-1.0, -1.0],
    )
    assert any(
        r.startswith("Criteria: per case, the candidate passes a smaller share (Δ −1.00")
        for r in found["reasons"]
    )
    assert _score(tmp_path, rows) == exitcodes.GATE
    assert (
        "Per case, share of criteria passed, candidate minus baseline: mean -1.000, 95% CI -1.000..-1.000, 10 "
        "cases." in capsys.readouterr().out
    )


def test_a_case_judged_in_one_condition_only_cannot_be_compared() -> None:
    rows = [*DECIDED, _row("baseline", "a", "pass", "check") | {"case_id": "lonely"}]
    found = criteria.summarize(checked_rows(rows, criteria.is_verdict_row), None)
    assert found["paired"] is None
    assert (
        "Criteria: cases without both baseline and candidate: lonely: verdicts for one condition only cannot "
        "be compared." in found["reasons"]
    )


def test_the_markdown_report_shows_who_decided(tmp_path: Path) -> None:
    """DECIDED: each condition has 2 criteria, one decided by check and one by a person; baseline
    passes 1 (a), the candidate 2."""
    cases = write_jsonl(
        tmp_path / "cases.jsonl",
        [{"id": "c", "category": "x", "prompt": "p", "risk": "low", "criteria": ["a", "b"]}],
    )
    responses = write_jsonl(
        tmp_path / "responses.jsonl",
        [
            {"case_id": "c", "trial": 1, "condition": c, "runner": "m", "response": "r"}
            for c in ("baseline", "candidate")
        ],
    )
    verdicts = write_jsonl(tmp_path / "verdicts.jsonl", DECIDED)
    out = tmp_path / "report.md"
    assert (
        main(
            [
                "report",
                "--cases",
                str(cases),
                "--responses",
                str(responses),
                "--scores",
                str(_scores(tmp_path)),
                "--criteria",
                str(verdicts),
                "--format",
                "markdown",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    text = out.read_text()
    assert "### Criteria: who decided" in text
    assert "| baseline | 2 | 1 | 1/1 | 0/1 | 0/0 | 0 | - |" in text
    assert "| candidate | 2 | 2 | 1/1 | 1/1 | 0/0 | 0 | - |" in text
