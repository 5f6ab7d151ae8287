"""survey: golden reports and draft dialects, found from disk (fixtures/survey/<name>/).

Each folder holds sources, `fixture.json` (format, sources, optionally an
existing dialect file to extend) and `expected/report.txt` and
`expected/dialect.yaml`. Regenerate with --regen-golden and review the diff.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from adhd_evals.entry import main
from adhd_evals.importing import dialect
from adhd_evals.importing.model import Refusal
from helpers import FIXTURES

FOLDERS = sorted(p.parent for p in (FIXTURES / "survey").glob("*/fixture.json"))


def _survey(folder: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    meta = json.loads((folder / "fixture.json").read_text())
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        code = main(["survey", "--format", meta["format"], *meta["sources"], "--out", str(out)])
    finally:
        os.chdir(cwd)
    return code, capsys.readouterr().out


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_survey_matches_golden(
    folder: Path, tmp_path: Path, regen_golden: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    meta = json.loads((folder / "fixture.json").read_text())
    out = tmp_path / "dialect.yaml"
    if "existing" in meta:
        shutil.copy(folder / meta["existing"], out)
    code, report = _survey(folder, out, capsys)
    assert code == 0
    expected = folder / "expected"
    if regen_golden:
        expected.mkdir(exist_ok=True)
        (expected / "report.txt").write_text(report, encoding="utf-8")
        (expected / "dialect.yaml").write_text(out.read_text(encoding="utf-8"), encoding="utf-8")
        pytest.skip("golden files regenerated: review the diff")
    assert report == (expected / "report.txt").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == (expected / "dialect.yaml").read_text(encoding="utf-8")


def test_rerun_keeps_every_line_a_person_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = FIXTURES / "survey" / "rerun-keeps-comments"
    out = tmp_path / "dialect.yaml"
    shutil.copy(folder / "existing.yaml", out)
    _survey(folder, out, capsys)
    written = out.read_text(encoding="utf-8")
    for line in (folder / "existing.yaml").read_text(encoding="utf-8").splitlines():
        assert line.strip() in written
    assert written.count("when: {type: contains}") == 1  # the person's rule, not a second one
    for added in ("when: {type: regex}", "when: {type: contains_any}"):
        assert added in written
    _survey(folder, out, capsys)  # a third run adds nothing
    assert out.read_text(encoding="utf-8") == written


def test_draft_is_refused_until_the_open_choices_are_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "dialect.yaml"
    _survey(FIXTURES / "survey" / "mixed-shapes", out, capsys)
    with pytest.raises(Refusal) as refused:
        dialect.load(out)
    assert refused.value.field_path is not None and refused.value.field_path.endswith(".check")


def test_filled_draft_imports_the_surveyed_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = FIXTURES / "survey" / "mixed-shapes"
    out = tmp_path / "dialect.yaml"
    _survey(folder, out, capsys)
    text = out.read_text(encoding="utf-8")
    for name in ("contains", "regex", "contains_any"):  # the person's choices
        text = text.replace(
            f"check:  # perhaps {name}, if it means what the vocabulary's {name} does\n",
            f"check: {name}\n",
            1,
        )
    text = text.replace("check:  # choose\n", "check: unwritten\n")  # the type-less {check, name}
    text = text.replace(
        "case:  # sensitive | insensitive (not needed for counts, is_json, unwritten)", "case: insensitive"
    )
    out.write_text(text, encoding="utf-8")
    loaded = dialect.load(out)
    assert [r.check for r in loaded.rules] == ["contains", "unwritten", "contains_any", "regex"]
    assert loaded.rules[1].has == ("check", "name") and loaded.rules[1].when == ()
    from adhd_evals.importing.importer import import_source

    result = import_source("evals-json", folder / "skills/b/evals/evals.json", dialect=loaded).result
    assert [c.id for c in result.cases] == ["b-1"]
    assert [c.kind.value for c in result.cases[0].checks] == ["contains_any", "unwritten"]


def test_a_draft_from_hostile_keys_reads_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Keys and values holding a newline, U+2028, NEL, ESC and NUL: the draft's comments quote
    them, and before they were written raw, so a comment ended mid-line and the draft did
    not read back as YAML. Each comment is one line now (the characters as escapes), the
    draft loads, and the survey's own report keeps one line per shape (the label is JSON, so
    ESC is already `\\u001b` there; keys are listed sorted, NUL first)."""
    from ruamel.yaml import YAML

    hostile = {"type": "cont\u2028ains\x1b[31m", "va\nlue": "x\u0085y", "\x00k": "z"}
    source = tmp_path / "evals.json"
    source.write_text(
        json.dumps({"skill_name": "s", "evals": [{"id": 1, "prompt": "p", "assertions": [hostile]}]})
    )
    out = tmp_path / "dialect.yaml"
    assert main(["survey", "--format", "evals-json", str(source), "--out", str(out)]) == 0
    report = capsys.readouterr().out
    assert "\u2028" not in report and "\x1b" not in report
    assert [line for line in report.splitlines() if "with keys" in line] == [
        '  {type: "cont\\u2028ains\\u001b[31m"} with keys {\\x00k, type, va\\nlue}: 1 in assertions, '
        f"e.g. {source}:1; today: placeholder (the object verbatim)"
    ]
    text = out.read_text(encoding="utf-8")
    rules = YAML(typ="rt").load(text)["assertions"]
    assert [dict(rule["when"]) for rule in rules] == [{"type": "cont\u2028ains\x1b[31m"}]
    assert all(line.startswith(("#", " ", "-", "a", "f")) for line in text.splitlines())


def test_choosing_unwritten_needs_nothing_else_deleted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every open rule set to `check: unwritten` and nothing else touched (needle and case
    left as the draft wrote them, open or not): the draft loads."""
    out = tmp_path / "dialect.yaml"
    _survey(FIXTURES / "survey" / "mixed-shapes", out, capsys)
    text = out.read_text(encoding="utf-8")
    lines = [
        "    check: unwritten" if line.startswith("    check:  #") else line for line in text.splitlines()
    ]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert [r.check for r in dialect.load(out).rules] == ["unwritten"] * 4


def test_imported_today_is_said_only_of_files_that_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two files with an "evals" list: one imports, one has a case without a prompt (import
    refuses it). By hand: 1 imported, 1 of 2 refused."""
    for name, case in (("a", {"id": 1, "prompt": "p"}), ("b", {"id": 1, "question": "q"})):
        (tmp_path / name).mkdir()
        (tmp_path / name / "evals.json").write_text(json.dumps({"skill_name": name, "evals": [case]}))
    assert main(["survey", "--format", "evals-json", str(tmp_path)]) == 0
    assert (
        '"evals"                  2 files, 2 cases  1 imported today, 1 of 2 refused today'
        in capsys.readouterr().out
    )


def test_nested_prompts_are_drafted_as_alternatives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "evals.json"
    source.write_text(json.dumps({"evals": [{"id": 1, "inputs": {"prompt": "p"}}, {"id": 2, "prompt": "q"}]}))
    out = tmp_path / "dialect.yaml"
    assert main(["survey", "--format", "evals-json", str(source), "--out", str(out)]) == 0
    assert dialect.load(out).cases.prompt == ("prompt", "inputs.prompt")


def test_files_without_a_case_list_are_named_and_a_bare_list_is_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """evals-json: a file that is a list of cases is counted as "(the file is a list)" (import
    refuses it until the dialect says `cases.at: "."`); a number, and an object holding no list
    of objects (`tags: ["a"]` holds strings), have no case list: each is named, none dropped.
    yaml: a file that is a list is not one case: named too."""
    (tmp_path / "a.json").write_text('[{"id": 1, "prompt": "p", "assertions": [{"text": "x"}]}]')
    (tmp_path / "b.json").write_text("42")
    (tmp_path / "c.json").write_text('{"name": "x", "tags": ["a"]}')
    code = main(["survey", "--format", "evals-json", str(tmp_path), "--out", str(tmp_path / "d.yaml")])
    out = capsys.readouterr().out
    assert code == 0
    assert "Surveyed 3 files (evals-json): 3 read, 0 unreadable, 1 case." in out
    assert '(the file is a list)     1 file, 1 case  refused today: declare cases.at: "."' in out
    assert f"  no case list: {tmp_path / 'b.json'}\n  no case list: {tmp_path / 'c.json'}\n" in out
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "list.yaml").write_text("- a\n- b\n")
    (tasks / "task.yaml").write_text("name: t\ntask: x\n")
    code = main(["survey", "--format", "yaml", str(tasks), "--out", str(tmp_path / "y.yaml")])
    out = capsys.readouterr().out
    assert code == 0 and "Surveyed 2 files (yaml): 2 read, 0 unreadable, 1 case." in out
    assert f"  no case list: {tasks / 'list.yaml'}\n" in out
