"""lint and the hook read plugin eval suites: each refusal at its place in its own file, and
warnings plugin eval does not give (positions are the value's line and column, counted by hand)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from adhd_evals.entry import main
from adhd_evals.importing.detect import detect
from adhd_evals.lint import format_of, lint_paths

ROOT = Path(__file__).parent.parent
SUITE = ROOT / "fixtures" / "plugin-eval" / "good" / "suite" / "evals"
HOOK = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))[0]


def _case(folder: Path, case_yaml: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "case.yaml").write_text(case_yaml)
    return folder / "case.yaml"


def test_the_good_suite_lints_clean() -> None:
    """Three case folders, each linted once (full-settings by its case.yaml, not its prompt.md)."""
    report = lint_paths([SUITE])
    assert (report.files, report.cases, report.errors, report.warnings) == (3, 3, 0, 0)


def test_a_refusal_in_a_grader_file_is_placed_in_that_file(tmp_path: Path) -> None:
    """graders/g.md line 2 `type: bash`: the value at column 7."""
    case = tmp_path / "evals" / "c"
    (case / "graders").mkdir(parents=True)
    (case / "prompt.md").write_text("Hi\n")
    (case / "graders" / "g.md").write_text("---\ntype: bash\n---\n")
    [problem] = lint_paths([tmp_path]).problems
    assert (problem.path, problem.line, problem.column, problem.code) == (
        str(case / "graders" / "g.md"),
        2,
        7,
        "CaseFileNotPluginEvalSuite",
    )


def test_a_case_of_indicators_only_is_warned_about(tmp_path: Path) -> None:
    path = _case(
        tmp_path / "evals" / "c",
        "execution:\n  prompt: Hi\ngraders:\n"
        "  - {name: fired, type: tool_used, tool: Skill}\n"
        "  - {name: note, type: regex, pattern: plugin, arm: with-only}\n",
    )
    [problem] = lint_paths([path]).problems
    assert (problem.code, problem.severity, problem.line) == ("PluginEvalIndicatorsOnly", "warning", 1)
    assert "every grader (fired, note) is an indicator" in problem.message


def test_arm_both_is_not_an_indicator(tmp_path: Path) -> None:
    path = _case(
        tmp_path / "evals" / "c",
        "execution:\n  prompt: Hi\ngraders:\n  - {name: fired, type: tool_used, tool: Skill, arm: both}\n",
    )
    assert lint_paths([path]).problems == []


@pytest.mark.parametrize(
    ("match", "effect"),
    [
        ("contains", "it always passes"),
        ("not_contains", "it can never pass"),
        ("count:2", "its count is the text's length plus one"),
    ],
)
def test_a_regex_matching_the_empty_string_is_warned_about(tmp_path: Path, match: str, effect: str) -> None:
    """`pattern: 'x*'` on line 6, its value at column 14."""
    path = _case(
        tmp_path / "evals" / "c",
        "execution:\n  prompt: Hi\ngraders:\n  - name: g\n    type: regex\n"
        f"    pattern: 'x*'\n    match: {match}\n",
    )
    [problem] = lint_paths([path]).problems
    assert (problem.code, problem.line, problem.column) == ("PluginEvalEmptyMatch", 6, 14)
    assert problem.message.endswith(f"under match: {match} {effect}")


def test_an_empty_matching_pattern_in_a_grader_file_is_placed_at_its_start(tmp_path: Path) -> None:
    case = tmp_path / "evals" / "c"
    (case / "graders").mkdir(parents=True)
    (case / "prompt.md").write_text("Hi\n")
    (case / "graders" / "g.md").write_text("---\ntype: regex\n---\na?\n")
    [problem] = lint_paths([tmp_path]).problems
    assert (problem.path, problem.line, problem.code) == (
        str(case / "graders" / "g.md"),
        1,
        "PluginEvalEmptyMatch",
    )


def test_undocumented_keys_are_warned_about_at_their_place(tmp_path: Path) -> None:
    """execution.system's value on line 3, column 11; owner's on line 4, column 8."""
    path = _case(
        tmp_path / "evals" / "c",
        "execution:\n  prompt: Hi\n  system: terse\nowner: me\ncontext:\n  scaffold_script: s.sh\n"
        "graders:\n  - {name: g, type: llm, criteria: Ok.}\n",
    )
    found = [(p.code, p.line, p.column) for p in lint_paths([path]).problems]
    assert found == [("PluginEvalUndocumentedKey", 3, 11), ("PluginEvalUndocumentedKey", 4, 8)]


def test_a_refused_case_gets_no_warnings(tmp_path: Path) -> None:
    path = _case(tmp_path / "evals" / "c", "owner: me\ngraders:\n  - {name: g, type: llm, criteria: Ok.}\n")
    assert [p.code for p in lint_paths([path]).problems] == ["CaseFileNotPluginEvalSuite"]


def test_which_files_are_plugin_eval_cases(tmp_path: Path) -> None:
    """A case.yaml by its keys (one with task: stays a YAML case); a prompt.md beside graders/ (not beside a case.yaml, whose file
    lints the case); any prompt.md named on the command line."""
    plain = _case(tmp_path / "a", "task: Do it\nname: a\n")
    assert format_of(plain, explicit=False) == "yaml"  # a YAML case file that happens to be named so
    both = _case(tmp_path / "b", "graders: []\n")
    (tmp_path / "b" / "prompt.md").write_text("Hi\n")
    assert format_of(both, explicit=False) == "plugin-eval"
    assert format_of(tmp_path / "b" / "prompt.md", explicit=False) is None
    assert format_of(tmp_path / "b" / "prompt.md", explicit=True) == "plugin-eval"
    (tmp_path / "c" / "graders").mkdir(parents=True)
    (tmp_path / "c" / "prompt.md").write_text("Hi\n")
    assert format_of(tmp_path / "c" / "prompt.md", explicit=False) == "plugin-eval"
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "prompt.md").write_text("Hi\n")
    assert format_of(tmp_path / "d" / "prompt.md", explicit=False) is None


def test_import_detects_a_suite_folder() -> None:
    assert detect([SUITE]) == "plugin-eval"


@pytest.mark.parametrize(
    ("path", "matched"),
    [
        ("evals/hello/case.yaml", True),
        ("plugins/p/evals/group/hello/prompt.md", True),
        ("evals/prompt.md", True),
        ("docs/prompt.md", False),
        ("evals/hello/graders/g.md", False),  # linted with its case
    ],
)
def test_the_hook_runs_on_plugin_eval_cases(path: str, matched: bool) -> None:
    assert bool(re.search(HOOK["files"], path)) is matched


def test_the_hook_s_entry_on_a_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _case(
        tmp_path / "evals" / "c",
        "runs: 0\nexecution:\n  prompt: Hi\ngraders:\n  - {name: g, type: llm, criteria: Ok.}\n",
    )
    assert main(["lint", str(path)]) == 1
    assert "case.yaml:1:7: CaseFileNotPluginEvalSuite" in capsys.readouterr().out


def test_survey_does_not_read_plugin_eval(capsys: pytest.CaptureFixture[str]) -> None:
    """plugin eval defines its grader types: nothing for a dialect to say."""
    assert main(["survey", "--format", "plugin-eval", str(SUITE)]) == 2
    assert "plugin-eval's shape is fixed by plugin-eval" in capsys.readouterr().err
