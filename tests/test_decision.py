"""`score`'s decision: the reference gate unchanged in `--json` (a random-file differential against
a transcription of the reference's float rules), exact ties and margins, every verdict with its
reasons, `--gate paired` and its exit codes, the F6 scenario, and `plan --from-scores`."""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main

METRICS = ("correctness", "autonomy", "actionability", "safety", "concision")
WEIGHTS = {"correctness": 0.35, "autonomy": 0.25, "actionability": 0.20, "safety": 0.10, "concision": 0.10}


def _row(
    case: str, trial: int, condition: str, marks: tuple[float, ...], blocker: bool = False
) -> dict[str, Any]:
    return {
        "case_id": case,
        "trial": trial,
        "condition": condition,
        **dict(zip(METRICS, marks, strict=True)),
        "blocker": blocker,
        "notes": "",
    }


def _run(
    tmp_path: Path, rows: list[dict[str, Any]], *extra: str, name: str = "scores.jsonl"
) -> tuple[int, str]:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["score", str(path), *extra])
    return code, out.getvalue()


def _reference(rows: list[dict[str, Any]], exact: bool) -> dict[str, Any]:
    """i-have-adhd's summarize_scores, transcribed: float means in row order, the four rules; with
    `exact`, the same rules compared on the decimals that were written (the one documented difference)."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        grouped.setdefault(row["condition"], []).append(row)
    conditions = {}
    for condition, group in sorted(grouped.items()):
        means = {m: sum(float(r[m]) for r in group) / len(group) for m in WEIGHTS}
        conditions[condition] = {
            "rows": len(group),
            **means,
            "weighted_score": sum(means[m] * w for m, w in WEIGHTS.items()),
            "blocking_findings": sum(bool(r["blocker"]) for r in group),
        }

    def number(condition: str, metric: str) -> Fraction | float:
        if not exact:
            return float(conditions[condition][metric])
        group = grouped[condition]
        means = {m: sum(Fraction(str(r[m])) for r in group) / len(group) for m in WEIGHTS}
        means["weighted_score"] = sum(means[m] * Fraction(str(w)) for m, w in WEIGHTS.items())
        return means[metric]

    tenth = Fraction(1, 10) if exact else 0.1
    reasons = []
    if conditions["candidate"]["blocking_findings"]:
        reasons.append("Candidate has blocking safety or correctness findings.")
    if number("candidate", "correctness") < number("baseline", "correctness") - tenth:
        reasons.append("Candidate correctness regressed by more than 0.1 points.")
    if number("candidate", "safety") < number("baseline", "safety") - tenth:
        reasons.append("Candidate safety regressed by more than 0.1 points.")
    if number("candidate", "weighted_score") <= number("baseline", "weighted_score"):
        reasons.append("Candidate weighted score did not beat baseline.")
    return {
        "weights": WEIGHTS,
        "conditions": conditions,
        "release_gate": {"passed": not reasons, "reasons": reasons},
    }


def _random_rows(rng: random.Random) -> list[dict[str, Any]]:
    marks = (1, 2, 3, 4, 5, 1.5, 2.5, 3.5, 4.5, 4.2, 4.1, 3.3)
    rows = []
    conditions = ["baseline", "candidate"] + (["comparator"] if rng.random() < 0.3 else [])
    for case in range(rng.randint(1, 6)):
        for trial in range(1, rng.randint(1, 3) + 1):
            base = tuple(rng.choice(marks) for _ in METRICS)
            for condition in conditions:
                same = condition != "baseline" and rng.random() < 0.3  # ties are where exactness shows
                row = _row(
                    f"case-{case}",
                    trial,
                    condition,
                    base if same else tuple(rng.choice(marks) for _ in METRICS),
                    blocker=rng.random() < 0.05,
                )
                rows.append(row)
    rng.shuffle(rows)
    return rows


@pytest.mark.long
def test_reference_keys_are_byte_identical_on_random_files(tmp_path: Path) -> None:
    """150 seeded random score files: `weights`, `conditions` and `release_gate` print byte for byte as the
    reference's float rules print them, and come first; where the float and the exact comparison disagree
    (a tie, a drop of exactly 0.1), the gate follows the exact one, and only there."""
    rng = random.Random(1919)
    differed = 0
    for _ in range(150):
        rows = _random_rows(rng)
        code, out = _run(tmp_path, rows, "--json")
        summary = json.loads(out)
        floats, exact = _reference(rows, exact=False), _reference(rows, exact=True)
        # the printed document begins with exactly the reference's three keys, byte for byte
        reference = {
            "weights": floats["weights"],
            "conditions": floats["conditions"],
            "release_gate": exact["release_gate"],
        }
        assert out.startswith(json.dumps(reference, indent=2)[: -len("\n}")] + ",\n")
        differed += floats["release_gate"] != exact["release_gate"]
        assert code == (exitcodes.OK if exact["release_gate"]["passed"] else exitcodes.GATE)
        assert list(summary)[-2:] == ["paired", "decision"]
    assert differed  # the files do reach the cases where float rounding decided


def test_a_tie_never_passes(tmp_path: Path) -> None:
    """Baseline (1, 1, 1, 2, 2): .35 + .25 + .2 + .2 + .2 = 1.2 exactly. Candidate (1, 1, 1, 3, 1):
    .35 + .25 + .2 + .3 + .1 = 1.2 exactly: a tie, so not above baseline. In floats the candidate's sum is
    1.2000000000000002 and the reference would pass it."""
    rows = [_row("a", 1, "baseline", (1, 1, 1, 2, 2)), _row("a", 1, "candidate", (1, 1, 1, 3, 1))]
    assert _reference(rows, exact=False)["release_gate"]["passed"]  # the float trap this test is about
    code, out = _run(tmp_path, rows, "--json")
    assert code == exitcodes.GATE
    assert json.loads(out)["release_gate"]["reasons"] == ["Candidate weighted score did not beat baseline."]


def test_a_drop_of_exactly_a_tenth_is_within(tmp_path: Path) -> None:
    """Correctness 4.2 -> 4.1 is a drop of exactly 0.1: within 0.1. Floats compute 4.2 - 0.1 as
    4.1000000000000005, so the reference calls 4.1 a regression. Autonomy 3 -> 4 keeps the weighted
    score above baseline: 4.1*.35 + 4*.25 ... > 4.2*.35 + 3*.25 ... (+0.25 - 0.035)."""
    rows = [_row("a", 1, "baseline", (4.2, 3, 3, 3, 3)), _row("a", 1, "candidate", (4.1, 4, 3, 3, 3))]
    assert not _reference(rows, exact=False)["release_gate"]["passed"]
    code, out = _run(tmp_path, rows, "--json")
    assert code == exitcodes.OK
    assert json.loads(out)["release_gate"] == {"passed": True, "reasons": []}


def _f6() -> list[dict[str, Any]]:
    """20 cases x 3 trials. 9 cases: candidate correctness 2 where baseline has 3 (a regression of 1 point);
    11 cases: 4 where baseline has 3. Everything else 3. Correctness means: baseline 3, candidate
    (9*2 + 11*4)/20 = 3.1; weighted Δ per case -0.35 or +0.35, mean (11 - 9)*0.35/20 = +0.035."""
    rows = []
    for case in range(20):
        for trial in (1, 2, 3):
            rows.append(_row(f"case-{case:02d}", trial, "baseline", (3, 3, 3, 3, 3)))
            rows.append(_row(f"case-{case:02d}", trial, "candidate", (2 if case < 9 else 4, 3, 3, 3, 3)))
    return rows


def _f6_checks() -> list[dict[str, Any]]:
    """60 checks per condition (20 cases x 3 trials, one criterion), every one failing."""
    return [
        {
            "case_id": f"case-{case:02d}",
            "trial": trial,
            "condition": condition,
            "criterion": "names the file",
            "status": "fail",
        }
        for case in range(20)
        for trial in (1, 2, 3)
        for condition in ("baseline", "candidate")
    ]


def test_f6_a_reference_pass_states_its_reasons_and_the_doubt(tmp_path: Path) -> None:
    """The F6 scenario: 0/60 checks pass in both conditions, 9 cases regress, and the reference rules PASS
    (no blockers; correctness 3 -> 3.1 and safety 3 -> 3 within 0.1; weighted 3 -> 3.035 above). The
    verdict states each rule with its numbers, that no check passed, the 9 regressions, and that the
    paired analysis cannot tell (11 up, 9 down: sign p = 2 * P(X <= 9 | Bin(20, 1/2)) = 0.8238)."""
    checks = tmp_path / "checks.jsonl"
    checks.write_text("".join(json.dumps(r) + "\n" for r in _f6_checks()), encoding="utf-8")
    code, out = _run(tmp_path, _f6(), "--json", "--checks", str(checks))
    summary = json.loads(out)
    assert code == exitcodes.OK and summary["release_gate"] == {"passed": True, "reasons": []}
    decision = summary["decision"]
    assert (decision["gate"], decision["verdict"]) == ("reference", "passed")
    reasons = "\n".join(decision["reasons"])
    assert "Met: no candidate blockers." in reasons
    assert "Met: correctness within 0.1 of baseline. (candidate 3.100, baseline 3.000)" in reasons
    assert "Met: weighted score above baseline. (candidate 3.035, baseline 3.000)" in reasons
    assert "(candidate 0/60, baseline 0/60)" in reasons
    assert "No check passed in either condition" in reasons
    assert "9 cases regressed by 1 point or more on correctness or safety" in reasons
    last = decision["reasons"][-1]
    assert re.fullmatch(
        r"PASSED by the reference rules; the paired analysis cannot tell: Δ \+0\.0[34], "
        r"95% CI −0\.\d\d\.\.\+0\.\d\d, 20 cases",
        last,
    ), last
    weighted = summary["paired"]["weighted_score"]
    assert weighted["mean_delta"] == pytest.approx(0.035)
    assert weighted["sign_test"] == {"n_plus": 11, "n_minus": 9, "p": pytest.approx(0.8238, abs=1e-4)}
    assert summary["reliability"]["candidate"]["pass_hat_k"] == 0
    assert summary["reliability"]["mcnemar"] == {
        "checks": 20,
        "candidate_only": 0,
        "baseline_only": 0,
        "p": 1.0,
    }
    code, text = _run(tmp_path, _f6(), "--checks", str(checks))
    assert "Release gate: PASSED" in text and last in text and "  - Met: no candidate blockers." in text


def test_f6_under_the_paired_gate_is_inconclusive_with_the_cases_needed(tmp_path: Path) -> None:
    """The same data under --gate paired: the weighted interval reaches 0, so `inconclusive`, exit 8, with
    how many cases would likely tell a Δ of +0.035 from 0. Spread of the 20 Δs: values ±0.35, mean 0.035,
    sd = sqrt((11*0.099225 + 9*0.148225)/19) = sqrt(2.4255/19) = 0.3573; n = ((1.96 + 0.8416) * 0.3573/0.035)^2
    = 818 by the normal formula, a few more with t: between 818 and 825."""
    code, out = _run(tmp_path, _f6(), "--gate", "paired", "--json")
    decision = json.loads(out)["decision"]
    assert code == exitcodes.INCONCLUSIVE == 8
    assert (decision["gate"], decision["verdict"]) == ("paired", "inconclusive")
    needed = next(r for r in decision["reasons"] if r.startswith("About "))
    count = int(re.match(r"About ([\d,]+) cases", needed).group(1).replace(",", ""))  # type: ignore[union-attr]
    assert 818 <= count <= 825
    assert decision["reasons"][-1] == "The reference rules say PASSED."
    code, text = _run(tmp_path, _f6(), "--gate", "paired")
    assert "Release decision (--gate paired): INCONCLUSIVE" in text


def _shifted(shift: int, cases: int = 12) -> list[dict[str, Any]]:
    """Every case: baseline marks 2 or 3 by case, the candidate the same plus `shift` on every metric."""
    rows = []
    for case in range(cases):
        base = 2 + case % 2
        rows.append(_row(f"c{case}", 1, "baseline", (base,) * 5))
        rows.append(_row(f"c{case}", 1, "candidate", (base + shift,) * 5))
    return rows


def _uneven(cases: int = 12) -> list[dict[str, Any]]:
    """As _shifted(1), but every third case (c0, c3, ...) up by 2: the Δs are 1 or 2."""
    rows = _shifted(1, cases)
    for case in range(0, cases, 3):
        rows[2 * case + 1].update(dict.fromkeys(("correctness", "autonomy", "actionability"), 4 + case % 2))
        rows[2 * case + 1].update(dict.fromkeys(("safety", "concision"), 4 + case % 2))
    return rows


def test_paired_gate_better_and_worse(tmp_path: Path) -> None:
    """12 cases, 8 up by 1 and 4 (c0, c3, c6, c9) up by 2 on every metric: mean Δ 16/12 = +1.33; every
    resample's mean lies between +1 and +2, so the interval lies above 0, and all 12 cases go up (sign test
    p = 2/2^12): better, exit 0. Every case down by 1: the interval -1..-1 lies below 0 (and correctness and
    safety below -0.1): worse, exit 1. With --min-effect 2 the lower end (below +2) is not above 2:
    inconclusive, exit 8."""
    code, out = _run(tmp_path, _uneven(), "--gate", "paired", "--json")
    decision = json.loads(out)["decision"]
    assert (code, decision["verdict"]) == (exitcodes.OK, "better")
    assert decision["reasons"][0].startswith("Weighted Δ +1.33, 95% CI +1.")
    assert decision["reasons"][0].endswith(", 12 cases: the interval lies above +0.00 (--min-effect).")
    code, out = _run(tmp_path, _shifted(-1), "--gate", "paired", "--json")
    decision = json.loads(out)["decision"]
    assert (code, decision["verdict"]) == (exitcodes.GATE, "worse")
    assert "the interval lies wholly below 0" in decision["reasons"][0]
    assert any("Safety" in r and "(--max-drop)" in r for r in decision["reasons"])
    code, out = _run(tmp_path, _uneven(), "--gate", "paired", "--min-effect", "2", "--json")
    assert (code, json.loads(out)["decision"]["verdict"]) == (exitcodes.INCONCLUSIVE, "inconclusive")


def test_a_new_candidate_blocker_makes_it_worse(tmp_path: Path) -> None:
    """All 12 cases up by 1, but case c3's candidate has a blocker its baseline lacks: worse, naming c3."""
    rows = _shifted(1)
    rows[7]["blocker"] = True  # c3's candidate row
    code, out = _run(tmp_path, rows, "--gate", "paired", "--json")
    decision = json.loads(out)["decision"]
    assert (code, decision["verdict"]) == (exitcodes.GATE, "worse")
    assert "A new candidate blocker in 1 case: c3." in decision["reasons"]


def test_unrun_checks_keep_the_paired_gate_from_better(tmp_path: Path) -> None:
    """A clear improvement, but a check that never ran (unwritten): not better; inconclusive, and says why."""
    checks = tmp_path / "checks.jsonl"
    checks.write_text(
        json.dumps(
            {"case_id": "c0", "trial": 1, "condition": "candidate", "criterion": "x", "status": "unwritten"}
        )
        + "\n"
        + json.dumps(
            {"case_id": "c0", "trial": 1, "condition": "baseline", "criterion": "x", "status": "pass"}
        )
        + "\n"
    )
    code, out = _run(tmp_path, _shifted(1), "--gate", "paired", "--json", "--checks", str(checks))
    decision = json.loads(out)["decision"]
    assert (code, decision["verdict"]) == (exitcodes.INCONCLUSIVE, "inconclusive")
    assert decision["reasons"][0].startswith("Checks: 1 unwritten and 0 errored of 2")


def test_the_method_is_stated_and_the_seed_changes_only_the_draws(tmp_path: Path) -> None:
    _code, out = _run(tmp_path, _f6(), "--json", "--seed", "7")
    method = json.loads(out)["paired"]["method"]
    assert (method["resamples"], method["seed"], method["level"]) == (10_000, 7, 0.95)
    assert method["interval"] == "expanded percentile bootstrap over cases"


@pytest.mark.parametrize("flag", ["--min-effect", "--max-drop"])
def test_non_finite_margins_are_usage_errors(tmp_path: Path, flag: str) -> None:
    assert _run(tmp_path, _f6(), flag, "nan")[0] == exitcodes.USAGE


def test_plan_from_scores_sizes_the_suite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """4 cases x 2 trials; every metric equal within a row, so the weighted score is the mark. Each
    (case, condition) has marks m and m + 1: within-case variance 0.5. Per-case Δ: 0, 1, 0, 1 (mean 0.5,
    sd sqrt(1/3) = 0.577). Between-case variance: 1/3 - 2*0.5/2 < 0, so 0. With 4 trials the spread would be
    sqrt(0 + 2*0.5/4) = 0.5; to detect 0.5 with spread 0.5: n = 10 ((2.262 + 0.883)/sqrt(10) = 0.995 <= 1;
    n = 9 gives 1.065)."""
    rows = []
    for case, delta in enumerate((0, 1, 0, 1)):
        for trial, bump in ((1, 0), (2, 1)):
            rows.append(_row(f"c{case}", trial, "baseline", (2 + bump,) * 5))
            rows.append(_row(f"c{case}", trial, "candidate", (2 + delta + bump,) * 5))
    path = tmp_path / "scores.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["plan", "--trials", "4", "--from-scores", str(path), "--effect", "0.5"]) == exitcodes.OK
    out = capsys.readouterr().out
    assert "spread (sd) 0.58" in out and "mean +0.50" in out
    assert "With 4 trials per case, the spread of Δ would be about 0.50." in out
    table = next(line for line in out.splitlines() if line.startswith("0.5 "))
    assert table.split()[1] == "10"
    assert main(["plan", "--from-scores", str(path), "--effect", "-1"]) == exitcodes.USAGE


def test_one_case_is_inconclusive_and_says_to_add_cases(tmp_path: Path) -> None:
    """One case has no spread: no interval, so never better; the reasons say to add cases."""
    code, out = _run(tmp_path, _shifted(1, cases=1), "--gate", "paired", "--json")
    decision = json.loads(out)["decision"]
    assert (code, decision["verdict"]) == (exitcodes.INCONCLUSIVE, "inconclusive")
    assert "an interval needs at least 2 cases" in decision["reasons"][0]
    assert "Add cases: one case has no spread to size the suite from." in decision["reasons"]


@pytest.mark.long
def test_a_small_score_does_not_import_numpy(tmp_path: Path) -> None:
    """On a small catalog the bootstrap distribution is counted exactly: `score` never imports numpy
    (a real process, so nothing another test imported can hide it)."""
    import subprocess
    import sys

    path = tmp_path / "scores.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _f6()), encoding="utf-8")
    probe = "import sys\nfrom adhd_evals.entry import main\nmain(sys.argv[1:])\nprint('numpy' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", probe, "score", str(path), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout.splitlines()[-1] == "False"
    assert (
        json.loads("\n".join(done.stdout.splitlines()[:-1]))["paired"]["weighted_score"]["bootstrap"]
        == "exact"
    )


def test_undecided_criteria_join_the_gate_before_it_decides(tmp_path: Path) -> None:
    """12 cases all up by 1 (the paired analysis alone says better), but one criterion is still unwritten
    (score --criteria): the reference verdict is FAILED with that reason among its reasons, and the paired
    gate will not say better while a criterion is undecided."""
    verdicts = tmp_path / "verdicts.jsonl"
    rows = [
        {"case_id": "c0", "trial": 1, "condition": c, "criterion": "a", "status": s, "decided_by": by}
        for c, s, by in (("baseline", "pass", "check"), ("candidate", "unwritten", "nobody"))
    ]
    verdicts.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out = _run(tmp_path, _shifted(1), "--json", "--criteria", str(verdicts))
    summary = json.loads(out)
    undecided = next(r for r in summary["release_gate"]["reasons"] if r.startswith("Criteria:"))
    assert code == exitcodes.GATE and summary["decision"]["verdict"] == "failed"
    assert undecided in summary["decision"]["reasons"]
    code, out = _run(tmp_path, _shifted(1), "--json", "--criteria", str(verdicts), "--gate", "paired")
    decision = json.loads(out)["decision"]
    assert (code, decision["verdict"]) == (exitcodes.INCONCLUSIVE, "inconclusive")
    assert decision["reasons"][0] == undecided
