"""`plan --from-scores` prints a range for the cases needed, from the pilot's uncertainty about its
own spread (issue 30, item 6)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.deciding import sizing

METRICS = ("correctness", "autonomy", "actionability", "safety", "concision")


def test_chi_square_quantiles_by_wilson_hilferty() -> None:
    """df = 3: 1 - 2/27 ± 1.96·sqrt(2/27) = 0.3924 or 1.4594, cubed times 3: 0.1814 and 9.3241 (the
    exact quantiles are 0.2158 and 9.3484; at 30 degrees the approximation is within 0.1%)."""
    assert sizing.chi2_quantile(0.025, 3) == pytest.approx(0.18139, abs=1e-4)
    assert sizing.chi2_quantile(0.975, 3) == pytest.approx(9.32415, abs=1e-4)
    assert sizing.chi2_quantile(0.975, 30) == pytest.approx(46.979, rel=1e-3)
    assert sizing.chi2_quantile(0.025, 1) == 0.0  # the cube root's base is negative: no quantile


def test_sd_bounds() -> None:
    """4 cases: sqrt(3 / 9.3241) = 0.5672 and sqrt(3 / 0.18139) = 4.0668. 2 cases: no upper bound
    (the quantile is 0); 1 case: nothing known."""
    low, high = sizing.sd_bounds(4)
    assert low == pytest.approx(0.56723, abs=1e-4)
    assert high == pytest.approx(4.0668, abs=1e-3)
    assert sizing.sd_bounds(2)[1] == math.inf and sizing.sd_bounds(1) == (0.0, math.inf)


def test_plan_prints_a_range(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """test_decision's pilot (4 cases x 2 trials; with 4 trials the spread would be 0.5; 10 cases for
    0.5). The spread's 95% interval is 0.5 x [0.5672, 4.0668] = [0.2836, 2.0334]. At 0.2836: normal
    (2.8016 · 0.2836 / 0.5)^2 = 2.5, then t: 3 cases detect (4.303 + 1.061) · 0.2836 / sqrt(3) = 0.878,
    4: 0.590, 5: (2.776 + 0.941) · 0.2836 / sqrt(5) = 0.4715 ≤ 0.5, so 5. At 2.0334: normal 129.8, then
    t (1.978 + 0.844) · 2.0334 / sqrt(n) ≤ 0.5 first at n = 132. The range: 5-132. (With the pilot's own
    2 trials, spread 0.577, test_decision's sizing gives 13.)"""
    rows: list[dict[str, object]] = []
    for case, delta in enumerate((0, 1, 0, 1)):
        for trial, bump in ((1, 0), (2, 1)):
            for condition, mark in (("baseline", 2 + bump), ("candidate", 2 + delta + bump)):
                row = {"case_id": f"c{case}", "trial": trial, "condition": condition, "blocker": False}
                rows.append({**row, **dict.fromkeys(METRICS, mark), "notes": ""})
    path = tmp_path / "scores.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["plan", "--trials", "4", "--from-scores", str(path), "--effect", "0.5"]) == exitcodes.OK
    out = capsys.readouterr().out
    line = next(text for text in out.splitlines() if text.startswith("0.5 "))
    assert line.split() == ["0.5", "10", "13", "5-132"]
    assert "95% interval from the pilot's 4 cases" in out


def test_a_range_without_an_upper_end_or_any_answer() -> None:
    """From 2 cases the spread has no upper bound: the lower factor is sqrt(1 / 4.9279) = 0.4505 (by
    Wilson-Hilferty: 1 - 2/9 + 1.96 · sqrt(2/9) = 1.7018, cubed 4.9279), an sd of 0.2252, which 3 cases
    do not detect 0.5 with ((4.303 + 1.061) · 0.2252 / sqrt(3) = 0.697) and 4 do (0.469): '4 or more'.
    An effect too small for any suite: '-'."""
    low, high = sizing.sd_bounds(2)
    assert sizing._range(0.5, 0.5, low, high) == "4 or more"
    assert sizing._range(0.5, 1e-9, low, high) == "-"
