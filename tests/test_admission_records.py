"""The records admission reads (issue 31): the judge's record beside its output, the record beside
a verdicts file, a certificate's figures and controls; each broken one refused by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.judging.admission import (
    RECORD_SUFFIX,
    admitted,
    against_labels,
    claim,
    person_labels,
    read_sidecar,
    sidecar_path,
    unedited,
)
from adhd_evals.runs.judging.agree import Refused, read_certificate
from adhd_evals.runs.rows import SheetRow
from judging import read_jsonl, write_jsonl
from test_verdicts import FINGERPRINT, certificate_for

METRICS = ("correctness", "autonomy", "actionability", "safety", "concision")


def _row(condition: str = "A", **extra: Any) -> dict[str, Any]:
    return {
        "case_id": "c",
        "trial": 1,
        "condition": condition,
        **dict.fromkeys(METRICS, 3),
        "blocker": False,
        "notes": "",
        **extra,
    }


def _sheet_row(**extra: Any) -> SheetRow:
    return cast("SheetRow", _row(**extra))  # a sheet row's identity, scores and what is given


def test_a_judge_resuming_its_own_file_keeps_its_record(tmp_path: Path) -> None:
    judged = write_jsonl(tmp_path / "judged.jsonl", [_row(judge=FINGERPRINT)])
    claim(judged, FINGERPRINT)
    before = sidecar_path(judged).read_text()
    claim(judged, FINGERPRINT)
    assert sidecar_path(judged).read_text() == before and read_sidecar(judged)["fingerprint"] == FINGERPRINT


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        pytest.param("{not json", "cannot be read as a judge's record", id="not JSON"),
        pytest.param('{"judged": "something else"}', "not a judge's record of its output", id="another kind"),
        pytest.param("[1]", "not a judge's record of its output", id="not an object"),
    ],
)
def test_a_broken_judge_record_is_refused(tmp_path: Path, text: str, problem: str) -> None:
    judged = write_jsonl(tmp_path / "judged.jsonl", [_row(judge=FINGERPRINT)])
    sidecar_path(judged).write_text(text)
    with pytest.raises(Refused, match=problem) as caught:
        read_sidecar(judged)
    assert caught.value.exit_code == exitcodes.JUDGE_LAUNDERED


def test_a_file_of_two_judges_is_refused(tmp_path: Path) -> None:
    other = {**FINGERPRINT, "model": "opus"}
    path = tmp_path / "judged.jsonl"
    with pytest.raises(Refused, match="rows of 2 judges in one judged file: one judge per file"):
        admitted(path, [_row(judge=FINGERPRINT), _row("B", judge=other)], allow_leaky=False)


def test_control_rows_without_a_record_still_count(tmp_path: Path) -> None:
    """A judged file copied without its record: the leak is read from its rows."""
    leak = _row(
        "control-empty", judge=FINGERPRINT, control="empty", criteria=[{"criterion": "x", "verdict": "pass"}]
    )
    with pytest.raises(Refused, match="the judge passed 1 of 1 controls it must fail") as caught:
        admitted(tmp_path / "judged.jsonl", [_row(judge=FINGERPRINT), leak], allow_leaky=False)
    assert caught.value.exit_code == exitcodes.JUDGE_LEAKY


def test_a_file_no_judge_filled_passes_unchanged(tmp_path: Path) -> None:
    rows = [_row(), _row("B")]
    assert admitted(tmp_path / "scores.jsonl", rows, allow_leaky=False) == (rows, [])


def test_more_than_ten_judged_rows_given_as_labels_are_counted(tmp_path: Path) -> None:
    rows = [_row(judge=FINGERPRINT) for _ in range(12)]
    with pytest.raises(Refused) as caught:
        person_labels(tmp_path / "labels.jsonl", rows)
    assert "  row 10: judge" in caught.value.problems and "  ... and 2 more" in caught.value.problems


def test_labels_sharing_no_row_with_the_judge_are_not_the_certificates_sample() -> None:
    """Labels for another case, and labels of the same row with another hash: neither is checked
    against the certificate (nothing to compare, or not its sample)."""
    cert = certificate_for(FINGERPRINT)
    judged = [_sheet_row(criteria=[{"criterion": "x", "verdict": "pass"}])]
    elsewhere = [_sheet_row(case_id="d", criteria=[{"criterion": "x", "verdict": "pass"}])]
    same_row = [_sheet_row(criteria=[{"criterion": "x", "verdict": "fail"}])]
    against_labels(cert, judged, [(Path("d.jsonl"), elsewhere), (Path("c.jsonl"), same_row)])


def _verdicts(tmp_path: Path) -> Path:
    return write_jsonl(
        tmp_path / "verdicts.jsonl",
        [
            {
                "case_id": "c",
                "trial": 1,
                "condition": "baseline",
                "criterion": "x",
                "status": "pass",
                "decided_by": "check",
            }
        ],
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        pytest.param("{", "cannot be read as the record of a verdicts file", id="not JSON"),
        pytest.param('{"verdicts": "x"}', "not the record of a verdicts file", id="another kind"),
    ],
)
def test_a_broken_verdicts_record_is_refused(tmp_path: Path, text: str, problem: str) -> None:
    verdicts = _verdicts(tmp_path)
    verdicts.with_name(verdicts.name + RECORD_SUFFIX).write_text(text)
    with pytest.raises(Refused, match=problem):
        unedited(verdicts)


def test_an_unedited_verdicts_file_is_scored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """verdicts of one check result, then score --criteria on them as written: the record matches."""
    cases = write_jsonl(
        tmp_path / "cases.jsonl",
        [{"id": "c", "category": "x", "prompt": "p", "risk": "low", "criteria": ["x"]}],
    )
    checks = write_jsonl(
        tmp_path / "checks.jsonl",
        [
            {
                "case_id": "c",
                "trial": 1,
                "condition": c,
                "runner": "m",
                "criterion": "x",
                "check": "k",
                "status": "pass",
            }
            for c in ("baseline", "candidate")
        ],
    )
    out = tmp_path / "verdicts.jsonl"
    assert main(["verdicts", "--cases", str(cases), "--checks", str(checks), "--out", str(out)]) == 0
    assert json.loads(out.with_name(out.name + RECORD_SUFFIX).read_text())["inputs"]["checks"]["path"] == str(
        checks
    )
    scores = write_jsonl(tmp_path / "scores.jsonl", [{**_row(c)} for c in ("baseline", "candidate")])
    assert main(["score", str(scores), "--criteria", str(out)]) == exitcodes.GATE  # 3 vs 3: not above
    assert "was changed after" not in capsys.readouterr().err


def _certificate(tmp_path: Path, **change: Any) -> Path:
    path = tmp_path / "cert.json"
    path.write_text(json.dumps({**certificate_for(FINGERPRINT), **change}))
    return path


def test_a_certificate_recording_a_leak_is_refused(tmp_path: Path) -> None:
    path = _certificate(tmp_path, controls={"rows": 15, "passed": 2})
    with pytest.raises(Refused, match="its judge passed 2 of 15 controls it must fail") as caught:
        read_certificate(path)
    assert caught.value.exit_code == exitcodes.JUDGE_LEAKY


def test_a_rate_that_is_not_a_number_is_refused(tmp_path: Path) -> None:
    cert: dict[str, Any] = json.loads(json.dumps(certificate_for(FINGERPRINT)))
    cert["figures"]["criteria"]["tpr"] = {"k": 40, "n": 40, "rate": "1.0"}
    path = _certificate(tmp_path, figures=cert["figures"])
    with pytest.raises(Refused, match=r"criteria TPR says rate '1\.0' where 40 of 40 gives 1\.0"):
        read_certificate(path)


def test_more_blockers_than_sample_rows_are_refused(tmp_path: Path) -> None:
    """20 + 20 blockers counted on a sample of 30 rows."""
    path = _certificate(tmp_path, sample={"sha256": "0" * 64, "rows": 30, "criterion_labels": 80})
    with pytest.raises(Refused, match="it counts 40 blockers on a sample of 30 rows"):
        read_certificate(path)


def _recorded(tmp_path: Path, decided: Any) -> Path:
    """A verdicts file of four lines (an edited row, a line that is not JSON, one that is not an
    object, a row verdicts never wrote) beside a record of one row decided by check."""
    verdicts = tmp_path / "verdicts.jsonl"
    row = {"case_id": "c", "trial": 1, "condition": "baseline", "criterion": "x", "status": "pass"}
    verdicts.write_text(
        json.dumps({**row, "decided_by": "person"})
        + "\nnot json\n[1]\n"
        + json.dumps({**row, "criterion": "y", "decided_by": "person"})
        + "\n"
    )
    record = {"verdicts": "adhd-evals verdicts file", "version": 1, "sha256": "0" * 64, "decided": decided}
    verdicts.with_name(verdicts.name + RECORD_SUFFIX).write_text(json.dumps(record))
    return verdicts


def test_each_row_changed_since_verdicts_is_named(tmp_path: Path) -> None:
    verdicts = _recorded(tmp_path, [["c", 1, "baseline", "x", "pass", "check"]])
    with pytest.raises(Refused) as caught:
        unedited(verdicts)
    assert caught.value.problems[1:] == [
        "  line 1: c trial 1 baseline 'x': pass by person, where verdicts decided pass by check",
        "  line 4: c trial 1 baseline 'y': pass by person, where verdicts decided nothing",
    ]


def test_a_record_without_deciders_still_refuses_an_edit(tmp_path: Path) -> None:
    with pytest.raises(Refused, match="was changed after 'verdicts' wrote it") as caught:
        unedited(_recorded(tmp_path, None))
    assert len(caught.value.problems) == 1


@pytest.mark.parametrize(
    "controls",
    [
        pytest.param("all passed", id="not an object"),
        pytest.param(
            {"rows": 15, "void": 0, "passed": 16, "kinds": {}, "leaks": []}, id="more passed than rows"
        ),
        pytest.param(
            {"rows": 15, "void": 0, "passed": 1, "kinds": {"empty": "3"}, "leaks": []},
            id="a kind's count a string",
        ),
        pytest.param(
            {"rows": 15, "void": 0, "passed": 1, "kinds": {}, "leaks": [{"case_id": "c"}]},
            id="a leak unnamed",
        ),
    ],
)
def test_a_record_whose_controls_are_not_controls_is_refused(tmp_path: Path, controls: Any) -> None:
    judged = write_jsonl(tmp_path / "judged.jsonl", [_row(judge=FINGERPRINT)])
    record = {
        "judged": "adhd-evals judged file",
        "version": 1,
        "fingerprint": FINGERPRINT,
        "controls": controls,
    }
    sidecar_path(judged).write_text(json.dumps(record))
    with pytest.raises(Refused, match="its controls are not a record of controls"):
        read_sidecar(judged)


def test_a_leak_of_a_kind_this_version_does_not_know_is_named(tmp_path: Path) -> None:
    """A record from a later version names a control kind this one lacks: shown, not a crash."""
    leak = {"case_id": "c", "trial": 1, "control": "future-kind"}
    controls = {"rows": 2, "void": 0, "passed": 1, "kinds": {"future-kind": 2}, "leaks": [leak]}
    judged = write_jsonl(tmp_path / "judged.jsonl", [_row(judge=FINGERPRINT)])
    record = {
        "judged": "adhd-evals judged file",
        "version": 1,
        "fingerprint": FINGERPRINT,
        "controls": controls,
    }
    sidecar_path(judged).write_text(json.dumps(record))
    with pytest.raises(Refused) as caught:
        admitted(judged, read_jsonl(judged), allow_leaky=False)
    assert "(leak rate 0.500)" in caught.value.problems[0]
    assert caught.value.problems[1] == (
        "  - c trial 1: the 'future-kind' control was passed (a control of a kind this version does not know)"
    )
