"""A case's statement of success is its criterion: evals-json's `expected_output` (skill-creator's
"human-readable description of what success looks like") becomes prose criteria when the case
states no other criteria; with an assertion list it stays a note; `--no-default-criteria`
keeps the old reading (a note, and the no-criteria placeholder)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adhd_evals.cli import main
from adhd_evals.importing import dialect
from adhd_evals.importing.formats._common import NO_CRITERIA, SUCCESS_VIA
from adhd_evals.importing.formats.evals_json import success_checks
from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import Case, CheckKind, ImportResult, Refusal
from adhd_evals.importing.summary import import_summary
from helpers import CORPUS

FOLDER = CORPUS / "evals-json"
CORPUS_DIALECT = Path(__file__).resolve().parent / "corpus" / "evals-json.dialect.yaml"


def _source(tmp_path: Path, *cases: dict[str, Any]) -> Path:
    path = tmp_path / "evals.json"
    path.write_text(json.dumps({"skill_name": "s", "evals": list(cases)}), encoding="utf-8")
    return path


def _read(path: Path, **options: Any) -> ImportResult:
    return import_source("evals-json", path, **options).result


# ---- the rule, one shape at a time ---------------------------------------------------------


def test_a_sentence_is_the_one_criterion_and_not_a_note(tmp_path: Path) -> None:
    """{id, prompt, expected_output: "Says hi"}, no list: criteria == ["Says hi"], a placeholder
    (prose a person or judge decides), and expected_output is no longer among the notes."""
    case = _read(_source(tmp_path, {"id": 1, "prompt": "Hi", "expected_output": "Says hi"})).cases[0]
    assert case.criteria == ["Says hi"]
    assert case.checks[0].kind is CheckKind.UNWRITTEN and case.checks[0].via == SUCCESS_VIA
    assert [n.key for n in case.notes] == []
    assert not case.had_no_criteria


def test_an_empty_assertion_list_is_no_list(tmp_path: Path) -> None:
    """`assertions: []` states nothing (it imports like a missing list): the sentence decides."""
    raw = {"id": 1, "prompt": "Hi", "assertions": [], "expected_output": "Says hi"}
    assert _read(_source(tmp_path, raw)).cases[0].criteria == ["Says hi"]


def test_with_an_assertion_list_expected_output_stays_a_note(tmp_path: Path) -> None:
    raw = {"id": 1, "prompt": "Hi", "assertions": ["Greets"], "expected_output": "Says hi"}
    case = _read(_source(tmp_path, raw)).cases[0]
    assert case.criteria == ["Greets"]
    assert [(n.key, n.value) for n in case.notes] == [("expected_output", "Says hi")]


def test_a_list_of_sentences_is_one_criterion_each() -> None:
    assert [c.criterion for c in success_checks(["Greets", "Is short"])] == ["Greets", "Is short"]


def test_an_object_is_one_criterion_holding_it_verbatim() -> None:
    """{"sections": ["A"]} is compacted to its JSON text (json.dumps's separators), kept whole."""
    (check,) = success_checks({"sections": ["A"]})
    assert check.criterion == '{"sections": ["A"]}' and check.args == ('{"sections": ["A"]}',)


def test_a_mixed_list_is_one_criterion_verbatim() -> None:
    assert [c.criterion for c in success_checks(["A", 2])] == ['["A", 2]']


@pytest.mark.parametrize(
    "value", [None, "", "   ", [], {}, "\ud800 lone"], ids=["null", "empty", "blank", "[]", "{}", "surrogate"]
)
def test_nothing_stated_gives_no_criterion(value: Any) -> None:
    assert success_checks(value) == []


def test_an_unwritable_object_gives_no_criterion() -> None:
    """A lone surrogate inside an object: no catalog can hold its text, so it stays a note."""
    assert success_checks({"a": "\ud800"}) == []


def test_a_blank_expected_output_leaves_the_placeholder_and_the_note(tmp_path: Path) -> None:
    case = _read(_source(tmp_path, {"id": 1, "prompt": "Hi", "expected_output": " "})).cases[0]
    assert case.criteria == [NO_CRITERIA] and case.had_no_criteria
    assert [n.key for n in case.notes] == ["expected_output"]


def test_no_default_criteria_keeps_the_old_reading(tmp_path: Path) -> None:
    path = _source(tmp_path, {"id": 1, "prompt": "Hi", "expected_output": "Says hi"})
    case = _read(path, default_criteria=False).cases[0]
    assert case.criteria == [NO_CRITERIA]
    assert [(n.key, n.value) for n in case.notes] == [("expected_output", "Says hi")]


def test_a_dialect_place_on_expected_output_reads_it_once(tmp_path: Path) -> None:
    """The dialect reads expected_output itself: its reading stands, nothing is doubled."""
    (tmp_path / "d.yaml").write_text(
        "adhd-evals-dialect: 1\nformat: evals-json\ncases:\n  criteria:\n"
        "    - {at: expected_output, check: contains, case: sensitive}\n",
        encoding="utf-8",
    )
    loaded = dialect.load(tmp_path / "d.yaml")
    path = _source(tmp_path, {"id": 1, "prompt": "Hi", "expected_output": "hi"})
    (check,) = _read(path, dialect=loaded).cases[0].checks
    assert check.kind is CheckKind.CONTAINS


def test_the_summary_names_the_cases_and_the_way_back(tmp_path: Path) -> None:
    path = _source(
        tmp_path,
        {"id": 1, "prompt": "Hi", "expected_output": "Says hi"},
        {"id": 2, "prompt": "Bye", "expected_output": "Says bye"},
        {"id": 3, "prompt": "Yo"},
    )
    lines = import_summary(_read(path))
    assert any(line.startswith("2 cases: criteria from expected_output") for line in lines)
    assert any(line.startswith("1 case had no criteria") for line in lines)
    assert not any("expected_output" in line for line in import_summary(_read(path, default_criteria=False)))


def test_the_flag_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _source(tmp_path, {"id": 1, "prompt": "Hi", "expected_output": "Says hi"})
    assert main(["import", "--format", "evals-json", str(path), "--no-default-criteria"]) == 0
    assert json.loads(capsys.readouterr().out)["criteria"] == [NO_CRITERIA]
    assert main(["import", "--format", "evals-json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["criteria"] == ["Says hi"]


# ---- the corpus --------------------------------------------------------------------------


def _corpus() -> list[Path]:
    return sorted(FOLDER.glob("*.json")) if FOLDER.is_dir() else []


def _states_nothing_but(case: Case) -> bool:
    """The no-criteria placeholder while a statement of success sits in the notes."""
    return NO_CRITERIA in case.criteria and any(
        n.key == "expected_output" and success_checks(n.value) for n in case.notes
    )


@pytest.mark.corpus
@pytest.mark.skipif(not FOLDER.is_dir(), reason="../shared/corpus is not beside this checkout")
@pytest.mark.parametrize("path", _corpus(), ids=lambda p: p.name[:50])
def test_corpus_success_statements_are_criteria(path: Path) -> None:
    """Plain import (where it reads the file): each case with no assertion list and a sentence
    in expected_output has exactly that sentence as its criteria (cases come in file order, one
    per source case). With the corpus dialect too: no case holds the no-criteria placeholder
    beside an expected_output it could have read."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    try:
        plain = _read(path)
    except Refusal:
        plain = None
    if plain is not None:
        for source, case in zip(raw["evals"], plain.cases, strict=True):
            listed = source.get("assertions") or source.get("expectations")
            stated = source.get("expected_output")
            if not listed and isinstance(stated, str) and stated.strip():
                # a trigger case (issue 33) states first that its skill is (or is not) invoked
                trigger = isinstance(source.get("should_trigger"), bool)
                assert case.criteria[int(trigger) :] == [stated]
            assert not _states_nothing_but(case)
    try:
        declared = _read(path, dialect=dialect.load(CORPUS_DIALECT))
    except Refusal:
        return  # not cases at all (test_corpus_dialect says which, and why)
    assert not any(_states_nothing_but(case) for case in declared.cases)


@pytest.mark.corpus
@pytest.mark.skipif(not FOLDER.is_dir(), reason="../shared/corpus is not beside this checkout")
def test_corpus_counts_match_the_files() -> None:
    """Counted by hand from the JSON (cases with no assertion list and an expected_output, in
    the files the plain import reads): vhdl-to-sv 11, user-flows 5, style-compass 12,
    claude-audit 7, wechat-writing 5 (objects), agentic-metacognition 6, write-cut 3 = 49."""
    given = 0
    for path in _corpus():
        try:
            result = _read(path)
        except Refusal:
            continue
        given += sum(any(c.via == SUCCESS_VIA for c in case.checks) for case in result.cases)
    assert given == 49
