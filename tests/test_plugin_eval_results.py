"""score --plugin-eval-results: plugin eval's figures recomputed exactly, then the paired decision.

Expected figures are worked from plugin eval's rules with the runs in
fixtures/plugin-eval/results/two-arm.json (each run's grader outcomes are listed there):

- skill-and-outcome: skill-fired (tool_used Skill) is unscored; uses-area weight 1, names-file
  weight 2. with: 3/3, 2/3, 1/3; without: 2/3, 0, 1/3.
- with-only-note: plugin-note (arm: with-only) is unscored. with: 1, 0, 1; without: 1, 1, 0.
- forced-both: skill-used has arm: both, so both graders score. with: 1, 1/2, 1; without: 1/2, 0, 1/2.
- all-indicators: both graders would be excluded, so both score. with: 1, 1/2, 1; without: 0, 0, 0.

Means are added left to right, as a JavaScript reduce adds them, so each expected float below
is that sum written out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.judging import plugin_results as plugin
from adhd_evals.runs.judging.shapes import PluginSection

RESULTS = Path(__file__).parent.parent / "fixtures" / "plugin-eval" / "results"


def _mean(*values: float) -> float:
    total = 0.0
    for value in values:
        total += value
    return total / len(values)


DELTAS = {
    "skill-and-outcome": _mean(1.0, 2 / 3, 1 / 3) - _mean(2 / 3, 0.0, 1 / 3),
    "with-only-note": _mean(1.0, 0.0, 1.0) - _mean(1.0, 1.0, 0.0),
    "forced-both": _mean(1.0, 0.5, 1.0) - _mean(0.5, 0.0, 0.5),
    "all-indicators": _mean(1.0, 0.5, 1.0) - _mean(0.0, 0.0, 0.0),
}


def _section(name: str) -> PluginSection:
    return plugin.section(plugin.read_results(RESULTS / name))


def test_two_arm_deltas_and_mean_delta_are_reproduced_to_the_last_digit() -> None:
    found = _section("two-arm.json")
    recorded = json.loads((RESULTS / "two-arm.json").read_text())
    cases = {c["name"]: c for c in found["cases"]}
    for case in recorded["cases"]:
        assert cases[case["name"]]["delta"] == DELTAS[case["name"]] == case["aggregates"]["delta"]
        assert repr(cases[case["name"]]["delta"]) == repr(case["aggregates"]["delta"])
    mean_delta = _mean(*DELTAS.values())
    assert found["meanDelta"] == mean_delta == recorded["aggregates"]["meanDelta"]
    withs = (_mean(1.0, 2 / 3, 1 / 3), _mean(1.0, 0.0, 1.0), _mean(1.0, 0.5, 1.0), _mean(1.0, 0.5, 1.0))
    assert found["overallScore"] == _mean(*withs) == recorded["aggregates"]["overallScore"]
    assert found["disagreements"] == []


def _case(graders: list[dict[str, Any]], *, recorded_scored: bool = True) -> plugin.CaseResult:
    names = [str(g["name"]) for g in graders]
    run = plugin.Run(1.0, None, tuple(plugin.GraderResult(n, True, 1.0, recorded_scored) for n in names))
    return plugin.CaseResult("c", {str(g["name"]): g for g in graders}, {"with": [run], "without": [run]}, {})


OUTCOME: dict[str, Any] = {"name": "outcome", "type": "llm", "weight": 1, "config": {}}


@pytest.mark.parametrize(
    ("grader", "unscored"),
    [
        pytest.param(
            {"name": "skill", "type": "tool_used", "config": {"tool": "Skill"}},
            {"skill"},
            id="skill-indicator",
        ),
        pytest.param(
            {"name": "bash", "type": "tool_used", "config": {"tool": "Bash"}}, set(), id="other-tool-scored"
        ),
        pytest.param(
            {"name": "note", "type": "regex", "config": {"arm": "with-only"}}, {"note"}, id="arm-with-only"
        ),
        pytest.param(
            {"name": "skill", "type": "tool_used", "config": {"tool": "Skill", "arm": "both"}},
            set(),
            id="arm-both-forces",
        ),
    ],
)
def test_the_scored_false_rule_grader_by_grader(grader: dict[str, object], unscored: set[str]) -> None:
    """Beside a scored llm grader, in a two-arm run."""
    assert plugin.excluded(_case([grader, OUTCOME]), two_arms=True) == unscored


def test_every_grader_excluded_means_all_are_scored() -> None:
    graders = [
        {"name": "skill", "type": "tool_used", "config": {"tool": "Skill"}},
        {"name": "note", "type": "regex", "config": {"arm": "with-only"}},
    ]
    assert plugin.excluded(_case(graders), two_arms=True) == set()


def test_one_arm_or_ablation_none_excludes_nothing() -> None:
    skill = {"name": "skill", "type": "tool_used", "config": {"tool": "Skill"}}
    assert plugin.excluded(_case([skill, OUTCOME]), two_arms=False) == set()


def test_mock_calls_graders_keep_the_recorded_flag() -> None:
    """Whether every mocked server is the plugin's is not in the file: the recorded flag decides."""
    mock = {"name": "mock", "type": "regex", "config": {"target": "mock_calls"}}
    assert plugin.excluded(_case([mock, OUTCOME], recorded_scored=False), two_arms=True) == {"mock"}
    assert plugin.excluded(_case([mock, OUTCOME]), two_arms=True) == set()


def test_the_file_s_scored_flags_agree_with_the_rule() -> None:
    """Each run's recorded `scored` is what the rule decides, for every grader of every case."""
    results = plugin.read_results(RESULTS / "two-arm.json")
    for case in results.cases:
        unscored = plugin.excluded(case, two_arms=True)
        for runs in case.runs.values():
            for run in runs:
                assert {g.name for g in run.graders if not g.scored} == unscored, case.name


def test_an_errored_run_scores_zero_in_plugin_eval_s_figures_and_is_void_in_the_decision() -> None:
    """errored.json: run 2 of skill-and-outcome's with arm timed out (score 0, no grader results).
    plugin eval's score: (1 + 0 + 1/3) / 3; the paired rows void that trial in both arms."""
    found = _section("errored.json")
    case = found["cases"][0]
    assert case["score"] == _mean(1.0, 0.0, 1 / 3)
    assert found["errored_runs"] == {"with": 1, "without": 0}
    scores, checks = plugin.rows(plugin.read_results(RESULTS / "errored.json"))
    void = [row for row in scores if "void" in row]
    assert [(r["case_id"], r["trial"], r["condition"]) for r in void] == [
        ("skill-and-outcome", 2, "candidate")
    ]
    assert "errored (timeout after 300s)" in void[0]["void"]
    assert {c["status"] for c in checks if c["trial"] == 2 and c["condition"] == "candidate"} >= {"error"}


def test_a_partial_run_says_so_and_voids_the_trial_without_a_partner() -> None:
    """partial.json: a cost ceiling; forced-both has 3 with runs and 2 without: trial 3 is void."""
    found = _section("partial.json")
    assert (found["partial"], found["partial_reason"]) == (True, "cost_ceiling")
    cases = {c["name"]: c for c in found["cases"]}
    assert cases["forced-both"]["delta"] == _mean(1.0, 0.5, 1.0) - _mean(0.5, 0.0)
    scores, _ = plugin.rows(plugin.read_results(RESULTS / "partial.json"))
    assert [(r["case_id"], r["trial"]) for r in scores if "void" in r] == [("forced-both", 3)]


def test_a_recorded_figure_its_runs_do_not_give_is_named() -> None:
    """disagreeing.json records meanDelta 0.25; its two cases give (1/3 + 1/2) / 2."""
    found = _section("disagreeing.json")
    expected = _mean(DELTAS["skill-and-outcome"], DELTAS["forced-both"])
    assert found["meanDelta"] == expected
    assert found["disagreements"] == [f"recorded meanDelta 0.25 but the cases give {expected}"]


@pytest.mark.parametrize(
    ("recorded", "recomputed", "agree"),
    [
        (0.333, 1 / 3, True),
        (0.33, 1 / 3, True),
        (0.334, 1 / 3, False),
        (None, None, True),
        (0.5, None, False),
        (10**400, 0.5, False),  # past a float
    ],
)
def test_a_figure_agrees_to_its_last_printed_digit(
    recorded: float | None, recomputed: float | None, agree: bool
) -> None:
    assert plugin.agrees(recorded, recomputed) is agree


def test_score_gives_the_paired_decision_with_plugin_eval_s_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Four cases, Δ on score's scale four times plugin eval's: +1.67 = 4 x 0.417; three cases
    up and one tied is too few to call better."""
    code = main(["score", "--plugin-eval-results", str(RESULTS / "two-arm.json"), "--gate", "paired"])
    out = capsys.readouterr().out
    assert code == exitcodes.INCONCLUSIVE
    assert "overallScore 0.750, meanDelta +0.417 (as recorded)" in out
    assert "weighted_score   +1.67" in out
    assert "Checks, exact McNemar" in out


def test_score_json_carries_plugin_eval_s_section(capsys: pytest.CaptureFixture[str]) -> None:
    main(["score", "--plugin-eval-results", str(RESULTS / "two-arm.json"), "--json"])
    found = json.loads(capsys.readouterr().out)
    assert found["plugin_eval"]["meanDelta"] == _mean(*DELTAS.values())
    assert {"paired", "reliability", "decision"} <= set(found)


def test_errored_runs_are_stated_in_the_gate(capsys: pytest.CaptureFixture[str]) -> None:
    main(["score", "--plugin-eval-results", str(RESULTS / "errored.json"), "--gate", "paired"])
    out = capsys.readouterr().out
    assert "Errored runs: 1 with the plugin, 0 without" in out
    assert "1 judged row void" in out


def test_single_arm_results_give_figures_and_why_nothing_is_compared(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """single-arm.json (--ablation none): nothing unscored, so skill-and-outcome's with runs
    score (1+1+2)/4, (1+0+2)/4, (1+1+0)/4."""
    code = main(["score", "--plugin-eval-results", str(RESULTS / "single-arm.json")])
    out = capsys.readouterr().out
    assert code == exitcodes.INCONCLUSIVE
    assert plugin.NO_COMPARISON in out
    found = _section("single-arm.json")
    assert found["cases"][0]["score"] == _mean(1.0, 0.75, 0.5)
    main(["score", "--plugin-eval-results", str(RESULTS / "single-arm.json"), "--json"])
    assert json.loads(capsys.readouterr().out)["decision"]["verdict"] == "inconclusive"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        pytest.param("{", "is not JSON", id="not-json"),
        pytest.param('{"schemaVersion": 2, "cases": []}', "schemaVersion: Expected 1", id="schema-version"),
        pytest.param('{"schemaVersion": 1, "cases": []}', "cases: Expected a non-empty list", id="no-cases"),
        pytest.param('{"schemaVersion": 1, "cases": [{"name": ""}]}', "cases[0].name", id="nameless-case"),
        pytest.param(
            '{"schemaVersion": 1, "cases": [{"name": "c", "arms": {"with": [{"score": "1"}]}}]}',
            "cases[0] (c).arms.with[0].score: Expected a number",
            id="score-not-number",
        ),
        pytest.param(
            '{"schemaVersion": 1, "cases": [{"name": "c", "arms": {"with": [{"score": 1, '
            '"graders": [{"name": "g", "passed": "yes", "weight": 1}]}]}}]}',
            "graders[0].passed: Expected true or false",
            id="passed-not-bool",
        ),
        pytest.param(
            '{"schemaVersion": 1, "cases": [{"name": "c", "arms": {"with": [], "without": {}}}]}',
            "arms.without: Expected a list of runs",
            id="without-not-list",
        ),
        pytest.param(
            '{"schemaVersion": 1, "cases": [{"name": "c", "graders": {}, "arms": {"with": []}}]}',
            "cases[0] (c).graders: Expected a list",
            id="case-graders-not-list",
        ),
        pytest.param(
            '{"schemaVersion": 1, "cases": [{"name": "c", "arms": []}]}',
            "cases[0] (c).arms: Expected {with",
            id="arms-not-object",
        ),
        pytest.param(
            '{"schemaVersion": 1, "cases": [{"name": "c", "arms": {"with": [3]}}]}',
            "arms.with[0]: Expected a run object",
            id="run-not-object",
        ),
        pytest.param(
            '{"schemaVersion": 1, "cases": [{"name": "c", "arms": {"with": [{"score": 0, "error": 5}]}}]}',
            "arms.with[0].error: Expected null or the error's text",
            id="error-not-text",
        ),
        pytest.param(
            '{"schemaVersion": 1, "cases": [{"name": "c", "arms": {"with": [{"score": 0, "graders": {}}]}}]}',
            "arms.with[0].graders: Expected a list of grader results",
            id="run-graders-not-list",
        ),
        pytest.param(
            '{"schemaVersion": 1, "cases": [{"name": "c", "arms": {"with": [{"score": 0, "graders": [{}]}]}}]}',
            "arms.with[0].graders[0].name: Expected the grader's name",
            id="grader-without-name",
        ),
    ],
)
def test_a_file_that_is_not_plugin_eval_results_is_refused(
    text: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "aggregate-result.json"
    path.write_text(text)
    assert main(["score", "--plugin-eval-results", str(path)]) == 25
    err = capsys.readouterr().err
    assert "refused (NotPluginEvalResults)" in err and said in err


def test_an_unreadable_results_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "--plugin-eval-results", str(tmp_path / "none.json")]) == 25
    assert "cannot be read" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["score"],
        ["score", "scores.jsonl", "--plugin-eval-results", "r.json"],
        ["score", "--checks", "c.jsonl", "--plugin-eval-results", "r.json"],
    ],
)
def test_scores_and_plugin_eval_results_are_one_or_the_other(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == exitcodes.USAGE


def test_a_recorded_case_figure_its_runs_do_not_give_is_named(tmp_path: Path) -> None:
    """A case recording score 0.5 whose one with run passed its one grader (score 1)."""
    run = {"score": 1, "graders": [{"name": "g", "passed": True, "weight": 1, "scored": True}]}
    data = {
        "schemaVersion": 1,
        "cases": [{"name": "c", "aggregates": {"score": 0.5}, "arms": {"with": [run]}}],
    }
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    assert plugin.section(plugin.read_results(path))["disagreements"] == [
        "case c: recorded score 0.5 but its runs give 1.0"
    ]


def test_a_grader_a_run_never_ran_is_unwritten_not_failed(tmp_path: Path) -> None:
    """Run 1 of the with arm has no result for `judge` (a paid grader skipped)."""
    graders = [{"name": "judge", "type": "llm", "weight": 1, "config": {}}]
    ran = {"score": 1, "graders": [{"name": "judge", "passed": True, "weight": 1, "scored": True}]}
    skipped = {"score": 0, "skippedPaidGraders": True, "graders": []}
    case = {"name": "c", "graders": graders, "arms": {"with": [skipped], "without": [ran]}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"schemaVersion": 1, "cases": [case]}))
    _, checks = plugin.rows(plugin.read_results(path))
    assert [(c["condition"], c["status"]) for c in checks] == [
        ("candidate", "unwritten"),
        ("baseline", "pass"),
    ]


@pytest.mark.long
def test_a_partial_run_is_stated(capsys: pytest.CaptureFixture[str]) -> None:
    main(["score", "--plugin-eval-results", str(RESULTS / "partial.json"), "--gate", "paired"])
    assert "A partial run (cost_ceiling): cases may lack runs." in capsys.readouterr().out


def test_a_run_s_with_only_flag_marks_the_grader_when_its_case_does_not() -> None:
    """The case's graders carry no arm; the runs' results say withOnly for `note`."""
    run = plugin.Run(
        1.0,
        None,
        (
            plugin.GraderResult("note", True, 1.0, False, True),
            plugin.GraderResult("outcome", True, 1.0, True),
        ),
    )
    case = plugin.CaseResult("c", {}, {"with": [run], "without": [run]}, {})
    assert plugin.excluded(case, two_arms=True) == {"note"}
