"""Export is lossless or loud: a placeholder holding a promptfoo assertion goes back as that
assertion, a converted regex goes back as JavaScript that means the same (`\\b`, `\\S`
included), and every export lists by case and check what it wrote as text. The round trip
export -> promptfoo 0.120.0 -> verdicts agrees with the original config and with our checks."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import promptfoo_cli
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.catalog import CaseRow
from adhd_evals.importing.export import (
    Mechanical,
    assertion_for,
    evals_json_lost,
    export,
    from_promptfoo,
    held_assertion,
    to_promptfoo,
)
from adhd_evals.importing.formats.promptfoo.jsregex import NotTranslatable, javascript_for, translate
from adhd_evals.importing.importer import import_source


def _unwritten(text: str) -> Mechanical:
    return Mechanical("unwritten", (text,), {})


# ---- placeholders written back ------------------------------------------------------------


def test_a_held_javascript_assertion_goes_back_with_the_wording() -> None:
    call = _unwritten('{"type": "javascript", "value": "output.length > 3"}')
    assert assertion_for("javascript: output.length > 3", call, promptfoo=True) == {
        "type": "javascript",
        "value": "output.length > 3",
        "config": {"criterion": "javascript: output.length > 3"},
    }


def test_the_import_s_reason_after_the_object_is_not_part_of_it() -> None:
    call = _unwritten(
        '{"type": "contains", "value": "file://x.txt"} (its value is read from a file when promptfoo runs)'
    )
    assert held_assertion(call) == {"type": "contains", "value": "file://x.txt"}


def test_an_assertion_s_own_config_keeps_its_keys() -> None:
    call = _unwritten('{"type": "python", "value": "file://g.py", "config": {"k": 1}}')
    assert assertion_for("g", call, promptfoo=True)["config"] == {"k": 1, "criterion": "g"}


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Greets Bob politely", id="prose"),
        pytest.param('promptfoo rejects this assertion (x): {"type": "nope"}', id="rejected"),
        pytest.param('{"type": "contains_any", "values": ["a"]}', id="not-promptfoo-s-type"),
        pytest.param('{"value": "a"}', id="no-type"),
        pytest.param('["javascript"]', id="not-an-object"),
        pytest.param('{"type": "javascript"} and more', id="text-after-it"),
    ],
)
def test_what_is_not_a_held_assertion(text: str) -> None:
    assert held_assertion(_unwritten(text)) is None


def test_not_from_promptfoo_a_typed_object_goes_as_text_and_is_listed() -> None:
    """An evals-json module's {"type": "regex", "pattern": ...} is not promptfoo's regex."""
    held = '{"type": "regex", "pattern": "x"}'
    rows: list[CaseRow] = [
        {"id": "a", "category": "c", "prompt": "P", "risk": "low", "criteria": ["Matches x"]}
    ]
    config, lost = to_promptfoo(rows, {("a", "Matches x"): _unwritten(held)}, description="d")
    assert config["tests"][0]["assert"][0]["type"] == "llm-rubric"
    assert lost == [f"a: the placeholder of 'Matches x' goes as its text (llm-rubric); it held {held}"]


def test_the_header_says_whether_the_module_came_from_promptfoo() -> None:
    assert from_promptfoo('"""Checks...\n\nImported from a/promptfooconfig.yaml (promptfoo).\n')
    assert from_promptfoo('"""Checks...\n\nImported from 2 sources (promptfoo):\n')
    assert not from_promptfoo('"""Checks...\n\nImported from evals.json (evals-json).\n')


# ---- what is listed ---------------------------------------------------------------------------


def test_a_mechanical_check_promptfoo_cannot_say_is_listed_by_case_and_check() -> None:
    rows: list[CaseRow] = [
        {"id": "a", "category": "c", "prompt": "P", "risk": "low", "criteria": ["Long", "Kind"]}
    ]
    checks: dict[tuple[str, str], Mechanical | None] = {
        ("a", "Long"): Mechanical("min_words", (50,), {}),
        ("a", "Kind"): _unwritten("Kind"),
    }
    _, lost = to_promptfoo(rows, checks, description="d")
    assert lost == ["a: the min_words check of 'Long' goes as its text (llm-rubric)"]


def test_evals_json_lists_every_check_it_cannot_hold() -> None:
    rows: list[CaseRow] = [
        {"id": "a", "category": "c", "prompt": "P", "risk": "low", "criteria": ["Has x", "Kind", "Mine"]}
    ]
    checks = {
        ("a", "Has x"): Mechanical("contains", ("x",), {"ignore_case": False}),
        ("a", "Kind"): _unwritten("Kind"),
        ("a", "Mine"): None,
    }
    assert evals_json_lost(rows, checks) == [
        "a: the contains check of 'Has x' goes as its text (an expectation)",
        "a: the hand-written check of 'Mine' goes as its text (an expectation)",
    ]


def test_the_evals_json_export_reads_the_module(tmp_path: Path) -> None:
    (tmp_path / "cases.jsonl").write_text(
        '{"id": "a", "category": "c", "prompt": "P", "risk": "low", "criteria": ["Has x"]}\n',
        encoding="utf-8",
    )
    (tmp_path / "checks.py").write_text(
        '@check("a", "Has x")\ndef f(answer: str) -> bool:\n    return contains(answer, "x", ignore_case=False)\n',
        encoding="utf-8",
    )
    result = export("evals-json", tmp_path / "cases.jsonl", tmp_path / "checks.py")
    assert result.lost[-1] == "a: the contains check of 'Has x' goes as its text (an expectation)"


# ---- regexes written back as JavaScript -----------------------------------------------------------


@pytest.mark.parametrize(
    ("javascript", "back"),
    [
        pytest.param(r"\bcat\b", r"\bcat\b", id="word-boundary"),
        pytest.param(r"\S+@\S+", r"\S+@\S+", id="non-space"),
        pytest.param(r"^a.b$", r"^a.b$", id="dot-and-end"),
        pytest.param(r"[\d\s]+", r"[\d\s]+", id="class-escapes"),
        pytest.param(r"[^\w]", r"\W", id="a-negated-class-reads-back-shorter"),
        pytest.param(r"a{", r"a\{", id="a-literal-brace"),
    ],
)
def test_a_converted_regex_goes_back_as_javascript(javascript: str, back: str) -> None:
    assert javascript_for(translate(javascript)) == back
    call = Mechanical("regex", (translate(javascript),), {"ignore_case": False})
    assert assertion_for("r", call)["value"] == back


@pytest.mark.parametrize("python", [r"\d+", r"\w", r"(?i)x", r"(?P<n>a)"])
def test_a_python_pattern_with_no_javascript_twin_has_none(python: str) -> None:
    """Python's \\d and \\w are Unicode-wide; (?i) and named groups JavaScript writes otherwise."""
    assert javascript_for(python) is None


JS_PIECES = st.sampled_from(
    [
        *"ab.^$|?*+()",
        "\\b",
        "\\B",
        "\\d",
        "\\D",
        "\\w",
        "\\W",
        "\\s",
        "\\S",
        "[a-z]",
        "[^\\d]",
        "[\\s\\w]",
        "\\.",
        "\\{",
        "{2}",
        "{1,3}",
        "(?:",
        "(?=",
        "(?!",
        "\\u00e9",
        "\\x41",
        "\\n",
        "\\t",
        "[\\b]",
        "\\0",
        "\\1",
        "é",
        " ",
    ]
)


@pytest.mark.long
@settings(max_examples=300, deadline=None)
@given(st.lists(JS_PIECES, min_size=1, max_size=12))
def test_every_pattern_the_import_accepts_goes_back_meaning_the_same(pieces: list[str]) -> None:
    """For any JavaScript pattern translate() accepts, javascript_for() writes one, and translate()
    reads it as the very same Python pattern: the same matches, by translate's rules."""
    pattern = "".join(pieces)
    try:
        python = translate(pattern)
    except NotTranslatable:
        return
    back = javascript_for(python)
    assert back is not None
    assert translate(back) == python


# ---- export -> promptfoo -> verdicts ------------------------------------------------------------

CONFIG = """\
prompts:
  - "Mail {{ who }} at {{ who }}@example.org about the cat."
tests:
  - vars: {who: ada}
    assert:
      - {type: regex, value: "\\\\bcat\\\\b"}
      - {type: regex, value: "\\\\S+@\\\\S+"}
      - {type: not-regex, value: "\\\\bdog\\\\b"}
      - {type: regex, value: "^Mail .+\\\\.$"}
      - {type: javascript, value: "output.length > 10"}
      - {type: javascript, value: "output.includes('zebra')"}
      - {type: icontains-any, value: [CAT, dog]}
      - {type: starts-with, value: Mail}
  - vars: {who: "bo b"}
    assert:
      - {type: regex, value: "\\\\w+@\\\\w+\\\\.org"}
      - {type: not-contains, value: "{{ who }}"}
      - {type: contains-all, value: [bo, cat]}
      - {type: javascript, value: "output.split(' ').length === 7"}
"""


def _verdicts(result: dict[str, Any]) -> list[bool]:
    components = (result.get("gradingResult") or {}).get("componentResults") or []
    return [c["pass"] for c in components]


@pytest.mark.long
def test_export_then_promptfoo_gives_the_verdicts_of_the_original_and_of_our_checks(tmp_path: Path) -> None:
    """The config is imported, the catalog exported back, and promptfoo (echo provider) runs both:
    every assertion of every test gets the same verdict in both (javascript written back
    included), and each exported mechanical assertion the verdict our check module gives the
    same answer. Nothing is listed lost: every assertion had a promptfoo form."""
    main, why = promptfoo_cli.find()
    if main is None:
        pytest.skip(why)
    original = tmp_path / "original"
    original.mkdir()
    (original / "promptfooconfig.yaml").write_text(CONFIG, encoding="utf-8")
    out = tmp_path / "evals"
    outcome = import_source("promptfoo", original / "promptfooconfig.yaml", out=out)
    exported = tmp_path / "exported"
    exported.mkdir()
    result = export("promptfoo", out / "cases.jsonl", out / "checks.py")
    assert result.lost == []
    (exported / "promptfooconfig.yaml").write_text(result.text, encoding="utf-8")
    before = promptfoo_cli.run_echo(main, original / "promptfooconfig.yaml", original)
    after = promptfoo_cli.run_echo(main, exported / "promptfooconfig.yaml", exported)
    namespace: dict[str, Any] = {}
    exec(compile(outcome.module, "checks.py", "exec"), namespace)
    compared = 0
    for case, first, second in zip(outcome.result.cases, before, after, strict=True):
        assert first["response"]["output"] == second["response"]["output"]
        assert _verdicts(first) == _verdicts(second) and _verdicts(first), case.id
        ours = [function(second["response"]["output"]) for _, function in namespace["CHECKS"][case.id]]
        for check, mine, theirs in zip(case.checks, ours, _verdicts(second), strict=True):
            if check.mechanical:
                assert mine == theirs, (case.id, check.criterion)
                compared += 1
    # 7 mechanical in the first test (4 regexes, includes('zebra'), icontains-any, starts-with), 3 in
    # the second; output.length and output.split(...) stay placeholders, written back as javascript
    assert compared == 10
    shutil.rmtree(tmp_path / "original" / promptfoo_cli.HOME, ignore_errors=True)


def test_an_assertion_s_config_that_is_not_a_mapping_is_left_as_written() -> None:
    call = _unwritten('{"type": "javascript", "value": "1", "config": "text"}')
    assert assertion_for("c", call, promptfoo=True)["config"] == "text"


def test_an_unwritten_with_no_text_holds_nothing() -> None:
    assert held_assertion(Mechanical("unwritten", (), {})) is None


def test_a_module_that_is_not_utf8_is_a_usage_error(tmp_path: Path) -> None:
    from adhd_evals.errors import UsageError

    (tmp_path / "cases.jsonl").write_text(
        '{"id": "a", "category": "c", "prompt": "P", "risk": "low", "criteria": ["x"]}\n', encoding="utf-8"
    )
    (tmp_path / "checks.py").write_bytes(b"\xff\xfe")
    with pytest.raises(UsageError, match="cannot be read as a check module"):
        export("evals-json", tmp_path / "cases.jsonl", tmp_path / "checks.py")
