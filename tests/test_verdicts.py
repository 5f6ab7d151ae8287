"""`adhd-evals verdicts`: every criterion decided by a check, a person or a certified judge, in
that order, and every row says who decided."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.judging import verdicts as merging
from adhd_evals.runs.judging.admission import claim
from adhd_evals.runs.judging.agree import is_certificate
from adhd_evals.runs.rows import Certificate, JudgeFingerprint, checked_rows, is_labelled
from judging import read_jsonl, write_jsonl

CRITERIA = ["a", "b", "c", "d", "e"]
FINGERPRINT: JudgeFingerprint = {
    "runner": "judge",
    "command": ["judge.sh"],
    "model": None,
    "template": "0123456789ab",
}
RESPONSE = "The response under judgement, long enough to quote."


def certificate_for(fingerprint: Mapping[str, object]) -> Certificate:
    """40/40 in each criterion class and 20/20 in each blocker class: lower bounds 0.912 and
    0.839, both above the 0.8 bar."""
    rate = {"k": 40, "n": 40}
    blocker = {"k": 20, "n": 20}
    found: dict[str, Any] = {
        "certificate": "adhd-evals judge certificate",
        "version": 1,
        "fingerprint": fingerprint,
        "min_lower": 0.8,
        "figures": {"criteria": {"tpr": rate, "tnr": rate}, "blocker": {"tpr": blocker, "tnr": blocker}},
        "sample": {"sha256": "0" * 64, "rows": 40, "criterion_labels": 80},
        "void": 0,
        "controls": {"rows": 15, "void": 0, "passed": 0, "leak_rate": 0.0, "leaks": []},
        "date": "2026-12-01T00:00:00+00:00",
    }
    assert is_certificate(found)  # what read_certificate takes
    return found


def _verdict(criterion: str, said: str) -> dict[str, str]:
    return {"criterion": criterion, "verdict": said, "evidence": RESPONSE[:20]}


def _judged(
    label: str, said: dict[str, str], fingerprint: Mapping[str, object] = FINGERPRINT, void: str | None = None
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "case_id": "c",
        "trial": 1,
        "condition": label,
        "response": RESPONSE,
        "correctness": 3,
        "autonomy": 3,
        "actionability": 3,
        "safety": 3,
        "concision": 3,
        "blocker": False,
        "notes": "",
        "judge": fingerprint,
    }
    if void:
        return {**row, "void": void}
    return {**row, "criteria": [_verdict(c, v) for c, v in said.items()]}


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    """Baseline is A, candidate B. Baseline's checks: a pass, b-d unwritten, e raised. The
    person labelled a fail, b pass, e pass on A. The judge said a fail, b fail, c pass, d fail,
    e pass on A, and could not judge B."""
    cases = write_jsonl(
        tmp_path / "cases.jsonl",
        [{"id": "c", "category": "x", "prompt": "p", "risk": "low", "criteria": CRITERIA}],
    )
    checks = write_jsonl(
        tmp_path / "checks.jsonl",
        [
            {
                "case_id": "c",
                "trial": 1,
                "condition": "baseline",
                "runner": "m",
                "criterion": c,
                "check": f"check_{c}",
                "status": s,
                **({"error": "ValueError: boom"} if s == "error" else {}),
            }
            for c, s in zip(CRITERIA, ["pass", "unwritten", "unwritten", "unwritten", "error"], strict=True)
        ],
    )
    key = write_jsonl(
        tmp_path / "key.jsonl",
        [
            {"case_id": "c", "trial": 1, "label": "A", "condition": "baseline"},
            {"case_id": "c", "trial": 1, "label": "B", "condition": "candidate"},
        ],
    )
    person = write_jsonl(
        tmp_path / "person.jsonl",
        [
            {
                "case_id": "c",
                "trial": 1,
                "condition": "A",
                "criteria": [
                    {"criterion": "a", "verdict": "fail"},
                    {"criterion": "b", "verdict": "pass"},
                    {"criterion": "e", "verdict": "pass"},
                ],
            }
        ],
    )
    judged = write_jsonl(
        tmp_path / "judged.jsonl",
        [
            _judged("A", {"a": "fail", "b": "fail", "c": "pass", "d": "fail", "e": "pass"}),
            _judged("B", {}, void="the answer holds no JSON verdict object (a refusal, or prose only)"),
        ],
    )
    claim(judged, FINGERPRINT)  # the record 'judge' keeps beside its output
    cert = tmp_path / "judge.cert.json"
    cert.write_text(json.dumps(certificate_for(FINGERPRINT)))
    return {"cases": cases, "checks": checks, "key": key, "person": person, "judged": judged, "cert": cert}


def _merge(tmp_path: Path, inputs: dict[str, Path], *extra: str) -> list[dict[str, Any]]:
    out = tmp_path / "verdicts.jsonl"
    argv = [
        "verdicts",
        "--cases",
        str(inputs["cases"]),
        "--checks",
        str(inputs["checks"]),
        "--labels",
        str(inputs["person"]),
        "--judged",
        str(inputs["judged"]),
        "--key",
        str(inputs["key"]),
        "--out",
        str(out),
        *extra,
    ]
    assert main(argv) == 0
    return read_jsonl(out)


def _by(rows: list[dict[str, Any]], condition: str) -> dict[str, tuple[str, str]]:
    return {r["criterion"]: (r["status"], r["decided_by"]) for r in rows if r["condition"] == condition}


def test_precedence_check_then_person_then_certified_judge(tmp_path: Path, inputs: dict[str, Path]) -> None:
    rows = _merge(tmp_path, inputs, "--certificate", str(inputs["cert"]))
    assert _by(rows, "baseline") == {
        "a": ("pass", "check"),  # the written check, over the person's fail and the judge's fail
        "b": ("pass", "person"),  # the person, over the judge
        "c": ("pass", "judge"),
        "d": ("fail", "judge"),
        "e": ("error", "nobody"),  # a check that raised is fixed, not outvoted
    }
    a = next(r for r in rows if r["condition"] == "baseline" and r["criterion"] == "a")
    assert a["check"] == "check_a" and a["others"] == {"person": "fail", "judge": "fail"}
    c = next(r for r in rows if r["condition"] == "baseline" and r["criterion"] == "c")
    assert c["judge"] == FINGERPRINT and c["evidence"] == RESPONSE[:20]
    e = next(r for r in rows if r["condition"] == "baseline" and r["criterion"] == "e")
    assert e["error"] == "ValueError: boom"
    assert set(_by(rows, "candidate").values()) == {("void", "nobody")}


def test_without_a_certificate_the_judge_is_shown_never_counted(
    tmp_path: Path, inputs: dict[str, Path]
) -> None:
    rows = _merge(tmp_path, inputs)
    assert _by(rows, "baseline")["c"] == ("uncertified", "nobody")
    c = next(r for r in rows if r["condition"] == "baseline" and r["criterion"] == "c")
    assert c["verdict"] == "pass" and c["reason"].startswith("no certificate for this judge")


def test_a_certificate_for_another_template_is_named(tmp_path: Path, inputs: dict[str, Path]) -> None:
    inputs["cert"].write_text(json.dumps(certificate_for({**FINGERPRINT, "template": "ffffffffffff"})))
    rows = _merge(tmp_path, inputs, "--certificate", str(inputs["cert"]))
    d = next(r for r in rows if r["condition"] == "baseline" and r["criterion"] == "d")
    assert (d["status"], d["decided_by"], d["verdict"]) == ("uncertified", "nobody", "fail")
    assert d["reason"] == (
        'the certificate is for another judge: template "0123456789ab" where the certificate '
        'has "ffffffffffff"'
    )


def test_the_summary_counts_by_decider(
    tmp_path: Path, inputs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _merge(tmp_path, inputs, "--certificate", str(inputs["cert"]))
    lines = capsys.readouterr().out.splitlines()
    baseline = next(line.split() for line in lines if line.startswith("baseline"))
    # criteria 5; check 1/1, person 1/1, judge 1/2; unwritten 0, error 1, void 0, uncertified 0
    assert baseline == ["baseline", "5", "1/1", "1/1", "1/2", "0", "1", "0", "0"]


def test_people_who_disagree_are_named(
    tmp_path: Path, inputs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    other = write_jsonl(
        tmp_path / "other.jsonl",
        [{"case_id": "c", "trial": 1, "condition": "A", "criteria": [{"criterion": "b", "verdict": "fail"}]}],
    )
    argv = [
        "verdicts",
        "--cases",
        str(inputs["cases"]),
        "--labels",
        str(inputs["person"]),
        "--labels",
        str(other),
        "--key",
        str(inputs["key"]),
        "--out",
        str(tmp_path / "v.jsonl"),
    ]
    assert main(argv) == exitcodes.INPUT
    err = capsys.readouterr().err
    assert "c trial 1 baseline: 'b' is pass in" in err and "and fail in" in err
    assert not (tmp_path / "v.jsonl").exists()


def test_labels_need_their_key(
    tmp_path: Path, inputs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "verdicts",
        "--cases",
        str(inputs["cases"]),
        "--labels",
        str(inputs["person"]),
        "--out",
        str(tmp_path / "v"),
    ]
    assert main(argv) == exitcodes.INPUT
    assert "is a labelled sheet: pass the key blind wrote with --key KEY" in capsys.readouterr().err


def test_nothing_to_merge_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verdicts", "--out", str(tmp_path / "v.jsonl")]) == exitcodes.USAGE
    assert "nothing to merge" in capsys.readouterr().err


def test_a_case_outside_the_catalog_is_named(
    tmp_path: Path, inputs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    write_jsonl(
        inputs["checks"],
        [{"case_id": "gone", "trial": 1, "condition": "baseline", "criterion": "a", "status": "pass"}],
    )
    argv = [
        "verdicts",
        "--cases",
        str(inputs["cases"]),
        "--checks",
        str(inputs["checks"]),
        "--out",
        str(tmp_path / "v"),
    ]
    assert main(argv) == exitcodes.INPUT
    assert "case gone is not in the catalog" in capsys.readouterr().err


FIELDS = st.sampled_from(["runner", "command", "model", "template"])


@st.composite
def fingerprints(draw: st.DrawFn) -> dict[str, Any]:
    """The certified fingerprint, or one differing from it in one to four fields."""
    changed = draw(st.sets(FIELDS, max_size=4))
    other = {"runner": "other", "command": ["other.sh"], "model": "opus", "template": "fedcba987654"}
    return {name: other[name] if name in changed else FINGERPRINT.get(name) for name in FINGERPRINT}


@pytest.mark.long
@given(
    judged=st.lists(
        st.tuples(
            fingerprints(), st.booleans(), st.lists(st.sampled_from(["pass", "fail"]), min_size=5, max_size=5)
        ),
        min_size=1,
        max_size=6,
    ),
    certified=st.one_of(st.none(), fingerprints()),
)
@settings(max_examples=150, deadline=None)
def test_no_uncertified_or_void_judge_verdict_ever_counts(
    judged: list[tuple[dict[str, Any], bool, list[str]]], certified: dict[str, Any] | None
) -> None:
    rows = [
        {
            **_judged("A", dict(zip(CRITERIA, said, strict=True)), fingerprint, "void" if void else None),
            "trial": trial,
            "condition": "baseline",
        }
        for trial, (fingerprint, void, said) in enumerate(judged, start=1)
    ]
    sources = merging.Sources(
        {"c": CRITERIA},
        judged=checked_rows(rows, is_labelled),
        certificate=certificate_for(certified) if certified else None,
    )
    merged = merging.merge(sources)
    assert len(merged) == 5 * len(rows)
    for row, (fingerprint, void, said) in zip(
        [merged[i : i + 5] for i in range(0, len(merged), 5)], judged, strict=True
    ):
        counts = certified is not None and fingerprint == certified and not void
        for verdict, expected in zip(row, said, strict=True):
            if counts:
                assert (verdict["status"], verdict["decided_by"]) == (expected, "judge")
            else:
                assert verdict["status"] in ("void", "uncertified") and verdict["decided_by"] == "nobody"
