"""Every file agree --certify, verdicts and score --criteria read gets a message, never a traceback.

Bounded in CI; ADHD_EVALS_FUZZ=10000 runs that many examples."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adhd_evals import exitcodes
from adhd_evals.entry import main
from judging import write_jsonl
from test_verdicts import FINGERPRINT, certificate_for

EXAMPLES = int(os.environ.get("ADHD_EVALS_FUZZ", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))

KEYS = st.sampled_from(
    [
        "case_id",
        "trial",
        "condition",
        "label",
        "criterion",
        "status",
        "decided_by",
        "criteria",
        "verdict",
        "judge",
        "void",
        "blocker",
        "k",
        "n",
        "figures",
        "fingerprint",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.sampled_from(
        ["c", "A", "B", "baseline", "candidate", "pass", "fail", "unwritten", "void", "judge", "nobody", "x"]
    ),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=8,
)
GOOD = [
    {
        "case_id": "c",
        "trial": 1,
        "condition": "A",
        "criteria": [{"criterion": "a", "verdict": "pass"}],
        "blocker": False,
        "judge": FINGERPRINT,
    },
    {
        "case_id": "c",
        "trial": 1,
        "condition": "baseline",
        "criterion": "a",
        "status": "pass",
        "decided_by": "judge",
        "judge": FINGERPRINT,
    },
    {"case_id": "c", "trial": 1, "label": "A", "condition": "baseline"},
]


def _broken(template: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    return {**template, key: value}


ROWS = st.lists(st.builds(_broken, st.sampled_from(GOOD), KEYS, VALUES) | st.sampled_from(GOOD), max_size=4)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(argv)
    err = capsys.readouterr().err
    assert code != exitcodes.INTERNAL and "Traceback" not in err, err


@pytest.mark.long
@FUZZ
@given(
    rows=ROWS,
    certificate=st.one_of(VALUES, st.builds(_broken, st.just(certificate_for(FINGERPRINT)), KEYS, VALUES)),
)
def test_no_traceback(
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    rows: list[dict[str, Any]],
    certificate: Any,
) -> None:
    folder = tmp_path_factory.mktemp("v")
    path = write_jsonl(folder / "rows.jsonl", rows)
    cases = write_jsonl(
        folder / "cases.jsonl",
        [{"id": "c", "category": "x", "prompt": "p", "risk": "low", "criteria": ["a"]}],
    )
    cert = folder / "cert.json"
    cert.write_text(json.dumps(certificate))
    scores = write_jsonl(
        folder / "scores.jsonl",
        [
            {
                "case_id": "c",
                "trial": 1,
                "condition": c,
                "correctness": 3,
                "autonomy": 3,
                "actionability": 3,
                "safety": 3,
                "concision": 3,
                "blocker": False,
                "notes": "",
            }
            for c in ("baseline", "candidate")
        ],
    )
    _run(["agree", str(path), str(path), "--certify", "--out", str(folder / "out.json")], capsys)
    _run(
        [
            "verdicts",
            "--cases",
            str(cases),
            "--checks",
            str(path),
            "--labels",
            str(path),
            "--judged",
            str(path),
            "--key",
            str(path),
            "--certificate",
            str(cert),
            "--out",
            str(folder / "v.jsonl"),
        ],
        capsys,
    )
    _run(["score", str(scores), "--criteria", str(path), "--certificate", str(cert)], capsys)
