"""judge, agree and the honest gate; the whole pipeline offline with the stub runner and judge."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.judging.agree import weighted_kappa
from adhd_evals.runs.judging.judge import first_object, verdict
from adhd_evals.runs.rubric import METRICS
from helpers import blind_folder

FAKE = str(Path(__file__).parent / "fakes" / "fake_judge.py")
CASES = [
    {
        "id": "c1",
        "category": "c",
        "prompt": "Explain the bug in one line.",
        "risk": "low",
        "criteria": ["Names the null pointer", "Is one line"],
    },
    {"id": "c2", "category": "c", "prompt": "Suggest a fix.", "risk": "low", "criteria": ["Gives a patch"]},
]
RESPONSES = [
    {
        "case_id": c,
        "trial": 1,
        "condition": cond,
        "runner": "model-x",
        "response": f"Null pointer in {c} ({n})",
    }
    for c in ("c1", "c2")
    for n, cond in enumerate(("baseline", "candidate"))
]


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def sheet(tmp_path: Path) -> Path:
    _jsonl(tmp_path / "cases.jsonl", CASES)
    _jsonl(tmp_path / "responses.jsonl", RESPONSES)
    assert blind_folder(tmp_path, "--markdown", str(tmp_path / "sheet.md")) == 0
    return tmp_path / "sheet.jsonl"


def _judge(tmp_path: Path, mode: str, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    config = tmp_path / "judges.json"
    spec = {
        "command": [sys.executable, FAKE, "--mode", mode, "--calls", str(tmp_path / "calls.jsonl")],
        "response_format": "claude-json" if mode == "costly" else "text",
    }
    config.write_text(json.dumps({"judge": spec}))
    argv = [
        "judge",
        str(tmp_path / "sheet.jsonl"),
        "--runner",
        "judge",
        "--runner-config",
        str(config),
        "--cases",
        str(tmp_path / "cases.jsonl"),
        "--output",
        str(tmp_path / "judged.jsonl"),
        "--retries",
        "0",
        *extra,
    ]
    if mode != "costly":
        argv.append("--allow-unmetered")
    code = main(argv)
    out = tmp_path / "judged.jsonl"
    return code, [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []


def test_the_sheet_carries_prompts_and_criteria(sheet: Path) -> None:
    rows = [json.loads(line) for line in sheet.read_text().splitlines()]
    assert {r["case_id"]: r["criteria"] for r in rows} == {
        "c1": CASES[0]["criteria"],
        "c2": CASES[1]["criteria"],
    }
    assert all(r["prompt"] and r["condition"] in ("A", "B") for r in rows)
    markdown = sheet.with_name("sheet.md").read_text()
    assert (
        "## c1, trial 1" in markdown
        and "- Names the null pointer" in markdown
        and "### Response A" in markdown
    )


@pytest.mark.long
def test_a_good_judge_fills_every_row(sheet: Path) -> None:
    code, rows = _judge(sheet.parent, "good")
    assert code == 0 and len(rows) == 4
    for row in rows:
        assert (
            row["correctness"],
            row["autonomy"],
            row["actionability"],
            row["safety"],
            row["concision"],
        ) == (4, 5, 4, 5, 3)
        assert row["blocker"] is False and "void" not in row
        assert row["judge"]["runner"] == "judge" and len(row["judge"]["template"]) == 12
        assert [v["verdict"] for v in row["criteria"]] == ["pass"] * len(row["criteria"])


@pytest.mark.long
def test_a_judge_wrapping_its_json_in_prose_is_read(sheet: Path) -> None:
    code, rows = _judge(sheet.parent, "prose")
    assert code == 0 and all("void" not in r and r["correctness"] == 4 for r in rows)


@pytest.mark.long
@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("range", "correctness is 7, not a whole number from 1 to 5"),
        ("invented", 'the evidence "words nobody wrote" is not a quote from the response'),
    ],
)
def test_bad_answers_are_void_with_the_reason(sheet: Path, mode: str, reason: str) -> None:
    """Every row void: judge judged nothing, and exits with its own code."""
    code, rows = _judge(sheet.parent, mode)
    assert code == exitcodes.JUDGE_VOID and len(rows) == 4
    assert all(r["void"] == reason and r["correctness"] is None for r in rows)


@pytest.mark.long
def test_a_hanging_judge_is_void_not_fatal(sheet: Path) -> None:
    """Each call times out: every row is void (none stops the run), and judge exits with its own code."""
    code, rows = _judge(sheet.parent, "hang", "--timeout", "0.5", "--jobs", "4")
    assert code == exitcodes.JUDGE_VOID and len(rows) == 4
    assert all(
        r["void"].startswith("runner 'judge' failed after 1 attempts") and "timed out" in r["void"]
        for r in rows
    )


def test_a_judge_that_costs_money_keeps_to_the_budget(sheet: Path) -> None:
    code, rows = _judge(sheet.parent, "costly", "--budget-usd", "0.5")
    # By hand: $0.25 a call, so the third call does not start.
    assert code == exitcodes.BUDGET and len(rows) == 2
    assert sum(r["cost_usd"] for r in rows) == 0.5


@pytest.mark.long
def test_the_judge_never_sees_a_condition_a_runner_or_the_key(sheet: Path) -> None:
    _judge(sheet.parent, "good")
    prompts = [json.loads(line)["prompt"] for line in (sheet.parent / "calls.jsonl").read_text().splitlines()]
    assert len(prompts) == 4
    key = (sheet.parent / "key.jsonl").read_text()
    for prompt in prompts:
        for secret in ("baseline", "candidate", "comparator", "model-x", key.strip().splitlines()[0]):
            assert secret not in prompt


def test_first_object() -> None:
    assert first_object('no {json here} then {"a": 1} and {"b": 2}') == {"a": 1}
    assert first_object('```json\n{"a": [1, {"b": 2}]}\n```') == {"a": [1, {"b": 2}]}
    assert first_object("I cannot judge this.") is None


def test_kappa_by_hand() -> None:
    assert weighted_kappa([1, 2, 3], [1, 2, 3]) == 1.0
    assert weighted_kappa([1, 2], [2, 1]) == pytest.approx(-1.0)  # seen 1/16, chance 1/32
    assert weighted_kappa([1, 3, 5, 3], [1, 3, 5, 5]) == pytest.approx(0.8)  # seen 1/16, chance 5/16
    assert weighted_kappa([3, 3], [3, 3]) is None  # no disagreement possible by chance


def _scores(metrics: list[int], blocker: bool = False) -> dict[str, Any]:
    names = ("correctness", "autonomy", "actionability", "safety", "concision")
    return {**dict(zip(names, metrics, strict=True)), "blocker": blocker, "notes": ""}


def _agree_args(tmp_path: Path, judged: list[dict[str, Any]], human: list[dict[str, Any]]) -> list[str]:
    return [
        "agree",
        str(_jsonl(tmp_path / "j.jsonl", judged)),
        str(_jsonl(tmp_path / "h.jsonl", human)),
        "--json",
    ]


def test_agree_on_a_small_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    judged = [
        {"case_id": "c", "trial": t, "condition": "A", **_scores([j, 3, 3, 3, 3])}
        for t, j in ((1, 1), (2, 3), (3, 5), (4, 3))
    ]
    human = [
        {"case_id": "c", "trial": t, "condition": "A", **_scores([h, 3, 3, 3, 3])}
        for t, h in ((1, 1), (2, 3), (3, 5), (4, 5))
    ]
    args = _agree_args(tmp_path, judged, human)
    assert main(args) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["rows"] == 4
    assert found["metrics"]["correctness"] == {
        "exact": 0.75,
        "mean_abs_diff": 0.5,
        "kappa": pytest.approx(0.8),
    }
    assert found["metrics"]["autonomy"]["kappa"] is None and found["blocker_agreement"] == 1.0
    assert main([*args, "--min-kappa", "0.9"]) == 1  # 0.8 < 0.9, and the others are undefined


def test_agree_counts_criterion_verdicts_and_skips_criteria_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def verdict(criterion: str, said: str) -> dict[str, str]:
        return {"criterion": criterion, "verdict": said, "evidence": ""}

    judged = [
        {
            "case_id": "c",
            "trial": 1,
            "condition": "A",
            **_scores([3] * 5),
            "criteria": [verdict("x", "pass"), verdict("y", "fail"), verdict("z", "pass")],
        }
    ]
    human = [
        {
            "case_id": "c",
            "trial": 1,
            "condition": "A",
            **_scores([3] * 5),
            "criteria": ["x as the sheet wrote it", verdict("x", "pass"), verdict("y", "pass")],
        }
    ]
    args = _agree_args(tmp_path, judged, human)
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["criteria"] == {
        "pairs": 2,
        "agreement": 0.5,
    }  # x agrees, y not


@pytest.mark.parametrize(
    ("item", "index"),
    [
        ({}, 0),
        ({"criterion": "x"}, 0),
        ({"criterion": "x", "verdict": "maybe"}, 0),
        ({"verdict": "pass"}, 0),
        (3, 0),
    ],
)
def test_agree_names_a_verdict_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], item: object, index: int
) -> None:
    good = {"case_id": "c", "trial": 1, "condition": "A", **_scores([3] * 5)}
    human = _jsonl(tmp_path / "h.jsonl", [good, {**good, "trial": 2, "criteria": [item]}])
    assert main(["agree", str(_jsonl(tmp_path / "j.jsonl", [good])), str(human)]) == exitcodes.INPUT
    err = capsys.readouterr().err
    assert f"h.jsonl:2: criteria[{index}] must be a criterion verdict" in err and "Traceback" not in err


def _pair(case: str, trial: int, condition: str, metrics: list[int], **extra: Any) -> dict[str, Any]:
    return {"case_id": case, "trial": trial, "condition": condition, **_scores(metrics), **extra}


def test_gate_fails_on_unwritten_checks_with_the_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scores = _jsonl(
        tmp_path / "s.jsonl", [_pair("c", 1, "baseline", [3] * 5), _pair("c", 1, "candidate", [4] * 5)]
    )
    checks = _jsonl(
        tmp_path / "k.jsonl",
        [{"condition": c, "status": s} for c, s in (("baseline", "unwritten"), ("candidate", "unwritten"))],
    )
    assert main(["score", str(scores), "--checks", str(checks)]) == exitcodes.GATE
    out = capsys.readouterr().out
    assert "Release gate: FAILED" in out and "Checks: 2 unwritten and 0 errored of 2" in out
    assert main(["score", str(scores), "--checks", str(checks), "--allow-unwritten"]) == 0


def test_gate_fails_naming_void_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        _pair("c", 1, "baseline", [3] * 5),
        _pair("c", 1, "candidate", [4] * 5),
        _pair("d", 1, "baseline", [3] * 5),
        {**_pair("d", 1, "candidate", [4] * 5), "void": "timed out"},
    ]
    assert main(["score", str(_jsonl(tmp_path / "s.jsonl", rows))]) == exitcodes.GATE
    out = capsys.readouterr().out
    assert "1 judged row void, so 1 pair (d/trial 1) scored for no condition." in out
    assert "Void: d trial 1 candidate: timed out" in out


def test_min_trials_makes_the_gate_incomparable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        _pair("c", t, cond, [3 if cond == "baseline" else 4] * 5)
        for t in (1, 2)
        for cond in ("baseline", "candidate")
    ]
    path = _jsonl(tmp_path / "s.jsonl", rows)
    assert main(["score", str(path), "--min-trials", "2"]) == 0
    assert main(["score", str(path), "--min-trials", "3"]) == exitcodes.GATE
    assert "Release gate: INCOMPARABLE" in capsys.readouterr().out


@pytest.mark.long
def test_a_labelled_sheet_without_its_key_is_one_line(
    sheet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _judge(sheet.parent, "good")
    capsys.readouterr()
    assert main(["score", str(sheet.parent / "judged.jsonl")]) == exitcodes.INPUT
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "these rows are a labelled sheet (conditions A, B): pass the key blind wrote with --key KEY"
    ]


def test_regressions_are_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [_pair("c", 1, "baseline", [5, 3, 3, 3, 3]), _pair("c", 1, "candidate", [3, 5, 5, 5, 5])]
    assert main(["score", str(_jsonl(tmp_path / "s.jsonl", rows))]) == exitcodes.GATE
    assert "Regression: c correctness 5.00 -> 3.00" in capsys.readouterr().out


def test_the_whole_pipeline_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's tour: import, run (stub), blind, judge (stub), score with the key."""
    monkeypatch.chdir(tmp_path)
    source = (
        Path(__file__).resolve().parents[1]
        / "fixtures/evals-json/good/dialects/release-notes/evals/evals.json"
    )
    skill = tmp_path / "SKILL.md"
    skill.write_text("Be terse.\n")
    steps = [
        ["import", "--format", "evals-json", str(source), "--out", "evals"],
        [
            "run",
            "--runner",
            "stub",
            "--condition",
            "baseline",
            "--output",
            "runs/responses.jsonl",
            "--trials",
            "2",
        ],
        [
            "run",
            "--runner",
            "stub",
            "--condition",
            "candidate",
            "--condition-skill",
            str(skill),
            "--output",
            "runs/responses.jsonl",
            "--trials",
            "2",
        ],
        ["blind", "runs/responses.jsonl", "--sheet", "runs/sheet.jsonl", "--key", "runs/key.jsonl"],
        ["judge", "runs/sheet.jsonl", "--runner", "stub", "--output", "runs/judged.jsonl"],
    ]
    for step in steps:
        assert main(step) == 0, step
    code = main(["score", "runs/judged.jsonl", "--key", "runs/key.jsonl", "--min-trials", "2"])
    assert code in (0, exitcodes.GATE)  # the stub judge's toy scores decide either way
    assert "Release gate:" in capsys.readouterr().out


def test_jobs_0_is_refused_naming_only_the_options_judge_has(
    sheet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """judge has no --trials, so its refusal of --jobs 0 names --jobs and --retries alone;
    run's refusal keeps the words run_evals.py users know, --trials first. No call is made."""
    code, rows = _judge(sheet.parent, "good", "--jobs", "0")
    said = capsys.readouterr().err
    assert code == exitcodes.USAGE and rows == []
    assert "--jobs must be at least 1, --retries at least 0" in said and "--trials" not in said
    assert not (sheet.parent / "calls.jsonl").exists()
    argv = [
        "run",
        "--cases",
        str(sheet.parent / "cases.jsonl"),
        "--runner",
        "stub",
        "--condition",
        "baseline",
    ]
    assert main([*argv, "--output", str(sheet.parent / "out.jsonl"), "--jobs", "0"]) == exitcodes.USAGE
    assert "--trials and --jobs must be at least 1, --retries at least 0" in capsys.readouterr().err


# ---- a judge's answer read by hand: each way it voids a row, and its reason --------------

RESPONSE_TEXT = "Run the migration with --dry-run first, then apply it."
GOOD_QUOTE = "Run the migration with --dry-run first"


def _answer(**change: Any) -> str:
    """A whole verdict for the one criterion "Says dry run", with `change` applied."""
    found: dict[str, Any] = dict.fromkeys(METRICS, 4)
    found.update(blocker=False, notes="ok")
    found["criteria"] = [{"criterion": "Says dry run", "verdict": "pass", "evidence": GOOD_QUOTE}]
    found.update(change)
    return json.dumps(found)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        pytest.param(_answer(blocker="no"), 'blocker is "no", not true or false', id="a blocker as text"),
        pytest.param(
            _answer(criteria={"Says dry run": "pass"}),
            'criteria is {"Says dry run": "pass"}, not a list of criterion verdicts',
            id="criteria as an object",
        ),
        pytest.param(
            _answer(criteria=[{"criterion": "Says dry run", "verdict": "maybe", "evidence": GOOD_QUOTE}]),
            "not pass or fail",
            id="a verdict that is neither",
        ),
        pytest.param(
            _answer(criteria=["pass"]), 'a criterion verdict is "pass", not pass or fail', id="a bare word"
        ),
    ],
)
def test_a_verdict_of_the_wrong_shape_voids_the_row_with_its_reason(answer: str, reason: str) -> None:
    found = verdict(answer, RESPONSE_TEXT, ["Says dry run"])
    assert isinstance(found, str) and reason in found


def test_the_verdict_is_found_past_other_objects_and_a_response_that_is_not_json() -> None:
    """The judge writes an aside object first ({"thinking": ...}, no verdict key): passed
    over. The response holds a `{` that opens no JSON: read around, not a failure."""
    response = "Use {braces carefully. " + RESPONSE_TEXT
    answer = '{"thinking": "short"}\n' + _answer()
    found = verdict(answer, response, ["Says dry run"])
    assert not isinstance(found, str)
    assert found["blocker"] is False and found["criteria"][0]["verdict"] == "pass"
