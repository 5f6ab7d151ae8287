"""`blind --label-sample`, `score --labels` and `--gate paired` on a judge's scores (issue 30, items 1-3):
the random sample and its record in the key, an unverified judge deciding nothing, and the
prediction-powered decision, from a biased judge and from an honest one."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.inference import ppi

METRICS = ("correctness", "autonomy", "actionability", "safety", "concision")
FINGERPRINT = {"runner": "judge", "command": ["fake"], "model": None, "template": "t"}
# each case's true Δ (the same on every metric, both trials): mean 1.0; deviations 1 (x10), -2 (x5),
# 0 (x5) give a sum of squares 30, sample variance 30/19, sd 1.2566
TRUE_DELTA = [2] * 10 + [-1] * 5 + [1] * 5
# no true difference: mean 0 (the candidate 2 to 4, so a judge's +1 is never capped at 5)
NULL_DELTA = [1] * 5 + [-1] * 5 + [0] * 10


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """20 cases x 2 trials x 2 conditions, blinded with a label sample of 8 cases (seed 3)."""
    monkeypatch.chdir(tmp_path)
    responses = [
        {"case_id": f"c{i:02d}", "trial": t, "condition": c, "runner": "stub", "response": f"{c} {i} {t}"}
        for i in range(20)
        for t in (1, 2)
        for c in ("baseline", "candidate")
    ]
    _write(tmp_path / "responses.jsonl", responses)
    code, _, err = _cli(
        "blind", "responses.jsonl", "--sheet", "sheet.jsonl", "--key", "key.jsonl", "--seed", "3",
        "--label-sample", "8", "--label-sheet", "labels.jsonl", "--label-markdown", "labels.md",
    )  # fmt: skip
    assert code == 0, err
    return tmp_path


def _truth(case: str, condition: str, deltas: list[int]) -> int:
    """Baseline 3 on every metric; the candidate 3 + the case's true Δ."""
    return 3 + (deltas[int(case[1:])] if condition == "candidate" else 0)


def _conditions(folder: Path) -> dict[tuple[str, int, str], str]:
    return {
        (k["case_id"], k["trial"], k["label"]): k["condition"]
        for k in _read(folder / "key.jsonl")
        if "label" in k
    }


def _fill(folder: Path, sheet: str, bias: int, judge: bool, deltas: list[int] = TRUE_DELTA) -> Path:
    """The sheet filled: every metric the truth, plus `bias` on the candidate (a judge that favours
    it); a judge's rows carry its fingerprint."""
    conditions = _conditions(folder)
    rows = []
    for row in _read(folder / sheet):
        condition = conditions[(row["case_id"], row["trial"], row["condition"])]
        mark = _truth(row["case_id"], condition, deltas) + (bias if condition == "candidate" else 0)
        rows.append({**row, **dict.fromkeys(METRICS, mark), "blocker": False, "notes": ""})
        if judge:
            rows[-1]["judge"] = FINGERPRINT
    return _write(folder / f"filled-{bias}-{judge}-{sheet}", rows)


def test_the_label_sample_is_every_row_of_k_random_cases_and_the_key_records_it(suite: Path) -> None:
    """8 of the 20 cases, drawn by random.Random(3).sample over the sorted ids: the label sheet holds
    their 8 x 2 x 2 = 32 rows with the judging sheet's labels; the key's last row records the draw."""
    key = _read(suite / "key.jsonl")
    record = key[-1]["label_sample"]
    assert record["seed"] == 3 and record["method"] == ppi.SAMPLE_METHOD
    assert record["case_ids"] == ppi.draw([f"c{i:02d}" for i in range(20)], 8, 3)
    labels = _read(suite / "labels.jsonl")
    assert len(labels) == 32 and {r["case_id"] for r in labels} == set(record["case_ids"])
    sheet = {(r["case_id"], r["trial"], r["condition"]): r for r in _read(suite / "sheet.jsonl")}
    assert all(sheet[(r["case_id"], r["trial"], r["condition"])] == r for r in labels)
    assert (suite / "labels.md").read_text(encoding="utf-8").count("<!-- adhd-evals row ") == 32


def test_an_unverified_judge_decides_nothing_and_says_how_many_to_label(suite: Path) -> None:
    """The judge's weighted Δ per case is the true Δ (mean 1.0, sd 1.2566). Labels needed to tell 1.0
    from 0 at 80% power: normal (2.8016 · 1.2566)^2 = 12.4, then t: n = 13 detects (2.179 + 0.873) ·
    1.2566 / sqrt(13) = 1.064, 14: 1.018, 15: 0.978 ≤ 1, so 15. Inconclusive, exit 8; the reference
    gate on the same file is unchanged (PASSED: the candidate is above baseline, nothing dropped)."""
    judged = _fill(suite, "sheet.jsonl", bias=0, judge=True)
    code, out, _ = _cli("score", str(judged), "--key", "key.jsonl", "--gate", "paired", "--json")
    decision = json.loads(out)["decision"]
    assert (code, decision["verdict"]) == (exitcodes.INCONCLUSIVE, "inconclusive")
    assert decision["reasons"][0].startswith(
        "Judge scores unverified: label 15 random cases (`adhd-evals blind --label-sample 15`)"
    )
    code, out, _ = _cli("score", str(judged), "--key", "key.jsonl")
    assert code == 0 and "Release gate: PASSED" in out


def test_a_person_s_scores_decide_as_before(suite: Path) -> None:
    """The same marks filled by a person (no fingerprint): the paired gate decides on them as it always
    has: every case differs, 15 up and 5 down, the interval lies above 0 (mean 1.0, se 0.28): better."""
    person = _fill(suite, "sheet.jsonl", bias=0, judge=False)
    code, out, _ = _cli("score", str(person), "--key", "key.jsonl", "--gate", "paired", "--json")
    assert (code, json.loads(out)["decision"]["verdict"]) == (exitcodes.OK, "better")


def _ppi(suite: Path, judged: Path, person: Path) -> tuple[int, dict[str, Any]]:
    code, out, err = _cli(
        "score", str(judged), "--key", "key.jsonl", "--labels", str(person), "--gate", "paired", "--json"
    )
    assert out, err
    summary: dict[str, Any] = json.loads(out)
    return code, summary


def test_a_biased_judge_is_corrected_by_the_random_sample(suite: Path) -> None:
    """No true difference (NULL_DELTA, mean 0); the judge adds 1 to every candidate metric, so its Δ is
    the truth + 1 on every case: taken at its word, +1.00 over 20 cases. PPI's θ̂ = mean(Y) +
    λ (mean f̃ - mean f): the +1 is in f̃ and f alike and cancels, and λ (a covariance over a variance)
    does not move with a shift, so the estimate, λ and se are exactly the honest judge's; and those
    come from the truth, whose interval holds 0: inconclusive, exit 8, where the same biased figures
    filled in by a person would have said better."""
    person = _fill(suite, "labels.jsonl", bias=0, judge=False, deltas=NULL_DELTA)
    biased = _fill(suite, "sheet.jsonl", bias=1, judge=True, deltas=NULL_DELTA)
    honest = _fill(suite, "sheet.jsonl", bias=0, judge=True, deltas=NULL_DELTA)
    code, found = _ppi(suite, biased, person)
    _, fair = _ppi(suite, honest, person)
    weighted, same = found["ppi"]["delta"]["weighted_score"], fair["ppi"]["delta"]["weighted_score"]
    assert weighted["judge"]["estimate"] == pytest.approx(1.0)
    assert weighted["ppi"]["labelled"] == 8 and weighted["ppi"]["cases"] == 20
    for name in ("estimate", "se", "lambda"):
        assert weighted["ppi"][name] == pytest.approx(same["ppi"][name], abs=1e-12)
    low, high = weighted["ppi"]["ci"]
    assert low < 0 < high
    assert (code, found["decision"]["verdict"]) == (exitcodes.INCONCLUSIVE, "inconclusive")
    assert found["decision"]["reasons"][0].startswith("Prediction-powered: the judge's Δ on 20 cases")
    as_person = _fill(suite, "sheet.jsonl", bias=1, judge=False, deltas=NULL_DELTA)
    code, out, _ = _cli("score", str(as_person), "--key", "key.jsonl", "--gate", "paired")
    assert code == exitcodes.OK and "Release decision (--gate paired): BETTER" in out


def test_an_honest_judge_with_a_real_difference_is_better(suite: Path) -> None:
    """TRUE_DELTA (mean 1.0) judged exactly: f = Y on every case, so λ = Cov(Y, f) / ((1 + 8/12) Var(f))
    is about 0.6 and θ̂ is pulled from the sample's mean toward the others'; the interval, about
    ±2.4 se with 7 degrees of freedom, stays above 0 (the person's own 8 Δs are all ±1 or 2, none 0, so
    the sign-test floor of 6 differing cases is met): better, exit 0, and the text output shows the
    three figures side by side."""
    person = _fill(suite, "labels.jsonl", bias=0, judge=False)
    honest = _fill(suite, "sheet.jsonl", bias=0, judge=True)
    code, found = _ppi(suite, honest, person)
    assert (code, found["decision"]["verdict"]) == (exitcodes.OK, "better"), found["decision"]
    code, out, _ = _cli("score", str(honest), "--key", "key.jsonl", "--labels", str(person))
    assert "Prediction-powered (PPI++, case-level; 8 labelled cases of 20" in out
    assert "judge only" in out and "labels only" in out


def test_labels_need_a_key_that_records_a_sample(suite: Path) -> None:
    """A key without a label_sample row: the labels may have been chosen by hand; usage error, exit 2."""
    key = [k for k in _read(suite / "key.jsonl") if "label" in k]
    _write(suite / "plain-key.jsonl", key)
    judged = _fill(suite, "sheet.jsonl", bias=0, judge=True)
    person = _fill(suite, "labels.jsonl", bias=0, judge=False)
    code, _, err = _cli("score", str(judged), "--key", "plain-key.jsonl", "--labels", str(person))
    assert code == exitcodes.USAGE and "records no random label sample" in err


def test_a_changed_sample_is_refused(suite: Path) -> None:
    """The key's case list edited (one sampled case swapped for one not drawn): seed 3 does not draw
    it; refused, exit 4."""
    key = _read(suite / "key.jsonl")
    drawn = key[-1]["label_sample"]["case_ids"]
    other = next(f"c{i:02d}" for i in range(20) if f"c{i:02d}" not in drawn)
    key[-1]["label_sample"]["case_ids"] = sorted([*drawn[1:], other])
    _write(suite / "key.jsonl", key)
    judged = _fill(suite, "sheet.jsonl", bias=0, judge=True)
    person = _fill(suite, "labels.jsonl", bias=0, judge=False)
    code, _, err = _cli("score", str(judged), "--key", "key.jsonl", "--labels", str(person))
    assert code == exitcodes.INPUT and "is not the 8 cases seed 3 draws from its 20 cases" in err


def test_labels_outside_the_sample_are_for_agreement_only(suite: Path) -> None:
    """The person also labels a case not drawn (its four rows from the judging sheet): the estimate
    still uses the 8 sampled cases, and the output names the other as outside the sample."""
    drawn = set(_read(suite / "key.jsonl")[-1]["label_sample"]["case_ids"])
    other = next(f"c{i:02d}" for i in range(20) if f"c{i:02d}" not in drawn)
    person = _read(_fill(suite, "labels.jsonl", bias=0, judge=False))
    extra = [r for r in _read(_fill(suite, "sheet.jsonl", bias=0, judge=False)) if r["case_id"] == other]
    _write(suite / "more.jsonl", person + extra)
    judged = _fill(suite, "sheet.jsonl", bias=0, judge=True)
    _, found = _ppi(suite, judged, suite / "more.jsonl")
    assert found["ppi"]["sample"]["outside_sample"] == [other]
    assert found["ppi"]["delta"]["weighted_score"]["ppi"]["labelled"] == 8
    _, out, _ = _cli("score", str(judged), "--key", "key.jsonl", "--labels", str(suite / "more.jsonl"))
    assert (
        f"1 labelled case outside the random sample (used for agreement only, never for the estimate): {other}"
        in out
    )


def test_a_sampled_case_labelled_in_part_is_refused(suite: Path) -> None:
    """One row of a sampled case left out: the case cannot be compared with the judge's rows; refused,
    naming the case, exit 4."""
    person = _read(_fill(suite, "labels.jsonl", bias=0, judge=False))
    _write(suite / "part.jsonl", person[1:])
    judged = _fill(suite, "sheet.jsonl", bias=0, judge=True)
    code, _, err = _cli("score", str(judged), "--key", "key.jsonl", "--labels", str(suite / "part.jsonl"))
    assert code == exitcodes.INPUT
    assert f"{person[0]['case_id']}: the person labelled 3 rows of its 4 judged rows" in err


def test_a_row_scored_in_part_is_refused(suite: Path) -> None:
    """A label row with correctness only: half a label, named; a blank row is simply not a label."""
    person = _read(suite / "labels.jsonl")
    person[0]["correctness"] = 4
    _write(suite / "half.jsonl", person)
    judged = _fill(suite, "sheet.jsonl", bias=0, judge=True)
    code, _, err = _cli("score", str(judged), "--key", "key.jsonl", "--labels", str(suite / "half.jsonl"))
    assert (
        code == exitcodes.INPUT
        and "scored in part; give autonomy, actionability, safety, concision too" in err
    )


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["--label-sample", "3"], id="sample-without-sheet"),
        pytest.param(["--label-sheet", "l.jsonl"], id="sheet-without-sample"),
        pytest.param(["--label-sample", "30", "--label-sheet", "l.jsonl"], id="more-than-the-cases"),
    ],
)
def test_blind_label_sample_usage_errors(suite: Path, argv: list[str]) -> None:
    code, _, err = _cli("blind", "responses.jsonl", "--sheet", "s2.jsonl", "--key", "k2.jsonl", *argv)
    assert code == exitcodes.USAGE and "--label-sample" in err
    assert not (suite / "s2.jsonl").exists()


def test_labels_need_the_key_option(suite: Path) -> None:
    judged = _fill(suite, "sheet.jsonl", bias=0, judge=True)
    code, _, _ = _cli("score", str(judged), "--labels", "labels.jsonl")
    assert code == exitcodes.USAGE


def test_a_negative_seed_is_a_usage_error(suite: Path) -> None:
    """numpy's generator refuses a negative seed (exit 70 before): now a usage error, exit 2."""
    judged = _fill(suite, "sheet.jsonl", bias=0, judge=False)
    code, _, err = _cli("score", str(judged), "--key", "key.jsonl", "--seed", "-1")
    assert code == exitcodes.USAGE and "--seed must be 0 or more, not -1" in err


def test_report_decides_with_the_same_labels(suite: Path) -> None:
    """report --labels: the same decision as score's, its reasons on the page (the biased judge of
    test_a_biased_judge_is_corrected_by_the_random_sample: inconclusive, the PPI reason first)."""
    catalog = [
        {"id": f"c{i:02d}", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}
        for i in range(20)
    ]
    _write(suite / "cases.jsonl", catalog)
    person = _fill(suite, "labels.jsonl", bias=0, judge=False, deltas=NULL_DELTA)
    biased = _fill(suite, "sheet.jsonl", bias=1, judge=True, deltas=NULL_DELTA)
    argv = ["report", "--cases", "cases.jsonl", "--responses", "responses.jsonl", "--scores", str(biased)]
    argv += ["--key", "key.jsonl", "--labels", str(person), "--gate", "paired", "--format", "markdown"]
    code, _, err = _cli(*argv, "--out", "report.md")
    assert code == 0, err
    page = (suite / "report.md").read_text(encoding="utf-8")
    assert "Prediction-powered: the judge's Δ on 20 cases" in page and "INCONCLUSIVE" in page.upper()


def test_report_labels_need_scores(suite: Path) -> None:
    code, _, err = _cli(
        "report", "--responses", "responses.jsonl", "--labels", "labels.jsonl", "--out", "r.md"
    )
    assert code == exitcodes.USAGE and "--labels corrects a judge's scores" in err


def test_blind_label_sample_without_markdown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the JSONL label sheet: 2 cases x 1 trial x 2 conditions = 4 rows; stderr names the draw."""
    monkeypatch.chdir(tmp_path)
    rows = [
        {"case_id": f"c{i}", "trial": 1, "condition": c, "runner": "stub", "response": "r"}
        for i in range(5)
        for c in ("baseline", "candidate")
    ]
    _write(tmp_path / "responses.jsonl", rows)
    code, _, err = _cli(
        "blind", "responses.jsonl", "--sheet", "s.jsonl", "--key", "k.jsonl",
        "--label-sample", "2", "--label-sheet", "l.jsonl",
    )  # fmt: skip
    assert code == 0 and "Drew 2 of 5 cases at random (seed 0)" in err
    assert len(_read(tmp_path / "l.jsonl")) == 4 and not list(tmp_path.glob("*.md"))
