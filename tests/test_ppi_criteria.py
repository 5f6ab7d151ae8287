"""Criteria through the same door (issue 30, item 4): a judge's criterion pass rate corrected by a
person's random sample, the case the unit."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from adhd_evals.entry import main
from adhd_evals.runs.deciding import criteria as counting
from adhd_evals.runs.inference import ppi
from adhd_evals.runs.rows import Verdict, VerdictRow, checked_rows, is_labelled

# the judge's verdicts on criteria X and Y of cases c0..c3 (candidate only), trial 1
JUDGE: dict[str, tuple[Verdict, Verdict]] = {
    "c0": ("pass", "pass"),
    "c1": ("pass", "fail"),
    "c2": ("pass", "pass"),
    "c3": ("fail", "fail"),
}
# the person's, on the sampled cases c0 and c1: stricter than the judge
PERSON = {"c0": ("pass", "fail"), "c1": ("fail", "fail")}


def _rows() -> list[VerdictRow]:
    rows: list[VerdictRow] = []
    for case, said in JUDGE.items():
        for criterion, verdict in zip("XY", said, strict=True):
            row: VerdictRow = {"case_id": case, "trial": 1, "condition": "candidate", "criterion": criterion,
                               "status": "uncertified", "decided_by": "nobody", "verdict": verdict}  # fmt: skip
            rows.append(row)
    # a typed criterion a check decided, the judge silent on it: not part of the judge's rate
    rows.append({"case_id": "c0", "trial": 1, "condition": "candidate", "criterion": "Z", "status": "fail",
                 "decided_by": "check"})  # fmt: skip
    return rows


def _labels(sample: list[str]) -> ppi.LabelSet:
    rows: list[dict[str, Any]] = [
        {"case_id": case, "trial": 1, "condition": "candidate",
         "criteria": ["Z", *({"criterion": c, "verdict": v} for c, v in zip("XY", said, strict=True))]}
        for case, said in PERSON.items()
    ]  # fmt: skip
    labelled = checked_rows(rows, is_labelled)  # each has its case, trial and condition
    return ppi.LabelSet(labelled, {"seed": 0, "method": ppi.SAMPLE_METHOD, "case_ids": sample})


def test_the_judge_s_criterion_pass_rate_three_ways() -> None:
    """Per case, the share of criteria passed: the judge says c0 1, c1 0.5, c2 1, c3 0 (mean 0.625);
    the person on c0 and c1 says 0.5 and 0 (mean 0.25). PPI: Y = [0.5, 0], f = [1, 0.5], f̃ = [1, 0],
    the estimator that test_ppi_mean checks. No certificate: the verdicts stay uncertified, and the
    judge still is the prediction PPI corrects. A criterion the judge said nothing on (Z, a check's),
    and a criterion the person's sheet lists as text, not a verdict, count for neither."""
    found = counting.summarize(_rows(), None, _labels(["c0", "c1"]))["conditions"]["candidate"]["judge_ppi"]
    labels, corrected = found["labels"], found["ppi"]
    assert labels is not None and corrected is not None
    assert found["judge"]["estimate"] == pytest.approx(0.625)
    assert labels["estimate"] == pytest.approx(0.25) and labels["labelled"] == 2
    expected = ppi.ppi_mean([0.5, 0.0], [1.0, 0.5], [1.0, 0.0])
    assert corrected["estimate"] == pytest.approx(expected.value) and corrected["cases"] == 4


def test_labels_outside_the_sample_do_not_count() -> None:
    """Only c0 was drawn: c1's labels are ignored (one labelled case, so PPI has no interval)."""
    found = counting.summarize(_rows(), None, _labels(["c0"]))["conditions"]["candidate"]["judge_ppi"]
    corrected = found["ppi"]
    assert corrected is not None and corrected["labelled"] == 1 and corrected["ci"] is None


def test_the_table_shows_the_corrected_rate() -> None:
    lines = counting.table(counting.summarize(_rows(), None, _labels(["c0", "c1"])))
    line = next(text for text in lines if text.startswith("Judge pass rate, candidate, prediction-powered"))
    assert "(2 labelled cases of 4): judge 0.625 [" in line and "labels only 0.250 [" in line


def test_the_table_shows_no_corrected_rate_without_a_labelled_case() -> None:
    """The sample draws c9, a case nobody judged or labelled: the judge's figure stands alone
    (PPI and the labels have no case), so no prediction-powered line is printed."""
    found = counting.summarize(_rows(), None, _labels(["c9"]))
    three = found["conditions"]["candidate"]["judge_ppi"]
    assert (three["ppi"], three["labels"]) == (None, None)
    lines = counting.table(found)
    assert not [text for text in lines if text.startswith("Judge pass rate")]


def test_judge_said_reads_the_judge_whoever_decided() -> None:
    """A person decided, the judge said fail under `others`; a check decided and the judge said nothing."""
    person: VerdictRow = {"case_id": "c", "trial": 1, "condition": "baseline", "criterion": "X",
                          "status": "pass", "decided_by": "person", "others": {"judge": "fail"}}  # fmt: skip
    check: VerdictRow = {"case_id": "c", "trial": 1, "condition": "baseline", "criterion": "X",
                         "status": "pass", "decided_by": "check"}  # fmt: skip
    assert (counting.judge_said(person), counting.judge_said(check)) == ("fail", None)


def test_score_criteria_with_labels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI passes --labels to the criteria too: score's output carries the corrected rate."""
    monkeypatch.chdir(tmp_path)
    responses = [
        {"case_id": f"c{i}", "trial": 1, "condition": c, "runner": "s", "response": f"{c}{i}"}
        for i in range(4)
        for c in ("baseline", "candidate")
    ]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in responses))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["blind", "r.jsonl", "--sheet", "s.jsonl", "--key", "k.jsonl", "--label-sample", "4",
                     "--label-sheet", "l.jsonl"]) == 0  # fmt: skip
    marks = dict.fromkeys(("correctness", "autonomy", "actionability", "safety", "concision"), 3)
    sheet = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    filled = [{**r, **marks, "blocker": False, "notes": "", "criteria": [{"criterion": "X", "verdict": "pass"}]}
              for r in sheet]  # fmt: skip
    (tmp_path / "l2.jsonl").write_text("".join(json.dumps(r) + "\n" for r in filled))
    (tmp_path / "j.jsonl").write_text(
        "".join(json.dumps({**r, "judge": {"runner": "j"}}) + "\n" for r in filled)
    )
    key = {(k["case_id"], k["trial"], k["label"]): k["condition"] for k in
           (json.loads(line) for line in (tmp_path / "k.jsonl").read_text().splitlines()) if "label" in k}  # fmt: skip
    verdicts = [{"case_id": r["case_id"], "trial": 1, "condition": key[(r["case_id"], 1, r["condition"])],
                 "criterion": "X", "status": "uncertified", "decided_by": "nobody", "verdict": "pass"}
                for r in sheet]  # fmt: skip
    (tmp_path / "v.jsonl").write_text("".join(json.dumps(r) + "\n" for r in verdicts))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(["score", "j.jsonl", "--key", "k.jsonl", "--labels", "l2.jsonl", "--criteria", "v.jsonl"])
    assert (
        "Judge pass rate, candidate, prediction-powered (4 labelled cases of 4): judge 1.000"
        in out.getvalue()
    )
