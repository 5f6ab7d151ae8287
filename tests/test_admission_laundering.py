"""No route turns a judge into a person (issue 31): each way a judge's output could be taken
for a person's labels, a certified judge, or a decided criterion ends in a refusal that names it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.judging.admission import sidecar_path
from adhd_evals.runs.judging.agree import Rate
from judging import read_jsonl, write_jsonl
from test_certify import Sample, _sample


class SmallSample(Sample):
    """test_certify's sample on 8 cases: 16 labelled rows, 16 criterion passes and 16 fails, 8
    blockers and 8 clean rows (a judge call is a process: fewer rows, a faster module)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.sheet, self.cases, self.labels = _sample(folder, 8)
        self.person = folder / "person.jsonl"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Sample:
    return SmallSample(tmp_path_factory.mktemp("laundering"))


# Wilson lower bounds on the small sample, all right: 16/16 -> 16/19.84 = 0.806; 8/8 -> 8/11.84
# = 0.675; so a bar of 0.6 certifies the honest judge.
BAR = "0.6"


@pytest.fixture(scope="module")
def certified(sample: Sample) -> Path:
    """The honest judge (given controls), certified on the person's 16 labelled rows."""
    out = sample.folder / "honest.cert.json"
    if not out.exists():
        argv = ["agree", str(sample.judged("honest")), str(sample.person), "--certify", "--min-lower", BAR]
        assert main([*argv, "--out", str(out)]) == 0
    return out


def _verdicts(sample: Sample, out: Path, *extra: str) -> int:
    argv = ["verdicts", "--cases", str(sample.cases), "--key", str(sample.folder / "key.jsonl")]
    return main([*argv, "--out", str(out), *extra])


@pytest.mark.long
def test_a_judged_file_given_as_labels_is_refused(
    tmp_path: Path, sample: Sample, capsys: pytest.CaptureFixture[str]
) -> None:
    """(a) verdicts --labels JUDGED: the judge's rows carry its fingerprint (and a cost, and
    control rows): each is named, nothing is written."""
    out = tmp_path / "verdicts.jsonl"
    code = _verdicts(sample, out, "--labels", str(sample.judged("honest")))
    err = capsys.readouterr().err
    assert code == exitcodes.JUDGE_LAUNDERED and not out.exists()
    assert "a judge's output given as a person's labels (a judged file is not a person's labels" in err
    assert "  row 1: judge, cost_usd" in err and "Nothing was written." in err


@pytest.mark.long
def test_a_judged_file_stripped_of_its_fingerprints_is_still_not_labels(
    tmp_path: Path, sample: Sample, capsys: pytest.CaptureFixture[str]
) -> None:
    """(a) The rows lose every judge field, but the judge's record still sits beside the file."""
    rows = [
        {k: v for k, v in r.items() if k not in ("judge", "cost_usd", "control")}
        for r in read_jsonl(sample.judged("honest"))
    ]
    stripped = write_jsonl(tmp_path / "labels.jsonl", [r for r in rows if "void" not in r])
    shutil.copy(sidecar_path(sample.judged("honest")), sidecar_path(stripped))
    code = main(["agree", str(sample.judged("nearly")), str(stripped)])
    err = capsys.readouterr().err
    assert code == exitcodes.JUDGE_LAUNDERED
    assert f"{sidecar_path(stripped)} records the judge that wrote it" in err


@pytest.mark.long
def test_a_judge_certified_against_itself_is_refused(
    tmp_path: Path, sample: Sample, capsys: pytest.CaptureFixture[str]
) -> None:
    """(b) agree JUDGED JUDGED --certify: one file on both sides."""
    judged = str(sample.judged("honest"))
    out = tmp_path / "cert.json"
    assert main(["agree", judged, judged, "--certify", "--out", str(out)]) == exitcodes.JUDGE_LAUNDERED
    assert "has the same content as the judged sheet" in capsys.readouterr().err and not out.exists()


def test_a_copy_of_the_judged_file_is_the_same_content(
    tmp_path: Path, sample: Sample, capsys: pytest.CaptureFixture[str]
) -> None:
    """(b) The same bytes under another name are the same input."""
    copy = tmp_path / "person.jsonl"
    shutil.copy(sample.judged("honest"), copy)
    assert main(["agree", str(sample.judged("honest")), str(copy)]) == exitcodes.JUDGE_LAUNDERED
    assert "one file on both sides agrees with itself and proves nothing" in capsys.readouterr().err


@pytest.mark.long
def test_a_certified_fingerprint_pasted_onto_another_judges_rows_is_refused(
    tmp_path: Path, sample: Sample, certified: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(c) The 'biased' judge's rows, each given the certified honest judge's fingerprint; the
    file's record (written by judge) still names the biased judge: every row is named."""
    honest = read_jsonl(sample.judged("honest"))[0]["judge"]
    biased = sample.judged("biased")
    pasted = write_jsonl(tmp_path / "judged.jsonl", [{**r, "judge": honest} for r in read_jsonl(biased)])
    shutil.copy(sidecar_path(biased), sidecar_path(pasted))
    out = tmp_path / "verdicts.jsonl"
    code = _verdicts(sample, out, "--judged", str(pasted), "--certificate", str(certified))
    err = capsys.readouterr().err
    assert code == exitcodes.JUDGE_LAUNDERED and not out.exists()
    assert "carry a judge fingerprint that is not the one 'judge' recorded" in err
    assert "a fingerprint copied onto another judge's rows counts for nothing" in err


@pytest.mark.long
def test_a_pasted_fingerprint_without_the_record_is_refused(
    tmp_path: Path, sample: Sample, certified: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(c) The same rows with no record beside them: nothing says which judge wrote them."""
    honest = read_jsonl(sample.judged("honest"))[0]["judge"]
    pasted = write_jsonl(
        tmp_path / "judged.jsonl", [{**r, "judge": honest} for r in read_jsonl(sample.judged("biased"))]
    )
    code = _verdicts(sample, tmp_path / "v.jsonl", "--judged", str(pasted), "--certificate", str(certified))
    assert code == exitcodes.JUDGE_LAUNDERED
    assert "so nothing says which judge wrote its rows" in capsys.readouterr().err


def test_decided_by_edited_into_a_verdicts_file_is_refused(
    tmp_path: Path, sample: Sample, certified: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(d) verdicts writes every criterion undecided by anyone but the certified judge; a
    person's name edited into one row's decided_by is caught by score --criteria."""
    out = tmp_path / "verdicts.jsonl"
    assert (
        _verdicts(sample, out, "--judged", str(sample.judged("honest")), "--certificate", str(certified)) == 0
    )
    rows = read_jsonl(out)
    write_jsonl(tmp_path / "original.jsonl", rows)
    assert rows[0]["decided_by"] == "judge"
    rows[0] = {**rows[0], "decided_by": "person", "status": "pass"}
    write_jsonl(out, rows)
    scores = write_jsonl(
        tmp_path / "scores.jsonl",
        [
            {
                "case_id": "c00",
                "trial": 1,
                "condition": c,
                **dict.fromkeys(_METRICS, 3),
                "blocker": False,
                "notes": "",
            }
            for c in ("baseline", "candidate")
        ],
    )
    capsys.readouterr()
    code = main(["score", str(scores), "--criteria", str(out), "--certificate", str(certified)])
    err = capsys.readouterr().err
    assert code == exitcodes.JUDGE_LAUNDERED
    assert f"{out} was changed after 'verdicts' wrote it" in err
    assert "who decided each criterion (decided_by) is worked out from the inputs" in err
    first = rows[0]
    assert (
        f"  line 1: {first['case_id']} trial 1 {first['condition']} {first['criterion']!r}: pass by person, "
        f"where verdicts decided {read_jsonl(tmp_path / 'original.jsonl')[0]['status']} by judge"
    ) in err


_METRICS = ("correctness", "autonomy", "actionability", "safety", "concision")


def _hand_written(**change: Any) -> dict[str, Any]:
    """A certificate as the attack wrote it by hand: 1000 of 1000 everywhere, nothing else."""
    perfect = {"k": 1000, "n": 1000}
    return {
        "certificate": "adhd-evals judge certificate",
        "fingerprint": {
            "runner": "judge",
            "command": ["judge.sh"],
            "model": None,
            "template": "0123456789ab",
        },
        "min_lower": 0.8,
        "figures": {
            "criteria": {"tpr": perfect, "tnr": perfect},
            "blocker": {"tpr": perfect, "tnr": perfect},
        },
        **change,
    }


def _read(tmp_path: Path, cert: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(cert))
    verdicts = write_jsonl(
        tmp_path / "v.jsonl",
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
    code = main(["score", str(tmp_path / "s.jsonl"), "--criteria", str(verdicts), "--certificate", str(path)])
    return code, capsys.readouterr().err


@pytest.fixture
def scores(tmp_path: Path) -> Path:
    return write_jsonl(
        tmp_path / "s.jsonl",
        [
            {
                "case_id": "c",
                "trial": 1,
                "condition": c,
                **dict.fromkeys(_METRICS, 3),
                "blocker": False,
                "notes": "",
            }
            for c in ("baseline", "candidate")
        ],
    )


def test_a_hand_written_certificate_is_refused(
    tmp_path: Path, scores: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(e) Counts of 1000/1000 reach any bar; but the certificate names no labelled sample and
    records no controls, so it is below the floor."""
    code, err = _read(tmp_path, _hand_written(), capsys)
    assert code == exitcodes.JUDGE_LAUNDERED
    assert "a certificate below the floor, or whose figures are not its counts" in err
    assert "it names no labelled sample (sha256, rows, criterion_labels)" in err
    assert "it records no controls (rows, passed)" in err


def test_a_coin_certified_at_a_low_bar_is_refused(
    tmp_path: Path, scores: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(e) --min-lower 0.01 with TPR = TNR = 20/40: Wilson's lower bound for 20/40 is 0.352
    (worked in test_certify), above 0.01, so the counts reach that bar; but 0.01 < 0.5, and
    0.5 + 0.5 = 1 leaves Rogan-Gladen's correction undefined."""
    coin = {"k": 20, "n": 40}
    figures = {"criteria": {"tpr": coin, "tnr": coin}, "blocker": {"tpr": coin, "tnr": coin}}
    cert = _hand_written(
        min_lower=0.01,
        figures=figures,
        sample={"sha256": "0" * 64, "rows": 80, "criterion_labels": 80},
        controls={"rows": 15, "passed": 0},
    )
    code, err = _read(tmp_path, cert, capsys)
    assert code == exitcodes.JUDGE_LAUNDERED
    assert "its bar min_lower 0.01 is below 0.5: a judge that may be no better than a coin" in err
    assert "criteria TPR + TNR = 20/40 + 20/40 is at most 1: the judge is no better than a coin" in err
    assert "its own counts do not reach" not in err


def test_figures_that_are_not_the_counts_are_refused(
    tmp_path: Path, scores: Path, certified: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(e) The criteria TNR counts lowered to 15 of 16 with its rate left at 1.0: 15/16 = 0.9375."""
    cert = json.loads(certified.read_text())
    cert["figures"]["criteria"]["tnr"]["k"] = 15
    code, err = _read(tmp_path, cert, capsys)
    assert code == exitcodes.JUDGE_LAUNDERED
    assert "criteria TNR says rate 1.0 where 15 of 16 gives 0.9375" in err


def test_counts_larger_than_the_sample_are_refused(
    tmp_path: Path, scores: Path, certified: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(e) 1000/1000 written with their rates and bounds (consistent) on the 32-label sample."""
    cert = json.loads(certified.read_text())
    cert["figures"]["criteria"] = {name: Rate(1000, 1000).as_json() for name in ("tpr", "tnr")}
    code, err = _read(tmp_path, cert, capsys)
    assert code == exitcodes.JUDGE_LAUNDERED
    assert "it counts 2000 criterion verdicts on a sample of 32 criterion labels" in err


def test_a_certificate_its_own_labels_contradict_is_refused(
    tmp_path: Path, sample: Sample, certified: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(e) The honest judge's certificate made to say 15 of 16 for the criteria TNR (rate and
    bounds rewritten to match, so its own figures agree; 15/16 has Wilson lower bound 0.717, above
    the 0.6 bar): given the labelled sample it names, verdicts works the figures again and finds
    16 of 16."""
    cert = json.loads(certified.read_text())
    cert["figures"]["criteria"]["tnr"] = Rate(15, 16).as_json()
    forged = tmp_path / "cert.json"
    forged.write_text(json.dumps(cert))
    argv = [
        "--judged",
        str(sample.judged("honest")),
        "--labels",
        str(sample.person),
        "--certificate",
        str(forged),
    ]
    code = _verdicts(sample, tmp_path / "v.jsonl", *argv)
    err = capsys.readouterr().err
    assert code == exitcodes.JUDGE_LAUNDERED
    assert "the certificate's figures are not what its own labelled sample" in err
    assert "criteria TNR: 15 of 16 in the certificate, 16 of 16 on" in err


def test_a_true_certificate_is_borne_out_by_its_labels(
    tmp_path: Path, sample: Sample, certified: Path
) -> None:
    """The honest judge's certificate as agree wrote it, its labelled sample given: it stands, and
    where the person did not label, the certified judge decides."""
    out = tmp_path / "v.jsonl"
    argv = [
        "--judged",
        str(sample.judged("honest")),
        "--labels",
        str(sample.person),
        "--certificate",
        str(certified),
    ]
    assert _verdicts(sample, out, *argv) == 0
    assert {r["decided_by"] for r in read_jsonl(out)} == {"person"}  # all 32 labelled: the person decides
