"""Export to promptfoo, rule by rule: what each generated check becomes, and what is reported lost.

A generated call the vocabulary can say in promptfoo's words becomes that assertion (so
promptfoo checks exactly what the check module checks); anything else becomes llm-rubric
with the criterion's text, and what does not survive is listed, never dropped silently.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from adhd_evals.catalog import CaseRow
from adhd_evals.errors import UsageError
from adhd_evals.importing.export import (
    Mechanical,
    assertion_for,
    export,
    skill_name_of,
    suite_checks,
    to_promptfoo,
)

MODULE = '''
@check("c1", "says x")
def check_c1_a(answer: str) -> bool:
    """A docstring is not the body."""
    return contains(answer, "x", ignore_case=False)


@check("c1", "written by hand")
def check_c1_b(answer: str) -> bool:
    words = answer.split()
    return "x" in words


@check("c1", "on the lowered answer")
def check_c1_c(answer: str) -> bool:
    return contains(answer.lower(), "x")


@check("c1", "a needle from a name")
def check_c1_d(answer: str) -> bool:
    return contains(answer, NEEDLE)


@check("c1", "not yet")
def check_c1_e(answer: str) -> bool:
    return unwritten("not yet")


def helper(answer: str) -> bool:
    return True
'''


def test_the_module_s_calls_are_read_and_anything_else_is_hand_written() -> None:
    """Only a single `return helper(answer, literals...)` is a generated call; unregistered functions are skipped."""
    assert suite_checks(MODULE) == {
        ("c1", "says x"): Mechanical("contains", ("x",), {"ignore_case": False}),
        ("c1", "written by hand"): None,
        ("c1", "on the lowered answer"): None,
        ("c1", "a needle from a name"): None,
        ("c1", "not yet"): Mechanical("unwritten", ("not yet",), {}),  # the text it holds
    }


def _call(helper: str, *args: Any, **keywords: Any) -> Mechanical:
    return Mechanical(helper, args, keywords)


RUBRIC = "llm-rubric"


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        pytest.param(
            _call("contains", "x", ignore_case=False), {"type": "contains", "value": "x"}, id="contains"
        ),
        # the plain helpers ignore case unless told otherwise
        pytest.param(
            _call("contains", "x"), {"type": "icontains", "value": "x"}, id="contains-ignoring-case"
        ),
        # promptfoo renders an assertion value: template text goes inside {% raw %}
        pytest.param(
            _call("contains", "{{ x }}", ignore_case=False),
            {"type": "contains", "value": "{% raw %}{{ x }}{% endraw %}"},
            id="template-text-raw",
        ),
        pytest.param(
            _call("contains", "{{ x }}{% endraw %}", ignore_case=False), None, id="endraw-cannot-be-raw"
        ),
        pytest.param(_call("contains", 3, ignore_case=False), None, id="needle-not-text"),
        # promptfoo reads an empty list as no value at all (and rejects the assertion)
        pytest.param(_call("contains_any", [], ignore_case=False), None, id="empty-list"),
        pytest.param(
            _call("contains_none", ["a"], ignore_case=False),
            {"type": "not-contains-any", "value": ["a"]},
            id="contains-none",
        ),
        pytest.param(
            _call("not_contains_all", ["a", "b"]),
            {"type": "not-icontains-all", "value": ["a", "b"]},
            id="not-icontains-all",
        ),
        pytest.param(
            _call("contains_all", "a", ignore_case=False),
            {"type": "contains-all", "value": ["a"]},
            id="one-needle-as-list",
        ),
        # equals and starts-with compare exactly in promptfoo: only an unstripped, case-exact check is the same
        pytest.param(
            _call("equals", "a", ignore_case=False, strip=False),
            {"type": "equals", "value": "a"},
            id="equals-exact",
        ),
        pytest.param(
            _call("not_starts_with", "a", ignore_case=False, strip=False),
            {"type": "not-starts-with", "value": "a"},
            id="not-starts-with",
        ),
        pytest.param(_call("equals", "a", ignore_case=False), None, id="equals-stripping"),
        # a regex goes only when JavaScript reads the Python pattern the same way
        pytest.param(
            _call("regex", "a{2}b", ignore_case=False),
            {"type": "regex", "value": "a{2}b"},
            id="regex-same-in-both",
        ),
        pytest.param(
            _call("not_regex", "[0-9]+", ignore_case=False),
            {"type": "not-regex", "value": "\\d+"},  # what translate() made of \d, read back
            id="not-regex",
        ),
        pytest.param(_call("regex", "\\d", ignore_case=False), None, id="regex-unicode-digit"),
        pytest.param(_call("regex", "(?P<n>a)", ignore_case=False), None, id="regex-python-only"),
        pytest.param(_call("regex", "a", ignore_case=True), None, id="regex-ignoring-case"),
        pytest.param(_call("is_json"), {"type": "is-json"}, id="is-json"),
        pytest.param(_call("not_is_json"), {"type": "not-is-json"}, id="not-is-json"),
        pytest.param(
            _call("is_json", schema='{"type": "object"}'),
            {"type": "is-json", "value": {"type": "object"}},
            id="is-json-schema",
        ),
        pytest.param(_call("not_is_json", schema='{"type": "object"}'), None, id="not-is-json-schema"),
        pytest.param(_call("unwritten"), None, id="unwritten"),
    ],
)
def test_each_call_becomes_its_promptfoo_assertion_or_the_criterion_as_rubric(
    call: Mechanical, expected: dict[str, Any] | None
) -> None:
    """None: llm-rubric with the criterion's text; the criterion always travels in config.criterion."""
    wanted = expected if expected is not None else {"type": RUBRIC, "value": "the criterion"}
    assert assertion_for("the criterion", call) == {**wanted, "config": {"criterion": "the criterion"}}


def test_a_rubric_criterion_holding_template_text_goes_raw_unless_it_cannot() -> None:
    assert assertion_for("say {{ x }}", None)["value"] == "{% raw %}say {{ x }}{% endraw %}"
    assert assertion_for("{% endraw %}", None)["value"] == "{% endraw %}"


def _row(**fields: Any) -> CaseRow:
    return cast(
        CaseRow,
        {"id": "c1", "category": "cat", "prompt": "Q", "risk": "low", "criteria": ["says x"], **fields},
    )


def test_what_does_not_survive_is_listed() -> None:
    """A prompt holding {% endraw %} or {{ prompt }} (replaced before any template runs), and a
    hand-written check (its criterion goes as text)."""
    rows = [_row(id="a", prompt="{% endraw %}"), _row(id="b", prompt="say {{ prompt }}"), _row(id="c")]
    config, lost = to_promptfoo(rows, {("c", "says x"): None}, description="d")
    assert lost == [
        "a: its prompt holds template text promptfoo cannot be told to leave alone",
        "b: its prompt holds template text promptfoo cannot be told to leave alone",
        "c: the hand-written check of 'says x' goes as its text (llm-rubric)",
    ]
    assert [t["vars"]["prompt"] for t in config["tests"]] == ["{% endraw %}", "say {{ prompt }}", "Q"]


def test_final_newlines_travel_in_the_suffix_and_identity_in_metadata() -> None:
    """promptfoo drops a var's final newline: all of them go in options.suffix."""
    config, lost = to_promptfoo([_row(prompt="Q {x}\n\n")], {}, description="d")
    (test,) = config["tests"]
    assert lost == []
    assert test["vars"] == {"prompt": "Q {x}"} and test["options"] == {"suffix": "\n\n"}
    assert test["metadata"] == {"adhd_evals": {"id": "c1", "category": "cat", "risk": "low"}}


def test_evals_json_has_one_skill_name() -> None:
    """Several categories: the fallback, and a line naming them; a padded category reads back stripped."""
    assert skill_name_of([_row(category="a"), _row(category="b")], "skill") == (
        "skill",
        ["categories a, b: evals.json has one skill_name (skill)"],
    )
    assert skill_name_of([_row(category=" a ")], "skill") == (" a ", ["category ' a ': read back stripped"])


def _catalog(folder: Path) -> Path:
    path = folder / "cases.jsonl"
    path.write_text(json.dumps(_row(prompt="Qé")) + "\n", encoding="utf-8")
    return path


def test_an_unknown_target_or_unreadable_module_is_a_usage_error(tmp_path: Path) -> None:
    cases = _catalog(tmp_path)
    with pytest.raises(UsageError, match="--to must be one of promptfoo, evals-json, not 'csv'"):
        export("csv", cases, None)
    broken = tmp_path / "checks.py"
    broken.write_text("def (\n", encoding="utf-8")
    with pytest.raises(UsageError, match="cannot be read as a check module"):
        export("promptfoo", cases, broken)


def test_json_export_is_ascii_and_reads_back(tmp_path: Path) -> None:
    result = export("promptfoo", _catalog(tmp_path), None, as_json=True)
    assert result.text.isascii() and result.text.endswith("}\n") and result.cases == 1
    assert json.loads(result.text)["tests"][0]["vars"]["prompt"] == "Qé"
