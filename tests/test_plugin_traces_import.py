"""plugin eval's tool_used and tool_order graders imported as the trace checks of
tracehelpers.py, where those mean what plugin eval's graders mean, and written back by the
export as the same graders.

Each expected check below is worked from the rules: tool_used(tool, input_match, min, max)
reads plugin eval's keys one for one (min 1 and max none are both sides' defaults, so only the
keys the grader writes become arguments); tool_order(before, after) takes a name, or
[name, input_match] for plugin eval's {tool, input_match}. A criterion is `NAME: TYPE
{settings as written}` followed by `(weight W)` and `(arm: A)` when the grader has them. What
has no exact counterpart stays a placeholder carrying the grader, with the reason in its
criterion.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adhd_evals.importing import checkgen
from adhd_evals.importing.export import Mechanical, suite_checks
from adhd_evals.importing.formats.plugin_eval.export import export_suite, write_suite
from adhd_evals.importing.formats.plugin_eval.graders import (
    carried_grader,
    check_of,
    trace_grader_of,
    validate,
)
from adhd_evals.importing.formats.plugin_eval.lint import is_indicator
from adhd_evals.importing.importer import read_source
from adhd_evals.importing.model import Case, Check, CheckKind, ImportResult
from helpers import CORPUS

CORPUS_SUITES = CORPUS.parent / "plugin-eval"


def test_tool_used_with_every_option_is_a_tool_used_check() -> None:
    """tool Bash, input_match git\\s+push, min 0, max 0 ("never"): the same four arguments;
    weight and arm ride in the criterion after the settings, as a regex grader's do."""
    check = check_of(
        {
            "name": "never-pushed",
            "type": "tool_used",
            "tool": "Bash",
            "input_match": "git\\s+push",
            "min": 0,
            "max": 0,
            "weight": 2,
            "arm": "with-only",
        }
    )
    assert check == Check(
        'never-pushed: tool_used {"tool": "Bash", "input_match": "git\\\\s+push", "min": 0, "max": 0}'
        " (weight 2) (arm: with-only)",
        CheckKind.TOOL_USED,
        ("Bash",),
        (("input_match", "git\\s+push"), ("min", 0), ("max", 0)),
        "plugin-eval tool_used",
    )


def test_tool_used_with_the_tool_alone_keeps_both_defaults() -> None:
    """No min, no max: plugin eval's defaults (at least once, no upper bound) are
    tool_used's, so no option is written."""
    check = check_of({"name": "fired", "type": "tool_used", "tool": "Skill"})
    assert (check.kind, check.args, check.options) == (CheckKind.TOOL_USED, ("Skill",), ())
    assert check.criterion == 'fired: tool_used {"tool": "Skill"}'


def test_tool_used_min_alone_and_max_alone_are_kept_as_given() -> None:
    low = check_of({"name": "g", "type": "tool_used", "tool": "Read", "min": 2})
    high = check_of({"name": "g", "type": "tool_used", "tool": "Read", "max": 3})
    assert (low.options, high.options) == ((("min", 2),), (("max", 3),))


@pytest.mark.parametrize(
    ("before", "after", "args"),
    [
        ("Read", "Edit", ("Read", "Edit")),
        ("Read", {"tool": "Edit", "input_match": "config"}, ("Read", ["Edit", "config"])),
        ({"tool": "Read"}, {"tool": "Edit"}, ("Read", "Edit")),
    ],
    ids=["names", "a-step-with-input-match", "steps-with-the-tool-alone"],
)
def test_tool_order_steps_become_names_or_name_and_pattern(
    before: Any, after: Any, args: tuple[Any, ...]
) -> None:
    """A {tool} step is its name; a {tool, input_match} step is [name, input_match]."""
    check = check_of({"name": "order", "type": "tool_order", "before": before, "after": after, "weight": 0.5})
    assert (check.kind, check.args, check.options) == (CheckKind.TOOL_ORDER, args, ())
    assert check.criterion.startswith("order: tool_order {") and check.criterion.endswith("} (weight 0.5)")


def _reason(grader: dict[str, Any]) -> str:
    check = check_of(validate(grader))
    assert check.kind is CheckKind.UNWRITTEN
    assert carried_grader(check.args[0]) == grader  # the export writes it back as it was
    return check.criterion.split("} (", 1)[1].removesuffix(")")  # after the settings


def test_a_key_tool_used_does_not_read_keeps_the_placeholder() -> None:
    """plugin eval documents no `target` for tool_used; tool_used has no such argument, so
    what it would mean is not the check's to guess."""
    grader = {"name": "g", "type": "tool_used", "tool": "Bash", "target": "trace"}
    assert _reason(grader) == "no trace check says the same: tool_used has no target"


def test_an_input_match_python_reads_otherwise_keeps_the_placeholder() -> None:
    """`[\\S]`: tracehelpers cannot say "not JavaScript's whitespace" inside a class."""
    grader = {"name": "g", "type": "tool_used", "tool": "Bash", "input_match": "[\\S]"}
    assert _reason(grader).startswith("no trace check says the same: its input_match /[\\S]/ reads otherwise")


def test_an_inline_flag_javascript_refuses_keeps_the_placeholder() -> None:
    """`(?i)` is a syntax error in JavaScript (plugin eval has no flags for input_match);
    Python would read it as ignoring case: not the same meaning."""
    grader = {"name": "g", "type": "tool_used", "tool": "Bash", "input_match": "(?i)git"}
    assert _reason(grader).startswith("no trace check says the same: its input_match /(?i)git/")


@pytest.mark.parametrize(
    ("after", "reason"),
    [
        ({"tool": "Edit", "max": 1}, "tool_order has no after.max"),
        ({"tool": "Edit", "input_match": 3}, "its after.input_match 3 is not a regex"),
        ({"tool": "Edit", "input_match": "[]"}, "its after.input_match /[]/ reads otherwise"),
    ],
    ids=["a-step-key", "a-pattern-not-text", "a-pattern-python-reads-otherwise"],
)
def test_a_tool_order_step_without_a_counterpart_keeps_the_placeholder(
    after: dict[str, Any], reason: str
) -> None:
    """A step is a name or {tool, input_match}: any other key, or a pattern that is not a
    JavaScript regex Python reads the same (`[]` matches nothing in JavaScript), stays."""
    grader = {"name": "g", "type": "tool_order", "before": "Read", "after": after}
    assert _reason(grader).startswith(f"no trace check says the same: {reason}")


def test_a_before_step_is_judged_as_the_after_one() -> None:
    grader = {"name": "g", "type": "tool_order", "before": {"tool": "Read", "x": 1}, "after": "Edit"}
    assert _reason(grader) == "no trace check says the same: tool_order has no before.x"


@pytest.mark.parametrize("grader", [{"path": "**/config.toml"}, {"path": "report.md", "exists": False}])
def test_file_exists_stays_a_placeholder(grader: dict[str, Any]) -> None:
    """plugin eval does not say which folder `path` is read from or whether `*` crosses `/`;
    file_created matches any trailing part of a created file's path with `*` crossing `/`
    (report.md would match out/report.md): the same meaning cannot be shown, so it waits."""
    assert _reason({"name": "f", "type": "file_exists", **grader}) == "needs the files the run created"


def test_the_indicator_rule_still_reads_the_grader() -> None:
    """tool_used of Skill is an indicator (unscored in both arms) unless `arm: both`; the
    converted check keeps the arm in its criterion, so the export writes it back."""
    skill: dict[str, object] = {"name": "s", "type": "tool_used", "tool": "Skill"}
    both: dict[str, object] = {**skill, "arm": "both"}
    assert is_indicator(skill) and not is_indicator(both)
    assert check_of(validate(both)).criterion.endswith(" (arm: both)")


STEP = st.sampled_from(["Read", "Edit", "mcp__docs__search"]) | st.fixed_dictionaries(
    {"tool": st.sampled_from(["Bash", "Write"])},
    optional={"input_match": st.sampled_from(['"command":"ls"', "config", "a\\s+b", '"'])},
)


@st.composite
def trace_graders(draw: st.DrawFn, index: int) -> dict[str, Any]:
    grader: dict[str, Any] = {"name": f"{draw(st.sampled_from(['t', 'x: y', 'é']))}-{index}"}
    if draw(st.booleans()):
        grader.update(type="tool_used", tool=draw(st.sampled_from(["Skill", "Bash", "a b"])))
        for key, values in (("input_match", st.sampled_from(["git\\s+push", ':"pdf"', "(a|b)+"])),
                            ("min", st.integers(0, 2)), ("max", st.integers(2, 4))):  # fmt: skip
            if draw(st.booleans()):
                grader[key] = draw(values)
    else:
        grader.update(type="tool_order", before=draw(STEP), after=draw(STEP))
    if draw(st.booleans()):
        grader["weight"] = draw(st.sampled_from([1, 2, 0.5]))
    if draw(st.booleans()):
        grader["arm"] = draw(st.sampled_from(["with-only", "both"]))
    return grader


@pytest.mark.long
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graders=st.integers(1, 3).flatmap(lambda n: st.tuples(*(trace_graders(i) for i in range(n)))))
def test_import_of_the_export_gives_each_trace_check_back(graders: tuple[dict[str, Any], ...]) -> None:
    """Each trace check, exported, is its grader again, and imports to the same criterion,
    kind, arguments and options; nothing is listed lost."""
    checks = tuple(check_of(validate(grader)) for grader in graders)
    assert all(check.kind.traced for check in checks)
    case = Case("a", "c", "Hi", "low", checks)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        result = ImportResult("catalog", "plugin-eval", (case,), "medium", False)
        (folder / "cases.jsonl").write_text(case.catalog_line() + "\n", encoding="utf-8")
        (folder / "checks.py").write_text(checkgen.render(result), encoding="utf-8")
        files, count, lost = export_suite(folder / "cases.jsonl", folder / "checks.py")
        write_suite(folder / "suite", files)
        back = read_source("plugin-eval", folder / "suite").cases
    assert (count, lost) == (1, [])
    written = yaml.safe_load(files["1-a/case.yaml"])["graders"]
    assert [check_of(g) for g in written] == list(checks)
    assert [(c.criterion, c.kind, c.args, c.options) for c in back[0].checks] == [
        (c.criterion, c.kind, c.args, c.options) for c in checks
    ]


def test_an_edited_trace_call_goes_as_an_llm_grader_listed_lost(tmp_path: Path) -> None:
    """The criterion still says tool Skill, but the call now asks for Bash: the grader would
    import to another call, so the criterion goes as its text and the loss is listed."""
    check = check_of({"name": "fired", "type": "tool_used", "tool": "Skill"})
    case = Case("a", "c", "Hi", "low", (check,))
    result = ImportResult("catalog", "plugin-eval", (case,), "medium", False)
    (tmp_path / "cases.jsonl").write_text(case.catalog_line() + "\n", encoding="utf-8")
    module = checkgen.render(result).replace('return tool_used("Skill")', 'return tool_used("Bash")')
    (tmp_path / "checks.py").write_text(module, encoding="utf-8")
    files, _, lost = export_suite(tmp_path / "cases.jsonl", tmp_path / "checks.py")
    assert lost == [f"a: the tool_used check of {check.criterion!r} goes as an llm grader (its text)"]
    assert yaml.safe_load(files["1-a/case.yaml"])["graders"][0]["type"] == "llm"


def _corpus_graders(suite: Path) -> list[dict[str, Any]]:
    """Every inline grader of the suite's case.yaml files, read with PyYAML (not the reader)."""
    return [
        grader
        for case in sorted(suite.rglob("case.yaml"))
        for grader in yaml.safe_load(case.read_text(encoding="utf-8")).get("graders", [])
    ]


@pytest.mark.long
@pytest.mark.corpus
@pytest.mark.parametrize(
    ("suite", "tool_used"),
    [("homeassistant-ai__skills/evals", 29), ("starslingdev__skills/skills/ci-secure/evals", 23)],
)
def test_every_corpus_tool_used_grader_is_a_trace_check(suite: str, tool_used: int) -> None:
    """The files' tool_used graders (29 and 23, the corpus README's and PyYAML's count) write
    only tool, input_match, min, max, weight and arm, and their patterns (\\s, \\w, groups,
    alternation) read alike in JavaScript and Python: each is one tool_used check, and the
    grader counts by type are the files'."""
    if not (CORPUS_SUITES / "MANIFEST.tsv").is_file():
        pytest.skip("../shared/plugin-eval is not here")
    graders = _corpus_graders(CORPUS_SUITES / suite)
    used = [g for g in graders if g["type"] == "tool_used"]
    assert len(used) == tool_used
    assert all(set(g) <= {"name", "type", "tool", "input_match", "min", "max", "weight", "arm"} for g in used)
    cases = read_source("plugin-eval", CORPUS_SUITES / suite).cases
    kinds = Counter(
        check.kind for case in cases for check in case.checks if check.via == "plugin-eval tool_used"
    )
    assert kinds == Counter({CheckKind.TOOL_USED: tool_used})
    vias = Counter(check.via.removeprefix("plugin-eval ") for case in cases for check in case.checks)
    assert vias == Counter(g["type"] for g in graders)


@pytest.mark.parametrize(
    "criterion",
    [
        "n: tool_used {not json}",
        'n: tool_used {"tool": "Bash"} (weight two)',
        "n: file_exists {}",
        "Calls Bash.",
    ],
    ids=["settings-not-json", "weight-not-json", "not-a-trace-type", "prose"],
)
def test_a_criterion_this_import_does_not_write_is_no_trace_grader(criterion: str) -> None:
    """The export reads a grader back only from `NAME: tool_used|tool_order {JSON}` with an
    optional JSON weight and arm; anything else goes as an llm grader."""
    assert trace_grader_of(criterion) is None


def test_a_trace_criterion_reads_back_with_its_weight_and_arm() -> None:
    criterion = 'n: tool_order {"before": "Read", "after": "Edit"} (weight 0.5) (arm: both)'
    assert trace_grader_of(criterion) == {
        "name": "n",
        "type": "tool_order",
        "before": "Read",
        "after": "Edit",
        "weight": 0.5,
        "arm": "both",
    }


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('tool_used("Skill", min=0)', Mechanical("tool_used", ("Skill",), {"min": 0})),
        ('tool_order("Read", ["Edit", "x"])', Mechanical("tool_order", ("Read", ["Edit", "x"]), {})),
        ('contains(answer, "hi")', Mechanical("contains", ("hi",), {})),
        ('contains("hi", answer)', None),
        ("checks.contains(answer)", None),
    ],
    ids=["trace-no-answer", "trace-step-list", "text-check", "text-check-without-answer-first", "not-a-name"],
)
def test_the_export_reads_a_trace_call_without_an_answer_argument(
    body: str, expected: Mechanical | None
) -> None:
    """A trace check reads the row's trace, so its call's arguments start at the first; a text
    check's first argument is the answer, and a call of any other shape is a person's."""
    module = f'@check("a", "c")\ndef check_a(answer: str) -> bool:\n    return {body}\n'
    assert suite_checks(module) == {("a", "c"): expected}
