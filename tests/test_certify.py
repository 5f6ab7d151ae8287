"""Certifying a judge: TPR and TNR with Wilson intervals, the certificate and its refusals."""

from __future__ import annotations

import datetime
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.judging.admission import sidecar_path
from adhd_evals.runs.judging.agree import mismatches, read_certificate, wilson
from adhd_evals.runs.judging.blind import markdown
from adhd_evals.runs.rows import Certificate, checked_rows, is_labelled
from helpers import blind_folder
from judging import read_jsonl, run_judge, write_jsonl

CRITERIA = ["Names the bug", "Gives a fix"]


def test_wilson_by_hand() -> None:
    """z = 1.95996, z^2 = 3.84146.
    45/50: p = 0.9; z^2/n = 0.076829; centre = (0.9 + 0.038415) / 1.076829 = 0.871461;
      half = 1.95996 / 1.076829 * sqrt(0.09/50 + 3.84146/10000) = 1.820124 * 0.046735 = 0.085063
      -> [0.786, 0.957].
    10/20: p = 0.5, so the centre is 0.5; half = 1.95996 / 1.192073 * sqrt(0.0125 + 0.0024009)
      = 1.644162 * 0.122069 = 0.200701 -> [0.299, 0.701].
    40/40: p = 1; centre = (1 + 0.048018) / 1.096037 = 0.956188, half = 1.788226 * 0.024503
      = 0.043818 -> lower 0.912 (= 40 / 43.84146), upper 1.
    0/0: nothing measured, no interval."""
    assert wilson(45, 50) == pytest.approx((0.786, 0.957), abs=5e-4)
    assert wilson(10, 20) == pytest.approx((0.299, 0.701), abs=5e-4)
    assert wilson(40, 40) == pytest.approx((0.912, 1.0), abs=5e-4)
    assert wilson(0, 0) is None


def _sample(tmp_path: Path, rows: int = 20) -> tuple[Path, Path, list[dict[str, Any]]]:
    """`rows` cases x 2 conditions, each response distinct; the sheet and the person's labels:
    on sheet row i, criterion j fails when i + j is even (so each row has one pass and one
    fail: 2 x rows of each), and row i is a blocker when i is even (rows of each)."""
    cases = [
        {"id": f"c{n:02}", "category": "c", "prompt": f"Task {n}", "risk": "low", "criteria": CRITERIA}
        for n in range(rows)
    ]
    responses = [
        {
            "case_id": f"c{n:02}",
            "trial": 1,
            "condition": c,
            "runner": "m",
            "response": f"Response {n} {c}: the bug is a null pointer, fixed by a guard.",
        }
        for n in range(rows)
        for c in ("baseline", "candidate")
    ]
    write_jsonl(tmp_path / "cases.jsonl", cases)
    write_jsonl(tmp_path / "responses.jsonl", responses)
    assert blind_folder(tmp_path) == 0
    labels = [
        {
            **row,
            "blocker": i % 2 == 0,
            "criteria": [
                {"criterion": c, "verdict": "fail" if (i + j) % 2 == 0 else "pass"}
                for j, c in enumerate(CRITERIA)
            ],
        }
        for i, row in enumerate(read_jsonl(tmp_path / "sheet.jsonl"))
    ]
    write_jsonl(tmp_path / "person.jsonl", labels)
    return tmp_path / "sheet.jsonl", tmp_path / "cases.jsonl", labels


class Sample:
    """One labelled sample for the module, judged once by each fake judge a test asks for
    (a judge call is a process: 40 of them take seconds)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.sheet, self.cases, self.labels = _sample(folder)
        self.person = folder / "person.jsonl"

    def judged(self, mode: str) -> Path:
        out = self.folder / f"judged-{mode}.jsonl"
        if not out.exists():
            assert (
                run_judge(
                    self.folder, self.sheet, self.cases, mode, "--jobs", "4", "--controls", labels=self.person
                )[0]
                == 0
            )
        return out


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Sample:
    return Sample(tmp_path_factory.mktemp("sample"))


def _certify(tmp_path: Path, sample: Sample, mode: str) -> tuple[int, Path]:
    out = tmp_path / "judge.cert.json"
    return main(
        [
            "agree",
            str(sample.judged(mode)),
            str(sample.person),
            "--certify",
            "--min-lower",
            "0.8",
            "--out",
            str(out),
        ]
    ), out


@pytest.mark.long
def test_an_honest_judge_is_certified(tmp_path: Path, sample: Sample) -> None:
    """40 labelled rows: 40 passes and 40 fails among the criterion verdicts, 20 blockers and 20
    clean rows; the honest judge agrees on all, so each lower bound is 40/43.84 = 0.912 or
    20/23.84 = 0.839 (20/20), all at least 0.8."""
    code, out = _certify(tmp_path, sample, "honest")
    assert code == 0
    cert = json.loads(out.read_text())
    judged = read_jsonl(sample.judged("honest"))
    assert cert["fingerprint"] == judged[0]["judge"] and cert["min_lower"] == 0.8
    assert {k: cert["figures"]["criteria"]["tpr"][k] for k in ("k", "n")} == {"k": 40, "n": 40}
    assert {k: cert["figures"]["criteria"]["tnr"][k] for k in ("k", "n")} == {"k": 40, "n": 40}
    assert cert["figures"]["blocker"]["tpr"]["low"] == pytest.approx(0.839, abs=5e-4)
    assert cert["sample"]["rows"] == 40 and cert["sample"]["criterion_labels"] == 80
    assert len(cert["sample"]["sha256"]) == 64
    when = datetime.datetime.fromisoformat(cert["date"])
    assert when.tzinfo is not None and abs(datetime.datetime.now(datetime.timezone.utc) - when).days == 0


@pytest.mark.long
def test_a_judge_biased_to_pass_is_refused_with_its_bounds(
    tmp_path: Path, sample: Sample, capsys: pytest.CaptureFixture[str]
) -> None:
    """It passes all 40 true passes (TPR 40/40) and every other one of the 40 true fails (TNR
    20/40 = 0.5). n = 40, z^2/n = 0.096037: centre 0.5; half = 1.788226 * sqrt(0.25/40 +
    3.84146/6400) = 1.788226 * 0.082766 = 0.148004 -> [0.352, 0.648], below 0.8."""
    code, out = _certify(tmp_path, sample, "biased")
    assert code == exitcodes.FAILED and not out.exists()
    err = capsys.readouterr().err
    assert "the judge is not certified" in err
    assert (
        "criteria TNR 20/40 = 0.500, 95% interval [0.352, 0.648] (criterion verdicts the person failed): "
        "the lower bound 0.352 is below --min-lower 0.8"
    ) in err
    assert "criteria TPR" not in err and "Nothing was written." in err


@pytest.mark.long
def test_a_judge_good_enough_is_certified(tmp_path: Path, sample: Sample) -> None:
    """Wrong once in each class: 39/40. p = 0.975; centre = (0.975 + 0.048018) / 1.096037 =
    0.933380; half = 1.788226 * sqrt(0.024375/40 + 0.00060023) = 1.788226 * 0.034780 = 0.062194
    -> [0.871, 0.996]: at least 0.8."""
    code, out = _certify(tmp_path, sample, "nearly")
    assert code == 0
    figures = json.loads(out.read_text())["figures"]["criteria"]
    for name in ("tpr", "tnr"):
        assert (figures[name]["k"], figures[name]["n"]) == (39, 40)
        assert (figures[name]["low"], figures[name]["high"]) == pytest.approx((0.871, 0.996), abs=5e-4)


@pytest.mark.long
def test_a_class_without_labels_is_named_and_does_not_block(
    tmp_path: Path, sample: Sample, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nobody marked a blocker, and the judge agrees: blocker TPR has no labels at all."""
    person = write_jsonl(tmp_path / "person.jsonl", [{**row, "blocker": False} for row in sample.labels])
    judged = write_jsonl(
        tmp_path / "judged.jsonl", [{**row, "blocker": False} for row in read_jsonl(sample.judged("honest"))]
    )
    shutil.copy(sidecar_path(sample.judged("honest")), sidecar_path(judged))  # the judge's own record
    out = tmp_path / "cert.json"
    code = main(["agree", str(judged), str(person), "--certify", "--out", str(out)])
    assert code == 0 and out.exists()
    assert (
        "Warning: no rows the person marked as a blocker in the sample: the judge's blocker TPR is not "
        "measured." in capsys.readouterr().err
    )


def test_a_small_class_is_warned_about(
    tmp_path: Path, sample: Sample, capsys: pytest.CaptureFixture[str]
) -> None:
    """12 labelled rows: 12 passes and 12 fails, 6 blockers and 6 clean: all under 20."""
    person = write_jsonl(tmp_path / "person.jsonl", sample.labels[:12])
    assert main(["agree", str(sample.judged("honest")), str(person)]) == 0
    err = capsys.readouterr().err
    for count, described in (
        (12, "criterion verdicts the person passed"),
        (12, "criterion verdicts the person failed"),
        (6, "rows the person marked as a blocker"),
    ):
        assert f"Warning: only {count} {described} (fewer than 20)" in err


@pytest.mark.long
def test_labels_filled_in_markdown_give_the_same_figures(
    tmp_path: Path, sample: Sample, capsys: pytest.CaptureFixture[str]
) -> None:
    """The person fills the Markdown sheet's verdict column and blocker field instead of JSONL."""
    labels = sample.labels
    text = markdown(checked_rows(read_jsonl(sample.sheet), is_labelled))
    filled, row = [], -1
    for line in text.splitlines():
        if line.startswith("<!-- adhd-evals row "):
            row += 1
        for verdict in labels[row]["criteria"] if row >= 0 else []:
            if line == f'| {CRITERIA.index(verdict["criterion"]) + 1} | "{verdict["criterion"]}" | |':
                line = line[:-1] + f"{verdict['verdict']} |"
        if line == "- blocker: ":
            line += "yes" if labels[row]["blocker"] else "no"
        filled.append(line)
    person_md = tmp_path / "person.md"
    person_md.write_text("\n".join(filled))
    judged = str(sample.judged("nearly"))
    assert main(["agree", judged, str(sample.person), "--json"]) == 0
    from_jsonl = json.loads(capsys.readouterr().out)
    assert main(["agree", judged, str(person_md), "--json"]) == 0
    from_markdown = json.loads(capsys.readouterr().out)
    assert from_markdown["rates"] == from_jsonl["rates"] and from_markdown["sample"] == from_jsonl["sample"]
    assert from_markdown["rates"]["criteria"]["tpr"]["n"] == 40


def test_certify_needs_out_and_out_needs_certify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agree", "j.jsonl", "h.jsonl", "--certify"]) == exitcodes.USAGE
    assert "--certify writes the certificate to --out FILE" in capsys.readouterr().err


def test_rows_from_two_judges_are_not_certified_as_one(
    tmp_path: Path, sample: Sample, capsys: pytest.CaptureFixture[str]
) -> None:
    """Row 1's model changed: it is not the judge the file's record names, so it is named."""
    judged = read_jsonl(sample.judged("honest"))
    judged[0]["judge"] = {**judged[0]["judge"], "model": "other"}
    mixed = write_jsonl(tmp_path / "mixed.jsonl", judged)
    shutil.copy(sidecar_path(sample.judged("honest")), sidecar_path(mixed))
    code = main(["agree", str(mixed), str(sample.person), "--certify", "--out", str(tmp_path / "c")])
    err = capsys.readouterr().err
    assert code == exitcodes.JUDGE_LAUNDERED
    assert "1 row(s) carry a judge fingerprint that is not the one 'judge' recorded" in err
    assert '  row 1: model "other" where the certificate has null' in err


def _certificate(tmp_path: Path, sample: Sample) -> Certificate:
    code, out = _certify(tmp_path, sample, "honest")
    assert code == 0
    return read_certificate(out)


def test_a_hand_edited_certificate_counts_for_nothing(tmp_path: Path, sample: Sample) -> None:
    """The tnr counts lowered to 10/20 (lower bound 0.299, by hand above): below its own bar."""
    cert = _certificate(tmp_path, sample)
    tnr = cert["figures"]["criteria"]["tnr"]
    tnr["k"], tnr["n"] = 10, 20
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(cert))
    with pytest.raises(Exception, match="its own counts do not reach its bar: criteria TNR 10/20"):
        read_certificate(edited)


def test_a_file_that_is_not_a_certificate_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"fingerprint": {}}')
    with pytest.raises(Exception, match="not a judge certificate"):
        read_certificate(other)


def test_a_changed_template_or_model_is_named(tmp_path: Path, sample: Sample) -> None:
    cert = _certificate(tmp_path, sample)
    same = dict(cert["fingerprint"])
    assert mismatches(cert["fingerprint"], same) == []
    changed = {**same, "template": "000000000000", "model": "opus"}
    assert mismatches(cert["fingerprint"], changed) == [
        'model "opus" where the certificate has null',
        f'template "000000000000" where the certificate has "{same["template"]}"',
    ]
    assert mismatches(cert["fingerprint"], None) == ["the row records no judge fingerprint"]


@pytest.mark.parametrize(
    "counts", [{"k": "40", "n": 40}, {"k": 41, "n": 40}, {"k": True, "n": 40}, {"k": 40}]
)
def test_a_certificate_with_counts_that_are_not_counts_is_refused(
    tmp_path: Path, counts: dict[str, Any]
) -> None:
    from test_verdicts import FINGERPRINT, certificate_for

    cert: dict[str, Any] = json.loads(json.dumps(certificate_for(FINGERPRINT)))  # a copy to spoil
    cert["figures"]["criteria"]["tpr"] = counts
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(cert))
    with pytest.raises(Exception, match=r"figures must hold whole counts k of n \(0 <= k <= n\)"):
        read_certificate(path)


def test_a_certificate_that_cannot_be_read_or_is_not_json_is_refused_by_path(tmp_path: Path) -> None:
    """A missing file says the system's reason; a file of other text says it is not JSON:
    both name the path, and neither is a traceback."""
    from adhd_evals.errors import InputInvalid

    missing = tmp_path / "gone.json"
    with pytest.raises(InputInvalid, match=rf"{missing}: cannot be read \(No such file or directory\)"):
        read_certificate(missing)
    text = tmp_path / "notes.json"
    text.write_text("certified: yes\n")
    with pytest.raises(InputInvalid, match=rf"{text}: not a judge certificate \(not JSON: "):
        read_certificate(text)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        pytest.param(
            {"fingerprint": {"runner": "judge"}},
            "its fingerprint must name runner, command, model and template",
            id="a fingerprint without command, model and template",
        ),
        pytest.param({"min_lower": 0}, "min_lower must be a number above 0 and at most 1", id="a bar of 0"),
        pytest.param(
            {"min_lower": 1.5}, "min_lower must be a number above 0 and at most 1", id="a bar past 1"
        ),
        pytest.param(
            {"min_lower": True}, "min_lower must be a number above 0 and at most 1", id="a bar of true"
        ),
    ],
)
def test_a_certificate_with_a_broken_fingerprint_or_bar_is_refused(
    tmp_path: Path, change: dict[str, Any], problem: str
) -> None:
    """A certificate must say which judge it certifies (all four parts) and the bar it was
    held to (a lower bound is a fraction: above 0, at most 1); otherwise it certifies nothing."""
    from adhd_evals.errors import InputInvalid
    from test_verdicts import FINGERPRINT, certificate_for

    cert: dict[str, Any] = {**json.loads(json.dumps(certificate_for(FINGERPRINT))), **change}
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(cert))
    with pytest.raises(InputInvalid, match=f"{path}: {problem}"):
        read_certificate(path)


@pytest.mark.parametrize("bar", ["0", "0.01", "0.49", "1.5"])
def test_certify_with_a_bar_outside_half_to_1_is_a_usage_error(
    tmp_path: Path, sample: Sample, capsys: pytest.CaptureFixture[str], bar: str
) -> None:
    out = tmp_path / "judge.cert.json"
    argv = ["agree", str(sample.judged("honest")), str(sample.person), "--certify", "--min-lower", bar]
    assert main([*argv, "--out", str(out)]) == exitcodes.USAGE
    assert f"--min-lower must be a number from 0.5 to 1, not {float(bar):g}" in capsys.readouterr().err
    assert not out.exists()
