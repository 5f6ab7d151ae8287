"""survey's drafts import as drafted wherever the reading is unambiguous: the waza-, gevals-
and skilljack-shaped fixtures, `{name, description}` objects, nested prompt alternatives,
statements of success; a file with no prompt key is named; only a vocabulary-named shape
(whose letter case is a person's to decide) leaves a choice open."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adhd_evals.entry import main
from adhd_evals.importing import dialect
from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import ImportResult
from helpers import CORPUS, FIXTURES

SHAPED = ["waza-tasks", "gevals-folders", "skilljack-list"]


def _survey(fmt: str, source: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    assert main(["survey", "--format", fmt, str(source), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def _drafted(fmt: str, source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> ImportResult:
    out = tmp_path / "draft.yaml"
    _survey(fmt, source, out, capsys)
    return import_source(fmt, source, dialect=dialect.load(out)).result


@pytest.mark.parametrize("name", SHAPED)
def test_the_draft_of_each_real_shape_imports_as_drafted(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = FIXTURES / "yaml" / "good" / name
    source = folder / json.loads((folder / "fixture.json").read_text())["source"]
    result = _drafted("yaml", source, tmp_path, capsys)
    assert len(result.cases) == 2  # each fixture holds two cases


def test_waza_draft_reads_the_nested_prompt_and_names_the_needle_lists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = FIXTURES / "yaml/good/waza-tasks/tasks"
    out = tmp_path / "d.yaml"
    report, err = _survey("yaml", source, out, capsys)
    assert '2 cases with no task but "inputs.prompt" (2)' in report
    assert '"expected.output_contains" (2), "expected.output_contains_any" (1)' in report
    text = out.read_text(encoding="utf-8")
    assert "# Lists of words to find: expected.output_contains, expected.output_contains_any." in text
    assert "check: unwritten" in text  # waza's {type: code} graders: placeholders, nothing open
    assert err.strip().endswith("1 new rule, none with choices left open.")
    prompts = [c.prompt for c in import_source("yaml", source, dialect=dialect.load(out)).result.cases]
    assert prompts[1] == "Explain ^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$ in plain words."


def test_gevals_draft_reads_ids_and_prompts_one_folder_down(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = _drafted("yaml", FIXTURES / "yaml/good/gevals-folders/tasks", tmp_path, capsys)
    assert [c.id for c in result.cases] == ["create-namespace", "scale-deployment"]
    assert result.cases[0].prompt == "Create a Kubernetes namespace called demo."


def test_skilljack_cases_are_cases_not_assertion_objects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = FIXTURES / "yaml/good/skilljack-list/greeting"
    out = tmp_path / "d.yaml"
    report, _ = _survey("yaml", source, out, capsys)
    assert '"tasks"                  1 file, 2 cases  refused today: declare cases.at: "tasks"' in report
    assert "in tasks" not in report  # no shape was counted in the case list
    result = import_source("yaml", source, dialect=dialect.load(out)).result
    assert result.cases[0].criteria == ["Used the greeting skill", "Ended with the HELLO_DONE marker"]


def test_name_and_description_objects_become_placeholders_with_the_description(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """{name, description}: unwritten, criterion description (no open check, exit 0 on import)."""
    source = tmp_path / "evals.json"
    case = {"id": 1, "prompt": "p", "assertions": [{"name": "tone", "description": "Is polite"}]}
    source.write_text(json.dumps({"skill_name": "s", "evals": [case]}), encoding="utf-8")
    result = _drafted("evals-json", source, tmp_path, capsys)
    (check,) = result.cases[0].checks
    assert (check.criterion, check.kind.value) == ("Is polite", "unwritten")


def test_a_vocabulary_shape_still_leaves_letter_case_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "evals.json"
    case = {"id": 1, "prompt": "p", "assertions": [{"type": "contains", "value": "x"}]}
    source.write_text(json.dumps({"skill_name": "s", "evals": [case]}), encoding="utf-8")
    _, err = _survey("evals-json", source, tmp_path / "d.yaml", capsys)
    assert err.strip().endswith("1 new rule with choices left open.")


@pytest.mark.parametrize("inner", ["message", "text", "goal"])
def test_payload_prompts_are_alternatives(
    inner: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "evals.json"
    cases = [{"id": 1, "payload": {inner: "Do it", "lang": "en"}, "assertions": ["Did it"]}]
    source.write_text(json.dumps({"skill_name": "s", "evals": cases}), encoding="utf-8")
    result = _drafted("evals-json", source, tmp_path, capsys)
    assert result.cases[0].prompt == "Do it"
    assert [n.key for n in result.cases[0].notes] == ["payload.lang"]


def test_a_file_with_no_prompt_key_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "a.yaml").write_text("name: a\ntask: go\n", encoding="utf-8")
    (folder / "b.yaml").write_text("name: b\nsteps: [one, two]\n", encoding="utf-8")
    report, _ = _survey("yaml", folder, tmp_path / "d.yaml", capsys)
    assert f"  no prompt key found: {folder / 'b.yaml'}\n" in report
    assert "no prompt key found: " + str(folder / "a.yaml") not in report


def test_statements_of_success_are_proposed_and_what_must_not_happen_is_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """expected_behavior (a list) and success_criteria (a sentence) become prose criteria;
    forbidden_behaviors stays a note (as prose it would read as a requirement)."""
    source = tmp_path / "evals.json"
    case = {
        "id": 1,
        "prompt": "p",
        "expected_behavior": ["Refuses", "Explains why"],
        "success_criteria": "Stays calm",
        "forbidden_behaviors": ["Edits the file"],
    }
    source.write_text(json.dumps({"skill_name": "s", "evals": [case]}), encoding="utf-8")
    result = _drafted("evals-json", source, tmp_path, capsys)
    assert result.cases[0].criteria == ["Refuses", "Explains why", "Stays calm"]
    assert [n.key for n in result.cases[0].notes] == ["forbidden_behaviors"]


def test_one_case_files_beside_a_list_file_are_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "a.yaml").write_text("name: a\ntask: go\n", encoding="utf-8")
    (folder / "b.yaml").write_text("tasks:\n  - {name: b, prompt: x}\n", encoding="utf-8")
    out = tmp_path / "d.yaml"
    _survey("yaml", folder, out, capsys)
    assert "1 file of one case each would be refused" in out.read_text(encoding="utf-8")


@pytest.mark.corpus
@pytest.mark.skipif(
    not (CORPUS / "evals-json").is_dir(), reason="../shared/corpus is not beside this checkout"
)
def test_corpus_expected_behavior_lists_are_proposed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """going-kr/going-ui-skill (43 cases) and MojiWeather (9) keep their criteria in
    expected_behavior, 2 more cases elsewhere: 54 by a count of the JSON. The draft proposes
    expected_behavior and never forbidden_behaviors."""
    out = tmp_path / "d.yaml"
    report, _ = _survey("evals-json", CORPUS / "evals-json", out, capsys)
    assert 'Statements of success (prose criteria, proposed in the draft): "expected_behavior" (54)' in report
    drafted = out.read_text(encoding="utf-8").split("assertions:")[0]
    assert "- expected_behavior" in drafted and "forbidden_behaviors" not in drafted


def test_a_vocabulary_shape_with_no_single_needle_key_says_which(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """{type: contains, value, values}: two candidate keys, both named; {type: is_json}: none left."""
    source = tmp_path / "evals.json"
    items = [{"type": "contains", "value": "a", "values": ["b"]}, {"type": "is_json"}]
    source.write_text(
        json.dumps({"skill_name": "s", "evals": [{"id": 1, "prompt": "p", "assertions": items}]}),
        encoding="utf-8",
    )
    out = tmp_path / "d.yaml"
    _survey("evals-json", source, out, capsys)
    text = out.read_text(encoding="utf-8")
    assert "needle: # the key holding the argument: one of value, values" in text
    assert "needle: # no key left: is_json or unwritten?" in text
