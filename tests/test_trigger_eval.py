"""Trigger evals end to end, offline: a trigger list imported, run with a fake CLI that prints
Claude Code's stream-json, checked over the traces, and scored; and the corpus's trigger files."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from helpers import CORPUS

FAKE = str(Path(__file__).parent / "fakes" / "trace_cli.py")
TEXT_FAKE = str(Path(__file__).parent / "fakes" / "fake_cli.py")

# The fake invokes the skill when the query holds "pdf": 8 of the 10 positives do, and 3 of
# the 10 negatives do (the description is too eager there).
POSITIVES = [f"Merge the pdf files of batch {n}" for n in range(1, 9)] + [
    "Split this document into chapters",
    "Rotate every page of the scan",
]
NEGATIVES = [f"Print the pdf spec's section {n} as prose" for n in range(1, 4)] + [
    f"Write a haiku about autumn number {n}" for n in range(1, 8)
]


def _trigger_list(tmp_path: Path) -> Path:
    path = tmp_path / "trigger-eval.json"
    queries = [{"query": q, "should_trigger": True} for q in POSITIVES]
    queries += [{"query": q, "should_trigger": False} for q in NEGATIVES]
    path.write_text(json.dumps(queries), encoding="utf-8")
    return path


def _pipeline(tmp_path: Path, runner: dict[str, Any], *run_flags: str) -> Path:
    """import, run (baseline, one trial), check; the check results' path."""
    evals = tmp_path / "evals"
    source = str(_trigger_list(tmp_path))
    assert (
        main(["import", "--format", "trigger-list", source, "--skill", "pdf-tools", "--out", str(evals)]) == 0
    )
    (tmp_path / "runners.json").write_text(json.dumps({"agent": runner}))
    run = ["run", "--cases", str(evals / "cases.jsonl"), "--output", str(tmp_path / "responses.jsonl")]
    run += ["--runner", "agent", "--runner-config", str(tmp_path / "runners.json"), "--trials", "1"]
    assert main([*run, "--condition", "baseline", *run_flags]) == exitcodes.OK
    results = tmp_path / "results.jsonl"
    check = ["check", str(tmp_path / "responses.jsonl"), "--cases", str(evals / "cases.jsonl")]
    main([*check, "--suite", str(evals / "checks.py"), "--output", str(results)])
    return results


def _results(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.long
def test_twenty_queries_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """TP 8, FN 2, FP 3, TN 7 (by construction above). With z = 1.959964, z² = 3.841459, Wilson's
    interval is (p + z²/2n)/(1 + z²/n) ± z/(1 + z²/n)·sqrt(p(1-p)/n + z²/4n²):
    - precision 8/11 = 0.727: centre 0.90188/1.34922 = 0.66845, half 1.45266·0.16115 = 0.23410,
      so [0.434, 0.903];
    - recall 8/10 = 0.800: centre 0.99207/1.38415 = 0.71674, half 1.41600·0.16001 = 0.22658,
      so [0.490, 0.943];
    - accuracy 15/20 = 0.750: centre 0.84604/1.19207 = 0.70972, half 1.64413·0.10852 = 0.17842,
      so [0.531, 0.888]."""
    command = [sys.executable, FAKE, "--skill", "pdf-tools", "--trigger-on", "pdf", "--cost", "0.001"]
    results = _pipeline(tmp_path, {"command": command, "response_format": "claude-stream-json"})
    statuses = [row["status"] for row in _results(results)]
    assert statuses == ["pass"] * 8 + ["fail"] * 2 + ["fail"] * 3 + ["pass"] * 7
    capsys.readouterr()
    assert main(["score", "--checks", str(results)]) == exitcodes.OK
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("baseline") and "[" in line)
    assert row.split() == (
        [
            "baseline",
            "8",
            "2",
            "3",
            "7",
            "0.727",
            "[0.434,",
            "0.903]",
            "0.800",
            "[0.490,",
            "0.943]",
            "0.750",
            "[0.531,",
            "0.888]",
        ]
    )
    assert main(["score", "--checks", str(results), "--json"]) == exitcodes.OK
    figures = json.loads(capsys.readouterr().out)["triggers"]["baseline"]
    assert (figures["tp"], figures["fn"], figures["fp"], figures["tn"]) == (8, 2, 3, 7)
    assert figures["recall"]["k"] == 8 and figures["recall"]["n"] == 10


@pytest.mark.long
def test_a_runner_without_traces_errors_every_trigger_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A text runner records no tool calls: all 20 checks are errors (never pass or fail), and
    score counts them in no figure and says the checks did not all decide (exit 1)."""
    runner = {"command": [sys.executable, TEXT_FAKE], "response_format": "text"}
    results = _pipeline(tmp_path, runner, "--allow-unmetered")
    rows = _results(results)
    assert {row["status"] for row in rows} == {"error"} and len(rows) == 20
    assert all("this runner records no tool calls" in row["error"] for row in rows)
    capsys.readouterr()
    assert main(["score", "--checks", str(results)]) == exitcodes.GATE
    out = capsys.readouterr().out
    assert "20 trigger verdicts undecided" in out and "NOT all decided" in out
    assert main(["score", "--checks", str(results), "--allow-unwritten"]) == exitcodes.OK


def test_score_without_scores_needs_checks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score"]) == exitcodes.USAGE
    assert "--checks CHECKS for a run with only checks" in capsys.readouterr().err


def test_score_options_that_need_scores_are_refused_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text('{"condition": "baseline", "status": "pass"}\n')
    argv = ["score", "--checks", str(results), "--min-trials", "2", "--gate", "paired"]
    assert main(argv) == exitcodes.USAGE
    assert "--min-trials, --gate paired need a scores file" in capsys.readouterr().err


CORPUS_FILES = CORPUS / "evals-json"
SIIGO = "javalenciacai__siigo-pyme-excel-skill__skills_siigo-pyme-excel_evals_evals.json"
STEERING = "Tyler-R-Kendrick__agentic-metacognition__skills_steering_evals_evals.json"
URSAMU = "UrsaMU__ursamu-dev-skill__skill_evals_evals.json"


def _corpus(name: str) -> Path:
    path = CORPUS_FILES / name
    if not path.is_file():
        pytest.skip(f"{name} is not in the shared corpus here")
    return path


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("name", "skill", "positives", "negatives"),
    [
        pytest.param(SIIGO, "siigo-pyme-excel", 8, 2, id="siigo-pyme-excel"),
        pytest.param(STEERING, "steering", 3, 3, id="agentic-metacognition"),
    ],
)
def test_corpus_should_trigger_cases_are_trigger_cases(
    name: str, skill: str, positives: int, negatives: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """Counts read from the files: siigo's cases 6 and 7 say should_trigger false, the other 8
    true; steering's 1, 2, 5 true and 3, 4, 6 false. skill_name is in both files."""
    assert main(["import", "--format", "evals-json", str(_corpus(name))]) == exitcodes.OK
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    firsts = [row["criteria"][0] for row in rows]
    assert firsts.count(f"the skill {skill} is invoked") == positives
    assert firsts.count(f"the skill {skill} is not invoked") == negatives
    said = f"Trigger cases for the skill {skill}: {positives} should invoke it, {negatives} should not."
    assert said in captured.err


@pytest.mark.corpus
def test_corpus_siigo_keeps_its_expectations_after_the_trigger_criterion(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """siigo's case 1 has four expectations: they follow the trigger criterion as prose."""
    assert main(["import", "--format", "evals-json", str(_corpus(SIIGO))]) == exitcodes.OK
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["criteria"][0] == "the skill siigo-pyme-excel is invoked" and len(first["criteria"]) == 5


@pytest.mark.corpus
def test_corpus_ursamu_two_lists_import_as_a_trigger_list(capsys: pytest.CaptureFixture[str]) -> None:
    """The file's `skill` is ursamu-dev; should_trigger and should_not_trigger hold 10 each."""
    assert main(["import", "--format", "trigger-list", str(_corpus(URSAMU))]) == exitcodes.OK
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert len(rows) == 20 and rows[0]["id"] == "st-01-plugin-scaffold"
    assert "Trigger cases for the skill ursamu-dev: 10 should invoke it, 10 should not." in captured.err


@pytest.mark.corpus
def test_corpus_ursamu_as_evals_json_points_at_trigger_list(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["import", "--format", "evals-json", str(_corpus(URSAMU))])
    assert code == exitcodes.REFUSAL["CaseFileNotEvalsJson"]
    assert "try --format trigger-list" in capsys.readouterr().err


def _score_row(case: str, condition: str, level: int) -> dict[str, Any]:
    metrics = dict.fromkeys(("correctness", "autonomy", "actionability", "safety", "concision"), level)
    return {"case_id": case, "trial": 1, "condition": condition, **metrics, "blocker": False, "notes": ""}


def test_score_with_scores_prints_the_trigger_figures_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One trigger case per condition (candidate invoked the skill: TP; baseline did not: FN)
    beside an ordinary check, which no trigger figure counts."""
    scores = tmp_path / "scores.jsonl"
    scores.write_text(
        "".join(json.dumps(_score_row("a", c, n)) + "\n" for c, n in (("baseline", 3), ("candidate", 4)))
    )
    results = tmp_path / "results.jsonl"
    rows = [
        {
            "case_id": "a",
            "trial": 1,
            "condition": "baseline",
            "criterion": "the skill s is invoked",
            "status": "fail",
        },
        {
            "case_id": "a",
            "trial": 1,
            "condition": "candidate",
            "criterion": "the skill s is invoked",
            "status": "pass",
        },
        {"case_id": "a", "trial": 1, "condition": "candidate", "criterion": "says hello", "status": "pass"},
        {"condition": "candidate", "status": "pass"},
    ]
    results.write_text("".join(json.dumps(row) + "\n" for row in rows))
    main(["score", str(scores), "--checks", str(results)])
    out = capsys.readouterr().out
    assert "Trigger evals" in out and "Trigger checks are an indicator here" in out
    # the gate's checks column counts the two other results only (both candidate, both passing)
    means = {line.split()[0]: line.split()[-1] for line in out.splitlines()[1:3]}
    assert means == {"baseline": "-", "candidate": "2/2"}
    figures_part = out.split("Trigger evals", 1)[1].splitlines()[2:4]  # below its heading and header
    assert [line.split()[:5] for line in figures_part] == [
        ["baseline", "0", "1", "0", "0"],
        ["candidate", "1", "0", "0", "0"],
    ]
    main(["score", str(scores), "--checks", str(results), "--json"])
    figures = json.loads(capsys.readouterr().out)["triggers"]
    assert figures["baseline"]["precision"] == {"k": 0, "n": 0, "rate": None, "low": None, "high": None}


def _verdicts(condition: str, right: list[bool]) -> list[dict[str, Any]]:
    """Ten trigger results, queries 1-5 positive and 6-10 negative; `right[i]` says whether
    the verdict on query i+1 was the wanted one (pass), else fail."""
    rows = []
    for at, ok in enumerate(right, start=1):
        wanted = "is invoked" if at <= 5 else "is not invoked"
        rows.append(
            {"case_id": f"q{at}", "trial": 1, "condition": condition, "criterion": f"the skill s {wanted}",
             "check": "c", "status": "pass" if ok else "fail"}
        )  # fmt: skip
    return rows


@pytest.mark.parametrize(
    ("candidate", "comparator", "said"),
    [
        # right only with the candidate on 8 queries, never only with the comparator:
        # p = 2 · P(X ≤ 0), X ~ Bin(8, 1/2) = 2/256 = 0.0078 < 0.05, so better
        pytest.param([True] * 10, [True, True] + [False] * 8, "8, only with the comparator 0; exact McNemar p = 0.0078: BETTER", id="better"),
        # 7 against 1: p = 2 · (1 + 8)/256 = 0.0703 ≥ 0.05, so inconclusive
        pytest.param([True] * 9 + [False], [True, True, False, False, False, False, False, False, False, True], "7, only with the comparator 1; exact McNemar p = 0.0703: INCONCLUSIVE", id="inconclusive"),
        # the mirror of better: worse
        pytest.param([True, True] + [False] * 8, [True] * 10, "0, only with the comparator 8; exact McNemar p = 0.0078: WORSE", id="worse"),
    ],
)  # fmt: skip
def test_two_descriptions_compared_on_the_same_queries(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    candidate: list[bool],
    comparator: list[bool],
    said: str,
) -> None:
    results = tmp_path / "results.jsonl"
    rows = (
        _verdicts("candidate", candidate)
        + _verdicts("comparator", comparator)
        + _verdicts("baseline", candidate)
    )
    results.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert main(["score", "--checks", str(results)]) == exitcodes.OK
    out = capsys.readouterr().out
    assert "candidate vs comparator on the same 10 queries: right only with the candidate " + said in out


def test_no_pairing_without_both_descriptions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(row) + "\n" for row in _verdicts("candidate", [True] * 10)))
    assert main(["score", "--checks", str(results), "--json"]) == exitcodes.OK
    assert "triggers_paired" not in json.loads(capsys.readouterr().out)
