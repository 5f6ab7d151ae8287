"""`adhd-evals audit`: each check's label, pass rates with their intervals, flip rate; cases; the suite."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.deciding import audit
from adhd_evals.runs.deciding.audit import Outcome, Tally
from helpers import FIXTURES

RESULTS = FIXTURES / "audit" / "results.jsonl"


def _outcomes(plan: dict[str, tuple[list[str], list[str]]], case: str = "c") -> list[Outcome]:
    """Outcomes from `check -> (baseline statuses, candidate statuses)`, trial by trial."""
    found = []
    for check, conditions in plan.items():
        for condition, statuses in zip(("baseline", "candidate"), conditions, strict=True):
            for trial, status in enumerate(statuses, start=1):
                found.append(Outcome("check", case, f"{check}.", check, condition, trial, status))
    return found


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main(["audit", *argv, "--json"]) == exitcodes.OK
    return json.loads(capsys.readouterr().out)


def test_one_check_of_each_label(capsys: pytest.CaptureFixture[str]) -> None:
    """fixtures/audit/results.jsonl: five checks, five trials a condition, passes (baseline, candidate):
    greets (5, 5), cites_source (0, 0; one candidate trial unwritten), lists_steps (2, 3),
    answers_json (0, 4), keeps_header (5, 1). By the rules, in order:

    - greets passes every trial of both: saturated. cites_source passes none: floor (the unwritten
      trial is not a pass, counted as undecided).
    - flip rate: k passes of n trials make k·(n−k) disagreeing pairs of n(n−1)/2 = 10.
      lists_steps: (2·3 + 3·2) / (10 + 10) = 12/20 = 0.6, above 0.2: flaky.
      answers_json: (0·5 + 4·1) / 20 = 0.2, not above 0.2; candidate passes more: discriminating.
      keeps_header: (5·0 + 1·4) / 20 = 0.2; baseline passes more: baseline-only.
    - Wilson 95% (z = 1.959964, z² = 3.841459, n = 5: 1 + z²/n = 1.7682918, z/(1 + z²/n) = 1.108394):
      centre = (p + z²/10) / 1.7682918, half = 1.108394 · sqrt(p(1−p)/5 + z²/100).
      5/5: centre 1.3841459/1.7682918 = 0.782757, half 1.108394 · sqrt(0.03841459) = 0.217241:
        [0.565516, 1] (the high end capped at 1). 0/5 is its mirror: [0, 0.434484].
      4/5: centre 1.1841459/1.7682918 = 0.669655, half 1.108394 · sqrt(0.032 + 0.0384146) = 0.294121:
        [0.375534, 0.963776]; 1/5 is its mirror: [0.036224, 0.624466].
      2/5: centre 0.7841459/1.7682918 = 0.443449, half 1.108394 · sqrt(0.048 + 0.0384146) = 0.325828:
        [0.117621, 0.769277]; 3/5 is its mirror: [0.230723, 0.882379].
    - discrimination: candidate rate − baseline rate: 0, 0, 0.2, 0.8, −0.8.
    """
    found = {item["check"]: item for item in _json(capsys, str(RESULTS))["items"]}
    assert {check: item["label"] for check, item in found.items()} == {
        "greets": "saturated",
        "cites_source": "floor",
        "lists_steps": "flaky",
        "answers_json": "discriminating",
        "keeps_header": "baseline-only",
    }
    assert {check: item["flip_rate"] for check, item in found.items()} == pytest.approx(
        {"greets": 0.0, "cites_source": 0.0, "lists_steps": 0.6, "answers_json": 0.2, "keeps_header": 0.2}
    )
    assert {check: item["discrimination"] for check, item in found.items()} == pytest.approx(
        {"greets": 0.0, "cites_source": 0.0, "lists_steps": 0.2, "answers_json": 0.8, "keeps_header": -0.8}
    )
    intervals = {
        (check, condition): (item[condition]["low"], item[condition]["high"])
        for check, item in found.items()
        for condition in ("baseline", "candidate")
    }
    five, none = (0.565516, 1.0), (0.0, 0.434484)
    expected = {
        ("greets", "baseline"): five,
        ("greets", "candidate"): five,
        ("cites_source", "baseline"): none,
        ("cites_source", "candidate"): none,
        ("lists_steps", "baseline"): (0.117621, 0.769277),
        ("lists_steps", "candidate"): (0.230723, 0.882379),
        ("answers_json", "baseline"): none,
        ("answers_json", "candidate"): (0.375534, 0.963776),
        ("keeps_header", "baseline"): five,
        ("keeps_header", "candidate"): (0.036224, 0.624466),
    }
    for key, bounds in expected.items():
        assert intervals[key] == pytest.approx(bounds, abs=1e-5), key
    assert found["cites_source"]["candidate"]["undecided"] == 1
    assert found["cites_source"]["candidate"]["trials"] == 5


def test_cases_and_the_suite_of_the_fixture(capsys: pytest.CaptureFixture[str]) -> None:
    """Per case, Δ = candidate passes / results − baseline's: alpha (5+0+3)/15 − (5+0+2)/15 = 1/15;
    beta (4+1)/10 − (0+5)/10 = 0. Neither is no-lift (each has a check that moves). Two checks of
    five carry the decision (discriminating, baseline-only); one case of two has Δ ≠ 0."""
    shown = _json(capsys, str(RESULTS))
    assert [(c["case_id"], c["no_lift"]) for c in shown["cases"]] == [("alpha", False), ("beta", False)]
    assert [c["delta"] for c in shown["cases"]] == pytest.approx([1 / 15, 0.0])
    suite = shown["suite"]
    assert (suite["checks"], suite["deciding_checks"], suite["cases"], suite["deciding_cases"]) == (
        5,
        2,
        2,
        1,
    )
    assert [q["check"] for q in shown["quarantine"]] == ["lists_steps"]


def test_a_case_whose_checks_never_move_has_no_lift() -> None:
    """Case `idle`: one check passing every trial, one failing every trial, in both conditions:
    both conditions agree on every trial: no-lift, Δ 0. Case `busy` has a check that moves."""
    outcomes = _outcomes({"a": (["pass"] * 2, ["pass"] * 2), "b": (["fail"] * 2, ["fail"] * 2)}, "idle")
    outcomes += _outcomes({"a": (["fail"] * 2, ["pass"] * 2)}, "busy")
    found = audit.audit(outcomes)
    assert [(c.case_id, c.delta, c.no_lift) for c in found.cases] == [
        ("busy", Fraction(1), False),
        ("idle", Fraction(0), True),
    ]


def test_flat_and_unpaired() -> None:
    """1 pass in 3 trials in each condition flips (1·2 + 1·2)/(3 + 3) = 2/3: flaky above 0.2, but
    under --flaky-above 1 nothing is flaky and equal rates are flat. A check with no candidate
    result is unpaired (nothing to compare), its flip rate from the baseline's trials alone: 0."""
    flat = _outcomes({"f": (["pass", "fail", "fail"], ["fail", "pass", "fail"])})
    assert [a.label for a in audit.audit_items(flat)] == ["flaky"]
    assert [a.label for a in audit.audit_items(flat, flaky_above=1.0)] == ["flat"]
    assert audit.audit_items(flat)[0].flip_rate == Fraction(2, 3)
    lone = _outcomes({"u": (["pass", "pass"], [])})
    (only,) = audit.audit_items(lone)
    assert (only.label, only.flip_rate, only.discrimination) == ("unpaired", Fraction(0), None)


def test_one_trial_has_no_flip_rate() -> None:
    """One trial a condition: no two trials to compare, so no flip rate (None), never flaky."""
    (one,) = audit.audit_items(_outcomes({"x": (["fail"], ["pass"])}))
    assert (one.flip_rate, one.label) == (None, "discriminating")
    assert Tally().json()["rate"] is None and Tally().json()["low"] is None


def test_can_the_suite_resolve_the_effect() -> None:
    """Four cases with Δ 1, 0, 1, 0 (mean 1/2, sd sqrt(1/3) = 0.57735). paired.detectable with 3
    degrees of freedom: (t.975,3 + t.80,3) · sd / 2 = (3.182446 + 0.978472) · 0.57735 / 2 = 1.20115;
    an effect of 0.1 is out of reach (the cases needed: more than 4), of 1.5 within it."""
    outcomes: list[Outcome] = []
    for case, moves in (("a", True), ("b", False), ("c", True), ("d", False)):
        outcomes += _outcomes({"k": (["fail"], ["pass" if moves else "fail"])}, case)
    small, large = audit.audit(outcomes, effect=0.1), audit.audit(outcomes, effect=1.5)
    assert small.suite.paired is not None and small.suite.paired.mde == pytest.approx(1.20115, abs=1e-4)
    assert small.suite.resolves is False and (small.suite.cases_needed or 0) > 4
    assert large.suite.resolves is True
    assert "too coarse for an effect of 0.1" in audit.text(small)
    assert "within reach" in audit.text(large)


def test_one_case_cannot_say_what_it_resolves() -> None:
    found = audit.audit(_outcomes({"k": (["fail"], ["pass"])}))
    assert found.suite.resolves is None and found.suite.cases_needed is None
    assert "Too few paired cases" in audit.text(found)
    unpaired = audit.audit(_outcomes({"k": (["fail"], [])}))
    assert unpaired.suite.paired is None and "Too few paired cases" in audit.text(unpaired)


def test_costs_of_no_lift_cases_come_from_the_responses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The idle case's rows cost 0.25 + 0.25 (the cached row cost nothing again); the not-run row is
    counted apart."""
    outcomes = _outcomes({"a": (["pass"], ["pass"])}, "idle")
    rows = [
        {
            "case_id": "idle",
            "trial": 1,
            "condition": "baseline",
            "runner": "r",
            "response": "x",
            "cost_usd": 0.25,
        },
        {
            "case_id": "idle",
            "trial": 1,
            "condition": "candidate",
            "runner": "r",
            "response": "x",
            "cost_usd": 0.25,
        },
        {
            "case_id": "idle",
            "trial": 2,
            "condition": "candidate",
            "runner": "r",
            "response": "x",
            "cost_usd": 9.0,
            "cached": True,
        },
    ]
    found = audit.audit(outcomes, responses=rows, not_run=3)  # type: ignore[arg-type]
    assert found.cases[0].cost_usd == pytest.approx(0.5)
    shown = audit.text(found)
    assert "1 case with no lift (both conditions agree on every trial), which cost $0.5000." in shown
    assert "3 response rows recorded as not run (run --stop-when-decided): not audited." in shown


def test_criteria_are_audited_as_checks_are(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A criterion passing in every candidate trial and no baseline trial: discriminating, as a
    check would be; a criterion left uncertified counts as not passing (undecided 1)."""
    verdicts = tmp_path / "verdicts.jsonl"
    rows = [
        {
            "case_id": "c",
            "trial": t,
            "condition": cond,
            "criterion": "Is kind.",
            "status": status,
            "decided_by": by,
        }
        for t in (1, 2)
        for cond, status, by in (("baseline", "fail", "person"), ("candidate", "pass", "person"))
    ]
    rows[0] |= {
        "status": "uncertified",
        "decided_by": "nobody",
        "reason": "no certificate",
        "verdict": "pass",
    }
    verdicts.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (item,) = _json(capsys, "--criteria", str(verdicts))["items"]
    assert (item["kind"], item["label"], item["baseline"]["undecided"]) == ("criterion", "discriminating", 1)
    assert "check" not in item


def test_a_flaky_criterion_is_quarantined_without_a_check(tmp_path: Path) -> None:
    """Baseline pass, fail; candidate fail, pass: each condition's 2 trials disagree (1 pair of 1):
    flip rate 2/2 = 1, flaky. Its quarantine row names the criterion (no check function)."""
    outcomes = [
        Outcome("criterion", "c", "Is kind.", "", cond, trial, status)
        for cond, statuses in (("baseline", ("pass", "fail")), ("candidate", ("fail", "pass")))
        for trial, status in enumerate(statuses, start=1)
    ]
    assert audit.quarantine_rows(audit.audit(outcomes)) == [
        {
            "kind": "criterion",
            "case_id": "c",
            "criterion": "Is kind.",
            "label": "flaky",
            "flip_rate": 1.0,
            "flaky_above": 0.2,
        }
    ]


def test_text_and_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(RESULTS)]) == exitcodes.OK
    text = capsys.readouterr().out
    assert "lists_steps" in text and "flaky" in text and "2/5 [0.12, 0.77]" in text
    assert "Checks carrying the decision (discriminating or baseline-only): 2 of 5" in text
    assert main(["audit", str(RESULTS), "--markdown"]) == exitcodes.OK
    shown = capsys.readouterr().out
    assert (
        shown.startswith("# Suite audit\n") and "| alpha | Lists the steps. | lists_steps | flaky |" in shown
    )


def test_quarantine_out_lists_the_flaky_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "quarantine.jsonl"
    assert main(["audit", str(RESULTS), "--quarantine-out", str(out)]) == exitcodes.OK
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows == [
        {
            "kind": "check",
            "case_id": "alpha",
            "criterion": "Lists the steps.",
            "check": "lists_steps",
            "label": "flaky",
            "flip_rate": 0.6,
            "flaky_above": 0.2,
        }
    ]
    assert "nothing removed" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        pytest.param([], "nothing to audit", id="no-input"),
        pytest.param([str(RESULTS), "--json", "--markdown"], "give one", id="two-outputs"),
        pytest.param(["--prompt-only", "--responses", "r.jsonl"], "need check results", id="responses-alone"),
    ],
)
def test_refusals(argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", *argv]) == exitcodes.USAGE
    assert said in capsys.readouterr().err


def test_a_result_without_its_trial_is_refused_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The gate counts a result by condition and status alone; audit needs whose trial it is."""
    bad = tmp_path / "results.jsonl"
    bad.write_text(
        RESULTS.read_text().splitlines()[0]
        + "\n"
        + json.dumps({"condition": "baseline", "status": "pass"})
        + "\n"
    )
    assert main(["audit", str(bad)]) == exitcodes.INPUT
    err = capsys.readouterr().err
    assert ":2:" in err and "case_id must be a string (missing)" in err and "trial" in err


def test_the_html_report_has_an_audit_section(tmp_path: Path) -> None:
    """`report` with check results that say whose trial each is shows the audit's table; results
    with only the gate's fields (condition, status) leave the section out."""
    report = FIXTURES / "report"
    out = tmp_path / "report.html"
    argv = ["report", "--cases", str(report / "cases.jsonl"), "--responses", str(report / "responses.jsonl")]
    assert main([*argv, "--checks", str(RESULTS), "--out", str(out)]) == exitcodes.OK
    page = out.read_text()
    assert '<h2 id="audit">Suite audit</h2>' in page
    assert "<td>lists_steps</td><td>flaky</td>" in page and "Checks carrying the decision" in page
    gate_only = tmp_path / "gate-only.jsonl"
    gate_only.write_text(json.dumps({"condition": "baseline", "status": "pass"}) + "\n")
    assert main([*argv, "--checks", str(gate_only), "--out", str(out)]) == exitcodes.OK
    page = out.read_text()
    assert "<h2>Checks</h2>" in page and '<h2 id="audit">' not in page
