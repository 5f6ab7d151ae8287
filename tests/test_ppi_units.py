"""The prediction-powered pieces one by one: the key's sample row, the person's rows, the section's
edges, and the decision without labels or with an empty sample (issue 30)."""

from __future__ import annotations

from pathlib import Path

import pytest

from adhd_evals.errors import InputInvalid
from adhd_evals.runs.deciding import decision as deciding
from adhd_evals.runs.inference import paired as stats
from adhd_evals.runs.inference import ppi
from adhd_evals.runs.rows import LabelSample, checked_rows, is_labelled, read_key_and_sample
from adhd_evals.runs.rubric import METRICS, Metric
from adhd_evals.runs.summaries import McNemarTest, PpiSection

SAMPLE: LabelSample = {"seed": 1, "method": ppi.SAMPLE_METHOD, "case_ids": ["a"]}


def _key(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "key.jsonl"
    path.write_text("".join(r + "\n" for r in rows), encoding="utf-8")
    return path


KEY_ROW = '{"case_id": "a", "trial": 1, "label": "A", "condition": "baseline"}'


@pytest.mark.parametrize(
    ("row", "said"),
    [
        pytest.param('{"label_sample": 3}', "label_sample must be an object", id="not-an-object"),
        pytest.param(
            '{"label_sample": {"seed": true, "method": "m", "case_ids": []}}',
            "label_sample.seed must be an integer",
            id="seed",
        ),
        pytest.param(
            '{"label_sample": {"seed": 1, "method": 2, "case_ids": []}}',
            "label_sample.method must be a string",
            id="method",
        ),
        pytest.param(
            '{"label_sample": {"seed": 1, "method": "m", "case_ids": [1]}}',
            "label_sample.case_ids must be a list of strings",
            id="case-ids",
        ),
    ],
)
def test_a_bad_sample_row_is_named_by_line(tmp_path: Path, row: str, said: str) -> None:
    with pytest.raises(InputInvalid) as raised:
        read_key_and_sample(_key(tmp_path, KEY_ROW, row))
    assert f"key.jsonl:2: {said}" in str(raised.value)


def test_a_key_records_one_sample(tmp_path: Path) -> None:
    row = '{"label_sample": {"seed": 1, "method": "m", "case_ids": ["a"]}}'
    with pytest.raises(InputInvalid, match="2 label_sample rows; a key records one sample"):
        read_key_and_sample(_key(tmp_path, KEY_ROW, row, row))


def test_the_sample_row_is_skipped_by_key_readers(tmp_path: Path) -> None:
    row = '{"label_sample": {"seed": 1, "method": "m", "case_ids": ["a"]}}'
    keyed, sample = read_key_and_sample(_key(tmp_path, KEY_ROW, row))
    assert [k["case_id"] for k in keyed] == ["a"] and sample == {"seed": 1, "method": "m", "case_ids": ["a"]}


def test_a_sample_drawn_another_way_is_refused() -> None:
    found = ppi.sample_problems({**SAMPLE, "method": "by hand"}, [])
    assert found == [f"the key's label sample was drawn by 'by hand', not {ppi.SAMPLE_METHOD!r}"]


def test_the_draw_is_uniform_over_sorted_ids_whatever_their_order() -> None:
    """The same ids in any order, with repeats, draw the same cases."""
    assert ppi.draw(["c", "a", "b", "a"], 2, 5) == ppi.draw(["a", "b", "c"], 2, 5)


def test_a_person_s_row_out_of_range_or_of_no_condition_is_named() -> None:
    """Metrics 1 to 5 and a known condition; a blank row is simply not a label."""
    weights: dict[Metric, float] = dict.fromkeys(METRICS, 0.2)  # correctness, ..., concision
    rows: list[dict[str, object]] = [
        {"case_id": "a", "trial": 1, "condition": "baseline", **dict.fromkeys(weights, 6)},
        {"case_id": "a", "trial": 1, "condition": "other", **dict.fromkeys(weights, 3)},
        {"case_id": "b", "trial": 1, "condition": "baseline", **dict.fromkeys(weights)},
    ]
    found, problems = ppi.filled(checked_rows(rows, is_labelled), weights)
    assert found == []
    assert problems == [
        "Label row 1 (a/trial 1): correctness, autonomy, actionability, safety, concision must be between 1 and 5",
        "Label row 2 (a/trial 1): condition must be a condition",
    ]


def test_no_labelled_case_leaves_the_judge_alone() -> None:
    """Nobody labelled: the judge's figure, no PPI and no labels-only figure, shown as '-'."""
    found = ppi.three({"a": [1.0], "b": [2.0]}, {}, 0)
    assert (found.ppi, found.labels, found.judge.value) == (None, None, 1.5)
    assert found.json()["ppi"] is None


def test_the_table_names_sampled_cases_nobody_labelled_and_empty_figures() -> None:
    """A section whose sample holds a case the person left blank, and one figure with no labels."""
    nothing = ppi.three({"a": [1.0], "b": [2.0]}, {}, 0).json()
    section: PpiSection = {
        "method": ppi.METHOD,
        "level": 0.95,
        "interval": "t",
        "sample": {
            "seed": 4,
            "drawn": 1,
            "labelled": [],
            "not_labelled": ["a"],
            "not_judged": [],
            "outside_sample": [],
            "cases": 2,
        },
        "conditions": {},
        "delta": {"weighted_score": nothing},
    }
    lines = ppi.table(section)
    assert "  1 sampled case not labelled: a" in lines
    assert lines[-1].split()[-3:] == ["-", "-", "-"]


def _analysis(mean: float) -> stats.Analysis:
    return stats.analyse(stats.Series(["a", "b", "c"], [int(mean * 10) + d for d in (-1, 0, 1)], 10))


def test_an_unverified_judge_can_still_be_worse_on_the_mechanical_checks() -> None:
    """The checks are not the judge's: 8 pass in every baseline trial only, none in candidate only
    (McNemar p = 2/2^8 = 0.0078): worse, and the unverified reason follows."""
    found = {q: _analysis(1.0) for q in ("weighted_score", "correctness", "safety")}
    mcnemar: McNemarTest = {"p": 0.0078125, "baseline_only": 8, "candidate_only": 0}
    verdict, reasons = deciding.unverified(
        found, deciding.Evidence([], [], mcnemar), deciding.Decide("paired")
    )
    assert verdict == "worse"
    assert reasons[0].startswith("Checks: 8 pass in every baseline trial only")
    assert reasons[1].startswith("Judge scores unverified: label 3 random cases")


def test_a_sample_nobody_labelled_decides_nothing() -> None:
    """PPI with no labelled case: inconclusive, saying nothing checks the judge."""
    delta = {"weighted_score": ppi.three({"a": [1.0], "b": [2.0]}, {}, 0)}
    verdict, reasons = deciding.verified(
        delta, {}, deciding.Evidence([], [], None), deciding.Decide("paired")
    )
    assert verdict == "inconclusive"
    assert reasons[-1] == "No case of the random sample is labelled: nothing checks the judge."
