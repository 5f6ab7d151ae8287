"""`criteria:` places under `missing: skip`: what each case gave, what it did not, and that
nothing reached is dropped (an empty list and a null stay as notes; an object no rule reads
stays a placeholder counted by its shape)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adhd_evals.entry import main

DIALECT = """adhd-evals-dialect: 1
format: evals-json
cases:
  criteria:
    - {at: "rubric[]", missing: skip}
    - {at: "meta.extra", missing: skip}
"""
EVALS = [
    {"id": 1, "prompt": "p", "rubric": []},
    {"id": 2, "prompt": "q", "rubric": [None, "Says x"]},
    {"id": 3, "prompt": "r", "rubric": "Be brief", "meta": {"extra": {"kind": "tone"}}},
]


def test_skipped_places_are_counted_and_what_they_held_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """By hand, case by case:
    1: rubric is an empty list (no criterion; `rubric: []` kept as a note), no meta: the
       case states no criteria, so it gets the one no-criteria placeholder;
    2: rubric's null gives nothing (a note says why), "Says x" is its criterion; no meta;
    3: rubric is one string (its criterion); meta.extra is an object no rule reads: its
       compact JSON is a criterion, counted by shape {kind: "tone"}.
    rubric[] gave nothing in cases 1 and 2, meta.extra in cases 1 and 2: each "2 cases"."""
    source = tmp_path / "evals.json"
    source.write_text(json.dumps({"skill_name": "s", "evals": EVALS}))
    rules = tmp_path / "dialect.yaml"
    rules.write_text(DIALECT)
    out = tmp_path / "out"
    assert (
        main(["import", "--format", "evals-json", str(source), "--dialect", str(rules), "--out", str(out)])
        == 0
    )
    err = capsys.readouterr().err
    rows = [json.loads(line) for line in (out / "cases.jsonl").read_text().splitlines()]
    assert [r["criteria"] for r in rows[1:]] == [["Says x"], ["Be brief", '{"kind": "tone"}']]
    assert len(rows[0]["criteria"]) == 1 and "states no criteria" in rows[0]["criteria"][0]
    for place in ("rubric[]", "meta.extra"):
        assert f"criteria {place}: 2 cases gave no criterion" in err
    assert 'by shape: {kind: "tone"} 1.' in err
    module = (out / "checks.py").read_text()
    assert "# rubric: []" in module
    assert "# rubric[0]: null\n#   (null: no criterion (criteria rubric[], missing: skip))" in module
