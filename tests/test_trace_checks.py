"""The trace checks (tracehelpers.py): what each decides over a trace, worked from their
documented rules, and `check` giving each row's trace to a generated module."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.importing import tracehelpers as th
from adhd_evals.importing.checkgen import HELPERS, trace_helpers
from adhd_evals.runs.judging.check import load_suite, run_checks
from adhd_evals.runs.rows import ResponseRow
from adhd_evals.triggering import criterion, polarity, skill_pattern


def _call(name: str, value: Any = None) -> dict[str, Any]:
    return {"name": name, "input": value if value is not None else {}}


# Read, Skill(pdf), Bash(ls), Read, Write: the first Read is at 0, the first Bash at 2
TRACE = {
    "tool_calls": [
        _call("Read", {"file_path": "a.md"}),
        _call("Skill", {"skill": "pdf"}),
        _call("Bash", {"command": "ls -la"}),
        _call("Read", {"file_path": "b.md"}),
        _call("Write", {"file_path": "/tmp/w/out/report.md"}),
    ],
    "files_created": ["/tmp/w/out/report.md"],
}


@pytest.fixture
def traced() -> Iterator[None]:
    th.TRACE = TRACE
    yield
    th.TRACE = None


@pytest.mark.usefixtures("traced")
@pytest.mark.parametrize(
    ("args", "kwargs", "expected"),
    [
        pytest.param(("Skill",), {}, True, id="used"),
        pytest.param(("Edit",), {}, False, id="never-used"),
        pytest.param(("Read",), {"min": 2}, True, id="read-twice"),
        pytest.param(("Read",), {"min": 3}, False, id="not-three-times"),
        pytest.param(("Read",), {"max": 1}, False, id="more-than-max"),
        pytest.param(("Edit",), {"min": 0, "max": 0}, True, id="never-as-required"),
        pytest.param(("Bash",), {"min": 0, "max": 0}, False, id="called-when-forbidden"),
        pytest.param(("Skill",), {"input_match": skill_pattern("pdf")}, True, id="the-skill"),
        pytest.param(("Skill",), {"input_match": skill_pattern("pd")}, False, id="not-a-prefix"),
        pytest.param(("Bash",), {"input_match": "ls -la"}, True, id="input-text"),
        pytest.param(("Read",), {"input_match": '"b\\.md"'}, True, id="one-of-two"),
        pytest.param(("read",), {}, False, id="names-are-exact"),
    ],
)
def test_tool_used(args: tuple[str], kwargs: dict[str, Any], expected: bool) -> None:
    assert th.tool_used(*args, **kwargs) is expected


@pytest.mark.usefixtures("traced")
@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        pytest.param("Read", "Skill", True, id="read-first"),
        pytest.param("Skill", "Read", False, id="by-first-occurrence-not-any"),
        pytest.param("Skill", "Bash", True, id="skill-then-bash"),
        pytest.param(["Read", "b\\.md"], "Bash", False, id="with-a-pattern"),
        pytest.param("Bash", ["Read", "b\\.md"], True, id="pattern-after"),
        pytest.param("Skill", "Edit", False, id="after-never-called"),
        pytest.param("Edit", "Skill", False, id="before-never-called"),
    ],
)
def test_tool_order_by_first_occurrences(before: Any, after: Any, expected: bool) -> None:
    assert th.tool_order(before, after) is expected


@pytest.mark.usefixtures("traced")
@pytest.mark.parametrize(
    ("glob", "exists", "expected"),
    [
        pytest.param("report.md", True, True, id="name-alone"),
        pytest.param("out/*.md", True, True, id="leading-folders-removed"),
        pytest.param("*.md", True, True, id="star-crosses-folders"),
        pytest.param("/tmp/w/out/report.md", True, True, id="whole-path"),
        pytest.param("*.txt", True, False, id="no-match"),
        pytest.param("*.txt", False, True, id="absent-as-required"),
        pytest.param("report.md", False, False, id="present-when-forbidden"),
        pytest.param("Report.md", True, False, id="letter-case-counts"),
    ],
)
def test_file_created(glob: str, exists: bool, expected: bool) -> None:
    assert th.file_created(glob, exists=exists) is expected


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        pytest.param(r"\d", "\u0663", False, id="digit-is-ascii"),
        pytest.param(r"\w", "é", False, id="word-is-ascii"),
        pytest.param(r"\s", "\ufeff", True, id="bom-is-js-space"),
        pytest.param(r"\s", "\x85", False, id="nel-is-not-js-space"),
        pytest.param(r"[\s]", "\u3000", True, id="space-in-a-class"),
        pytest.param(r"\S", "\ufeff", False, id="not-space"),
        pytest.param(r"a.b", "a\u2028b", False, id="dot-stops-at-line-separator"),
        pytest.param(r"a.b", "a-b", True, id="dot"),
        pytest.param(r"a$", "a\n", False, id="dollar-is-the-very-end"),
        pytest.param(r"(?<x>a)\k<x>", "aa", True, id="named-group"),
        pytest.param(r"(?<=a)b", "ab", True, id="lookbehind-kept"),
        pytest.param(r"[.$]", "$", True, id="class-keeps-dot-and-dollar"),
        pytest.param(r"\.", ".", True, id="escaped-dot"),
    ],
)
def test_input_match_reads_as_javascript(pattern: str, text: str, found: bool) -> None:
    assert (th._js_regex(pattern).search(text) is not None) is found


@pytest.mark.parametrize("pattern", ["[]", "[^]", r"[\S]"])
def test_classes_python_reads_differently_are_errors(pattern: str) -> None:
    with pytest.raises(re.error):
        th._js_regex(pattern)


def test_input_is_matched_as_json_stringify_writes_it() -> None:
    """No space after ':' or ',', non-ASCII as itself: {"a":1,"b":"é"}."""
    assert th._encoded({"a": 1, "b": "é"}) == '{"a":1,"b":"é"}'


@pytest.mark.parametrize(
    "attempt",
    [
        pytest.param(lambda: th.tool_used("Skill"), id="tool_used"),
        pytest.param(lambda: th.tool_order("a", "b"), id="tool_order"),
        pytest.param(lambda: th.file_created("*"), id="file_created"),
    ],
)
def test_no_trace_is_an_error_not_a_verdict(attempt: Callable[[], bool]) -> None:
    th.TRACE = None
    with pytest.raises(th.NoTrace, match="this runner records no tool calls"):
        attempt()


@pytest.mark.parametrize(
    "trace", [{"tool_calls": "Skill"}, {"tool_calls": [1]}, [], {"files_created": []}], ids=str
)
def test_a_trace_of_the_wrong_shape_is_an_error(trace: Any) -> None:
    th.TRACE = trace
    try:
        with pytest.raises(ValueError, match="has no tool_calls list of dict"):
            th.tool_used("Skill")
    finally:
        th.TRACE = None


def test_trigger_criteria_read_back() -> None:
    assert polarity(criterion("a b", True)) == ("a b", True)
    assert polarity(criterion("x", False)) == ("x", False)
    assert polarity("the answer is invoked politely") is None


def test_skill_pattern_escapes_what_javascript_reads_as_syntax() -> None:
    """`.` is escaped, so `ursa.dev` does not match `ursaXdev`."""
    found = th._js_regex(skill_pattern("ursa.dev"))
    assert found.search('{"skill":"ursa.dev"}') and not found.search('{"skill":"ursaXdev"}')
    assert found.search('{"skill":"plugin:ursa.dev"}')


MODULE = """

@check("c1", "the skill pdf is invoked")
def check_c1(answer: str) -> bool:
    return tool_used("Skill", input_match=':"pdf"')


@check("c1", "answers")
def check_c1_text(answer: str) -> bool:
    return contains_any(answer, ["ok"])
"""


def _row(trace: Any) -> ResponseRow:
    row: ResponseRow = {"case_id": "c1", "trial": 1, "condition": "baseline", "runner": "r", "response": "ok"}
    if trace is not None:
        row["trace"] = trace
    return row


def test_check_gives_each_row_its_own_trace(tmp_path: Path) -> None:
    """Row 1 invoked pdf (pass), row 2 did not (fail), row 3 has no trace (error); the text
    check passes on all three: a missing trace touches only the trace checks."""
    suite_path = tmp_path / "checks.py"
    suite_path.write_text(HELPERS + "\n\n" + trace_helpers() + MODULE, encoding="utf-8")
    suite = load_suite(suite_path)
    rows = [
        _row({"tool_calls": [_call("Skill", {"skill": "pdf"})], "files_created": []}),
        _row({"tool_calls": [_call("Bash")], "files_created": []}),
        _row(None),
    ]
    run = run_checks(rows, suite, ["c1"])
    assert [(r.criterion, r.status) for r in run.results] == [
        ("the skill pdf is invoked", "pass"),
        ("answers", "pass"),
        ("the skill pdf is invoked", "fail"),
        ("answers", "pass"),
        ("the skill pdf is invoked", "error"),
        ("answers", "pass"),
    ]
    assert run.results[4].error == "NoTrace: this runner records no tool calls"


# Characters JSON.stringify writes as themselves: no quote, backslash, control character or surrogate.
_NAMES = st.text(
    st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters='"\\'), min_size=1, max_size=20
)


@pytest.mark.long
@settings(max_examples=200, deadline=None)
@given(name=_NAMES, plugin=st.sampled_from(["", "tools:"]))
def test_the_skill_pattern_finds_exactly_its_skill(name: str, plugin: str) -> None:
    """Whatever the name holds (pattern syntax included), the trigger pattern finds the name as
    the Skill call's value, bare or after a plugin prefix, and not a longer sibling name."""
    found = th._js_regex(skill_pattern(name))
    assert found.search(th._encoded({"skill": plugin + name}))
    assert not found.search(th._encoded({"skill": plugin + name + "x"}))
