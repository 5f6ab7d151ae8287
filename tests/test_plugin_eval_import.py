"""import --format plugin-eval: case folders into the catalog, each grader one criterion.

The good suite (fixtures/plugin-eval/good/suite/evals) holds every grader type and option the
documentation names; each expectation below is read off those files by the rules in
docs/plugin-eval.md. Each bad folder holds one refusal; its fixture.json names the code, the
file, the field and the position (line and column of the value, 1-based, counted by hand).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from adhd_evals.importing.formats.plugin_eval import read
from adhd_evals.importing.formats.plugin_eval.graders import carried_grader
from adhd_evals.importing.importer import read_source
from adhd_evals.importing.model import Case, CheckKind, Refusal, RefusalCode
from adhd_evals.importing.vocabulary import not_regex, regex, regex_count

FIXTURES = Path(__file__).parent.parent / "fixtures" / "plugin-eval"
SUITE = FIXTURES / "good" / "suite" / "evals"
BAD = sorted(p for p in (FIXTURES / "bad").iterdir() if p.is_dir())


def _cases() -> dict[str, Case]:
    return {case.id: case for case in read_source("plugin-eval", SUITE).cases}


def test_every_case_folder_is_one_case_groups_and_plain_folders_aside() -> None:
    """Three case folders (regex-graders, agent-graders, setup/full-settings); not-a-case holds
    neither file and is passed over; cases come sorted by folder path."""
    assert list(_cases()) == ["agent-graders", "regex-graders", "full-settings"]


def test_ids_categories_and_prompts() -> None:
    """full-settings: its name from prompt.md (which wins over case.yaml's), its category the
    group folder `setup`, its prompt prompt.md's body as written (a blank line first);
    regex-graders: category its first tag, prompt execution.prompt."""
    cases = _cases()
    full, regexes = cases["full-settings"], cases["regex-graders"]
    assert (full.category, full.prompt) == ("setup", "\nWhat does this project do?\n")
    assert (regexes.category, regexes.prompt) == ("regex", "List the files you changed, one per line.\n")
    assert cases["agent-graders"].category == "agents"


def test_a_case_without_name_tags_or_group_takes_its_folder_and_the_suite_s_owner(tmp_path: Path) -> None:
    """No name: the id is the folder's path; no group, no tag: the category is the folder the
    suite folder `evals` sits in."""
    case = tmp_path / "my-plugin" / "evals" / "hello"
    case.mkdir(parents=True)
    (case / "case.yaml").write_text(
        "execution:\n  prompt: Hi\ngraders:\n  - {name: g, type: llm, criteria: Greets.}\n"
    )
    found = read_source("plugin-eval", tmp_path / "my-plugin" / "evals").cases[0]
    assert (found.id, found.category, found.criteria) == ("hello", "my-plugin", ["Greets."])


def test_category_option_overrides_every_rule() -> None:
    cases = read_source("plugin-eval", SUITE, category="ops").cases
    assert {case.category for case in cases} == {"ops"}


def test_regex_graders_on_the_final_message_are_checks_with_javascript_s_meaning() -> None:
    """Each criterion states the pattern, flags, match, weight and arm; the check is the
    translated pattern (m: ^ after any line terminator; s: . takes newlines; i: ASCII letters)."""
    checks = {c.criterion.split(":")[0]: c for c in _cases()["regex-graders"].checks}
    assert (
        checks["mentions-readme"].criterion == "mentions-readme: /README\\.md/ is found in the final message"
    )
    assert checks["no-todo"].kind is CheckKind.NOT_REGEX
    assert (
        checks["two-bullets"].criterion == "two-bullets: /^- /m is found exactly 2 times in the final message"
    )
    assert checks["says-done"].criterion.endswith("/done/i is found in the final message (weight 2)")
    assert checks["spans-lines"].criterion.endswith("(arm: with-only)")
    two = checks["two-bullets"]
    assert two.kind is CheckKind.REGEX_COUNT
    assert regex_count("- a\r- b\n", two.args[0], two.args[1])  # \r ends a line in JavaScript
    assert not regex_count("- a - b", two.args[0], two.args[1])
    assert regex("DONE", checks["says-done"].args[0], ignore_case=False)
    assert regex("start\nend", checks["spans-lines"].args[0], ignore_case=False)
    assert not_regex("all fine", checks["no-todo"].args[0], ignore_case=False)


def test_graders_needing_more_than_the_message_are_placeholders_carrying_the_grader() -> None:
    """trace, files, a file and mock_calls targets; file_exists and baseline: each says what it
    needs, and its argument holds the grader as written (tool_used and tool_order become trace
    checks: tests/test_plugin_traces_import.py)."""
    cases = _cases()
    wanted = {
        "tool-output": "needs the run's trace",
        "report-written": "needs the files the run wrote",
        "changelog-entry": "needs a file the run wrote",
        "mock-called": "needs the run's mocked MCP calls",
        "d-config-created": "needs the files the run created",
        "f-as-good-as-reference": "needs a reference transcript and a judge",
    }
    checks = {c.criterion.split(":")[0]: c for case in cases.values() for c in case.checks}
    for name, needs in wanted.items():
        check = checks[name]
        assert check.kind is CheckKind.UNWRITTEN and check.criterion.endswith(f"({needs})"), name
        grader = carried_grader(check.args[0])
        assert grader is not None and grader["name"] == name
    assert carried_grader(checks["mock-called"].args[0]) == {
        "name": "mock-called",
        "type": "regex",
        "target": "mock_calls",
        "pattern": "create_issue",
        "arm": "both",
    }


def test_llm_graders_are_prose_criteria_their_rubric_verbatim() -> None:
    """An llm grader's rubric (case.yaml's criteria; a grader file's body, trimmed) is the criterion."""
    cases = _cases()
    assert cases["full-settings"].criteria[0] == "The reply answers the question."
    explains = cases["agent-graders"].checks[6]
    assert explains.criterion == "The reply lists each setup step in the order it ran."
    assert explains.kind is CheckKind.UNWRITTEN
    assert carried_grader(explains.args[0]) == {
        "name": "g-explains-steps",
        "type": "llm",
        "focus": "trace",
        "weight": 3,
        "criteria": explains.criterion,
    }


def test_graders_come_inline_first_then_files_by_name() -> None:
    """full-settings: case.yaml's `answers`, then graders/mentions-purpose.md; a pattern in a
    grader file's body is trimmed (h-pattern-in-body: `set ?up`)."""
    cases = _cases()
    assert [c.criterion.split(":")[0] for c in cases["full-settings"].checks][1] == "mentions-purpose"
    assert (
        cases["agent-graders"].criteria[-1] == "h-pattern-in-body: /set ?up/i is found in the final message"
    )


def test_run_settings_are_notes_and_prompt_md_s_win_over_case_yaml_s() -> None:
    """Every key but name, prompt and graders is kept; prompt.md's keys are noted under their
    own label; execution.prompt, overridden by prompt.md's body, is kept too."""
    notes = {n.key: n.value for n in _cases()["full-settings"].notes}
    assert notes["runs"] == 5 and notes["prompt.md runs"] == 2
    assert notes["execution.prompt"] == "This prompt is overridden by prompt.md's body."
    assert notes["context.add_dirs"] == ["fixtures"]
    assert notes["prompt.md env"] == {"EVAL_MODE": "fast", "EVAL_2": "yes"}
    assert notes["prompt.md max_turns"] == 200 and notes["prompt.md timeout_seconds"] == 3600


def test_undocumented_case_yaml_keys_are_notes_with_a_remark(tmp_path: Path) -> None:
    case = tmp_path / "evals" / "c"
    case.mkdir(parents=True)
    (case / "case.yaml").write_text(
        "execution:\n  prompt: Hi\n  system: Be terse.\nowner: me\ngraders:\n  - {name: g, type: llm, criteria: Ok.}\n"
    )
    notes = read_source("plugin-eval", tmp_path / "evals").cases[0].notes
    assert [(n.key, n.remark) for n in notes] == [
        ("execution.system", "not a key plugin eval documents; kept as written"),
        ("owner", "not a key plugin eval documents; kept as written"),
    ]


def test_the_summary_counts_graders_by_type() -> None:
    """regex 11 (9 in regex-graders, h-pattern-in-body, mentions-purpose), tool_used 2,
    file_exists 2, llm 2, tool_order 1, baseline 1."""
    from adhd_evals.importing.summary import import_summary

    lines = import_summary(read_source("plugin-eval", SUITE))
    assert (
        "plugin eval graders, by type: regex 11, tool_used 2, file_exists 2, llm 2, tool_order 1, baseline 1."
        in lines
    )


def test_an_exported_risk_tag_is_read_back(tmp_path: Path) -> None:
    """`adhd-evals:risk=high` sets the case's risk; it is not the category."""
    case = tmp_path / "evals" / "c"
    case.mkdir(parents=True)
    (case / "prompt.md").write_text("---\ntags: [adhd-evals:risk=high, docs]\n---\nHi\n")
    (case / "graders").mkdir()
    (case / "graders" / "g.md").write_text("---\ntype: llm\n---\nOk.\n")
    found = read_source("plugin-eval", tmp_path / "evals").cases[0]
    assert (found.risk, found.category) == ("high", "docs")


def test_a_case_folder_or_file_is_a_suite_of_one() -> None:
    folder = SUITE / "regex-graders"
    assert [c.id for c in read_source("plugin-eval", folder).cases] == ["regex-graders"]
    assert [c.id for c in read_source("plugin-eval", folder / "case.yaml").cases] == ["regex-graders"]


def test_a_missing_source_is_unreadable(tmp_path: Path) -> None:
    with pytest.raises(Refusal) as caught:
        read_source("plugin-eval", tmp_path / "nothing")
    assert caught.value.code is RefusalCode.FILE_UNREADABLE


@pytest.mark.parametrize("folder", BAD, ids=[p.name for p in BAD])
def test_each_refusal_names_file_case_field_and_position(folder: Path) -> None:
    expected = json.loads((folder / "fixture.json").read_text())
    with pytest.raises(Refusal) as caught:
        read_source("plugin-eval", folder / "evals", display="evals")
    refusal = caught.value
    assert refusal.code.value == expected["code"]
    assert refusal.file == ("evals/" + expected["file"]).rstrip("/")
    assert refusal.field_path == expected["field"]
    assert (refusal.line, refusal.column) == (expected["line"], expected["column"])
    if expected["code"] == "CaseFileNotPluginEvalSuite":
        assert refusal.exit_code == 24
        assert re.match(r"case [a-z]", refusal.case or "")


def test_lint_s_reader_collects_every_refused_case(tmp_path: Path) -> None:
    """Two bad cases and a good one: two refusals, three cases counted, the good one's id."""
    from adhd_evals.importing.formats._common import ReadOptions
    from adhd_evals.importing.formats.plugin_eval import problems

    for name, runs in (("a", 0), ("b", 1), ("c", 99)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "case.yaml").write_text(
            f"runs: {runs}\nexecution:\n  prompt: Hi\ngraders:\n  - {{name: g, type: llm, criteria: Ok.}}\n"
        )
    found = problems(tmp_path, display="evals", options=ReadOptions(risk="low"))
    assert (found.cases, [r.file for r in found.refusals], found.ids) == (
        3,
        ["evals/a/case.yaml", "evals/c/case.yaml"],
        ["b"],
    )


def test_the_strict_reader_stops_at_the_first(tmp_path: Path) -> None:
    from adhd_evals.importing.formats._common import ReadOptions

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "prompt.md").write_text("no front matter, no grader\n")
    with pytest.raises(Refusal) as caught:
        read(tmp_path, display="evals", options=ReadOptions(risk="low"))
    assert caught.value.field_path == "graders"
