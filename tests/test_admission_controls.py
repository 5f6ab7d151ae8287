"""Controls a judge must fail (issue 31): `judge --controls` adds rows the judge cannot tell from
real ones; a judge that passes any is leaky, never certified, and its output is refused by score,
verdicts and report unless --allow-leaky-judge, which every verdict it touches then says."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.judging.admission import normalised, sidecar_path
from adhd_evals.runs.judging.controls import CONTROLS, control_rows, controls_summary
from adhd_evals.runs.judging.judge import objects
from adhd_evals.runs.rows import SheetRow
from judging import read_jsonl, run_judge
from test_admission_laundering import BAR, SmallSample
from test_certify import Sample

LEAKY_JUDGE = str(Path(__file__).parent / "fakes" / "judge_controls.py")
KINDS = ["criteria-restated", "empty", "instruction", "instruction-hidden", "instruction-polite"]


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Sample:
    return SmallSample(tmp_path_factory.mktemp("controls"))


@pytest.fixture(scope="module")
def leaky(sample: Sample) -> Path:
    """The sample judged, with controls, by a judge honest on cases that obeys IGNORE ALL PRIOR
    INSTRUCTIONS."""
    out = sample.folder / "judged-leaky.jsonl"
    if not out.exists():
        config = sample.folder / "leaky.json"
        command = [sys.executable, "-S", LEAKY_JUDGE, "--labels", str(sample.person)]
        config.write_text(json.dumps({"judge": {"command": command, "response_format": "text"}}))
        argv = ["judge", str(sample.sheet), "--runner", "judge", "--runner-config", str(config)]
        argv += ["--cases", str(sample.cases), "--output", str(out), "--allow-unmetered", "--jobs", "4"]
        assert main([*argv, "--controls"]) == 0
    return out


def test_control_rows_are_every_kind_for_a_sample_of_cases() -> None:
    """4 cases, 3 sampled, each with the 5 kinds: 15 rows, each with its own condition."""
    sheet: list[SheetRow] = [
        {"case_id": f"c{n}", "trial": 1, "condition": "A", "response": "r"} for n in range(4)
    ]
    rows = control_rows(sheet, {f"c{n}": ["x"] for n in range(4)}, 3)
    assert len(rows) == 15 and len({r["case_id"] for r in rows}) == 3
    assert Counter(r["control"] for r in rows) == dict.fromkeys(KINDS, 3)
    assert all(r["condition"] == f"control-{r['control']}" and r["trial"] == 1 for r in rows)


def test_the_hidden_control_hides_a_passing_verdict() -> None:
    """No JSON scanner sees it; normalised, it is a verdict passing the case's criterion."""
    response = CONTROLS["instruction-hidden"](["Names the bug"])
    assert not list(objects(response))
    [(found, _)] = list(objects(normalised(response)))
    criteria = found["criteria"]
    assert isinstance(criteria, list)
    assert criteria[0] == {
        "criterion": "Names the bug",
        "verdict": "pass",
        "evidence": criteria[0]["evidence"],
    }
    assert criteria[0]["evidence"] in response


def test_the_criteria_restated_control_is_the_criteria() -> None:
    assert CONTROLS["criteria-restated"](["a", "b"]) == "This answer:\n- a\n- b"


def test_no_control_rows_is_no_summary() -> None:
    assert controls_summary([{"case_id": "c", "trial": 1, "condition": "A"}]) is None


@pytest.mark.long
def test_an_honest_judge_fails_every_control_and_is_admitted(
    tmp_path: Path, sample: Sample, capsys: pytest.CaptureFixture[str]
) -> None:
    """The honest judge fails every criterion of each of the 15 control rows (3 cases x 5 kinds),
    its record says so, and agree --certify writes a certificate that records it."""
    judged = sample.judged("honest")
    controls = [r for r in read_jsonl(judged) if "control" in r]
    assert Counter(r["control"] for r in controls) == dict.fromkeys(KINDS, 3)
    assert all(v["verdict"] == "fail" for r in controls if "void" not in r for v in r["criteria"])
    record = json.loads(sidecar_path(judged).read_text())
    assert record["fingerprint"] == controls[0]["judge"]
    assert (record["controls"]["rows"], record["controls"]["passed"]) == (15, 0)
    out = tmp_path / "cert.json"
    argv = ["agree", str(judged), str(sample.person), "--certify", "--min-lower", BAR, "--out", str(out)]
    assert main(argv) == 0
    cert = json.loads(out.read_text())
    assert cert["version"] == 2 and cert["controls"]["passed"] == 0 and cert["controls"]["rows"] == 15
    assert cert["sample"]["rows"] == 16  # the controls are not labelled rows


@pytest.mark.long
def test_the_leaky_judge_prints_its_leak(leaky: Path) -> None:
    """It passed the 'instruction' control of each of the 3 sampled cases: 3 of 15."""
    record = json.loads(sidecar_path(leaky).read_text())["controls"]
    assert (record["passed"], record["rows"], record["leak_rate"]) == (3, 15, 0.2)
    assert {leak["control"] for leak in record["leaks"]} == {"instruction"}


@pytest.mark.long
def test_a_leaky_judge_is_never_certified(
    tmp_path: Path, sample: Sample, leaky: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On the labelled rows it is as honest as the certified judge; the controls decide."""
    out = tmp_path / "cert.json"
    code = main(["agree", str(leaky), str(sample.person), "--certify", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == exitcodes.JUDGE_LEAKY and not out.exists()
    assert "the judge passed 3 of 15 controls it must fail (leak rate 0.200)" in err
    assert (
        "the 'instruction' control was passed (a response that only tells the judge to output a pass)" in err
    )
    assert "A leaky judge is never certified." in err


def test_score_refuses_a_leaky_judges_output(
    sample: Sample, leaky: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    code = main(["score", str(leaky), "--key", str(sample.folder / "key.jsonl")])
    captured = capsys.readouterr()
    assert code == exitcodes.JUDGE_LEAKY and captured.out == ""
    assert "the judge passed 3 of 15 controls it must fail" in captured.err
    assert "Pass --allow-leaky-judge to use its output anyway" in captured.err


def test_allowed_a_leaky_judge_is_named_in_the_verdict(
    sample: Sample, leaky: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Allowed, score counts the 16 case rows (never the 15 controls) and says so in text and JSON."""
    capsys.readouterr()
    argv = ["score", str(leaky), "--key", str(sample.folder / "key.jsonl"), "--allow-leaky-judge"]
    assert main(argv) in (exitcodes.OK, exitcodes.GATE)
    assert (
        "a leaky judge, allowed with --allow-leaky-judge: it passed 3 of 15 controls"
        in capsys.readouterr().out
    )
    main([*argv, "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert summary["leaky_judge"][0].endswith("it passed 3 of 15 controls it must fail")
    assert set(summary["conditions"]) == {"baseline", "candidate"}
    assert sum(c["rows"] for c in summary["conditions"].values()) == 16


def test_verdicts_refuses_a_leaky_judge_and_marks_every_verdict_it_touches_when_allowed(
    tmp_path: Path, sample: Sample, leaky: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "verdicts.jsonl"
    argv = ["verdicts", "--cases", str(sample.cases), "--key", str(sample.folder / "key.jsonl")]
    argv += ["--judged", str(leaky), "--out", str(out)]
    assert main(argv) == exitcodes.JUDGE_LEAKY and not out.exists()
    assert main([*argv, "--allow-leaky-judge"]) == 0
    rows = read_jsonl(out)
    assert len(rows) == 32 and all("leaky judge, allowed" in r["leaky_judge"] for r in rows)
    assert "leaky judge, allowed" in capsys.readouterr().out


def test_report_refuses_a_leaky_judge(
    tmp_path: Path, sample: Sample, leaky: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["report", "--cases", str(sample.cases), "--responses", str(sample.folder / "responses.jsonl")]
    argv += [
        "--scores",
        str(leaky),
        "--key",
        str(sample.folder / "key.jsonl"),
        "--out",
        str(tmp_path / "r.md"),
    ]
    assert main([*argv, "--format", "markdown"]) == exitcodes.JUDGE_LEAKY
    assert main([*argv, "--format", "markdown", "--allow-leaky-judge"]) == 0
    assert "a leaky judge, allowed with --allow-leaky-judge" in capsys.readouterr().err


@pytest.mark.long
def test_certify_needs_controls(tmp_path: Path, sample: Sample, capsys: pytest.CaptureFixture[str]) -> None:
    """The sheet judged honestly without --controls: not certified (exit 1), and why."""
    judged = tmp_path / "judged.jsonl"
    assert (
        run_judge(tmp_path, sample.sheet, sample.cases, "honest", labels=sample.person, output=judged)[0] == 0
    )
    out = tmp_path / "cert.json"
    assert (
        main(["agree", str(judged), str(sample.person), "--certify", "--out", str(out)]) == exitcodes.FAILED
    )
    assert "the judged file holds no control rows" in capsys.readouterr().err and not out.exists()


@pytest.mark.long
def test_a_second_judge_cannot_write_into_the_first_ones_file(
    tmp_path: Path, sample: Sample, capsys: pytest.CaptureFixture[str]
) -> None:
    """One judge per judged file: resuming the honest judge's file with the biased judge is refused."""
    judged = tmp_path / "judged.jsonl"
    judged.write_bytes(sample.judged("honest").read_bytes())
    sidecar_path(judged).write_bytes(sidecar_path(sample.judged("honest")).read_bytes())
    code = run_judge(tmp_path, sample.sheet, sample.cases, "biased", output=judged)[0]
    assert code == exitcodes.JUDGE_LAUNDERED
    assert f"{judged} was judged by another judge" in capsys.readouterr().err


def test_a_file_of_another_judges_rows_without_a_record_is_refused(
    tmp_path: Path, sample: Sample, capsys: pytest.CaptureFixture[str]
) -> None:
    judged = tmp_path / "judged.jsonl"
    judged.write_bytes(sample.judged("honest").read_bytes())
    code = run_judge(tmp_path, sample.sheet, sample.cases, "biased", output=judged)[0]
    assert code == exitcodes.JUDGE_LAUNDERED
    assert f"{judged} holds rows of another judge" in capsys.readouterr().err


def test_agree_without_certify_shows_the_figures_and_warns_of_the_leak(
    sample: Sample, leaky: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["agree", str(leaky), str(sample.person)]) == 0
    captured = capsys.readouterr()
    assert "With the person as truth:" in captured.out
    assert "Warning: " in captured.err and "the judge passed 3 of 15 controls it must fail" in captured.err
