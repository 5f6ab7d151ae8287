"""Every record admission reads, whatever it holds, gives a refusal by name or is taken: never a
traceback (the judge's record, the verdicts file's record, a certificate, merged shards)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adhd_evals.errors import InputInvalid
from adhd_evals.runs.judging.admission import RECORD_SUFFIX, admitted, merged_record, sidecar_path, unedited
from adhd_evals.runs.judging.agree import read_certificate
from test_verdicts import FINGERPRINT, certificate_for

LEAVES = st.none() | st.booleans() | st.integers(-3, 50) | st.floats(allow_nan=False) | st.text(max_size=8)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
CONTROL_KEYS = st.sampled_from(["rows", "void", "passed", "leak_rate", "kinds", "leaks"])
GOOD_CONTROLS = {
    "rows": 15,
    "void": 0,
    "passed": 1,
    "leak_rate": 0.1,
    "kinds": {"empty": 3},
    "leaks": [{"case_id": "c", "trial": 1, "control": "empty"}],
}


def _spoiled(base: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    return {**base, key: value}


SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.mark.long
@SETTINGS
@given(
    controls=st.one_of(VALUES, st.builds(_spoiled, st.just(GOOD_CONTROLS), CONTROL_KEYS, VALUES)),
    fingerprint=st.one_of(st.just(FINGERPRINT), VALUES),
)
def test_a_judge_record_never_crashes(tmp_path: Path, controls: Any, fingerprint: Any) -> None:
    judged = tmp_path / "judged.jsonl"
    judged.write_text(json.dumps({"case_id": "c", "trial": 1, "condition": "A", "judge": FINGERPRINT}) + "\n")
    record = {
        "judged": "adhd-evals judged file",
        "version": 1,
        "fingerprint": fingerprint,
        "controls": controls,
    }
    sidecar_path(judged).write_text(json.dumps(record))
    rows = [json.loads(judged.read_text())]
    for call in (
        lambda: admitted(judged, rows, allow_leaky=False),
        lambda: admitted(judged, rows, allow_leaky=True),
        lambda: merged_record([judged, judged], tmp_path / "m.jsonl"),
    ):
        try:
            call()
        except InputInvalid as refused:
            assert refused.problems


@pytest.mark.long
@SETTINGS
@given(record=VALUES, decided=VALUES)
def test_a_verdicts_record_never_crashes(tmp_path: Path, record: Any, decided: Any) -> None:
    verdicts = tmp_path / "verdicts.jsonl"
    verdicts.write_text('{"case_id": "c"}\n[1]\n')
    shaped = {"verdicts": "adhd-evals verdicts file", "sha256": "x", "decided": decided}
    verdicts.with_name(verdicts.name + RECORD_SUFFIX).write_text(json.dumps(record if record else shaped))
    try:
        unedited(verdicts)
    except InputInvalid as refused:
        assert refused.problems


@pytest.mark.long
@SETTINGS
@given(key=st.sampled_from(["sample", "controls", "figures", "min_lower"]), value=VALUES)
def test_a_certificate_never_crashes(tmp_path: Path, key: str, value: Any) -> None:
    path = tmp_path / "cert.json"
    path.write_text(json.dumps({**certificate_for(FINGERPRINT), key: value}))
    try:
        read_certificate(path)
    except InputInvalid as refused:
        assert refused.problems
