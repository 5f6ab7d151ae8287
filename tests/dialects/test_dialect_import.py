"""import and lint with a dialect, as a user runs them: summary, re-import, lint, hook args."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from adhd_evals.entry import main
from adhd_evals.entry import main as entry_main
from adhd_evals.importing import dialect
from adhd_evals.importing.importer import import_source
from helpers import Fixture, fixtures

SOURCE = {
    "skill_name": "notes",
    "evals": [
        {
            "id": 1,
            "prompt": "Write notes for 2.4",
            "assertions": [
                {"type": "contains", "value": "Dark mode", "description": "Names dark mode"},
                {"type": "contains", "value": "Fixes", "description": "Has a Fixes section"},
                {"type": "tone", "value": "calm"},
            ],
        },
    ],
}
RULE = """adhd-evals-dialect: 1
format: evals-json
assertions:
  - when: {{type: contains}}
    check: contains
    needle: value
    case: {case}
    criterion: description
"""


def _write(tmp_path: Path, case: str = "sensitive") -> tuple[Path, Path]:
    source = tmp_path / "evals.json"
    source.write_text(json.dumps(SOURCE))
    rules = tmp_path / "dialect.yaml"
    rules.write_text(RULE.format(case=case))
    return source, rules


def test_summary_counts_per_rule_and_placeholders_by_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, rules = _write(tmp_path)
    assert main(["import", "--format", "evals-json", str(source), "--dialect", str(rules)]) == 0
    err = capsys.readouterr().err
    assert "converted 2 assertions into checks" in err
    assert f"Dialect {rules}:" in err
    assert '  rule 1 ({type: "contains"} -> contains): 2 converted' in err
    assert 'by shape: {type: "tone"} 1.' in err
    assert "adhd-evals survey --format evals-json" in err


def test_without_a_dialect_typed_shapes_are_counted_and_survey_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, _ = _write(tmp_path)
    assert main(["import", "--format", "evals-json", str(source)]) == 0
    err = capsys.readouterr().err
    assert "converted 0 assertions" in err
    assert 'by shape: {type: "contains"} 2, {type: "tone"} 1.' in err


def test_changed_dialect_regenerates_untouched_checks_and_keeps_edited_ones(tmp_path: Path) -> None:
    source, rules = _write(tmp_path, "sensitive")
    out = tmp_path / "evals"
    import_source("evals-json", source, out=out, dialect=dialect.load(rules))
    module = out / "checks.py"
    before = module.read_text()
    assert 'return contains(answer, "Dark mode", ignore_case=False)' in before
    assert 'return contains(answer, "Fixes", ignore_case=False)' in before
    edited = "return 'fixes' in answer.lower()  # ours"
    module.write_text(before.replace('return contains(answer, "Fixes", ignore_case=False)', edited))
    rules.write_text(RULE.format(case="insensitive"))
    outcome = import_source("evals-json", source, out=out, dialect=dialect.load(rules))
    after = module.read_text()
    assert 'return contains(answer, "Dark mode", ignore_case=True)' in after  # regenerated
    assert edited in after  # a person's edit stays
    assert 'contains(answer, "Fixes"' not in after  # the criterion kept its text: no second check
    assert outcome.merge_report is not None and "Kept 1" in " ".join(outcome.merge_report.lines())
    assert f"Dialect: {rules} (blake2s {dialect.load(rules).digest})." in after


def test_dialect_for_another_format_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, rules = _write(tmp_path)
    rules.write_text(RULE.format(case="sensitive").replace("format: evals-json", "format: yaml"))
    assert main(["import", "--format", "evals-json", str(source), "--dialect", str(rules)]) == 2
    assert "is for yaml, not evals-json" in capsys.readouterr().err


def test_lint_applies_the_dialect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "skill" / "evals"
    folder.mkdir(parents=True)
    (folder / "evals.json").write_text(
        json.dumps(
            {
                "skill_name": "s",
                "evals": [{"id": 1, "prompt": "p", "assertions": [{"type": "contains", "valeu": "x"}]}],
            },
            indent=2,
        )
    )
    rules = tmp_path / "dialect.yaml"
    rules.write_text(RULE.format(case="sensitive"))
    assert entry_main(["lint", str(tmp_path / "skill")]) == 0  # without it: a placeholder, no problem
    capsys.readouterr()
    assert entry_main(["lint", "--dialect", str(rules), str(tmp_path / "skill")]) == 1
    out = capsys.readouterr().out
    # Lines: {, skill_name, evals, {, id, prompt, assertions, then the object, indented 8.
    assert "evals.json:8:9: CaseFileNotEvalsJson" in out
    assert "assertions[0].value" in out and "missing" in out


def test_lint_reports_a_bad_dialect_at_its_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "dialect.yaml"
    rules.write_text(
        "adhd-evals-dialect: 1\nformat: evals-json\nassertions:\n  - when: {type: x}\n    check: nope\n"
    )
    (tmp_path / "cases.jsonl").write_text("")
    assert entry_main(["lint", "--dialect", str(rules), str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"{rules}:5:12: DialectInvalid" in out
    assert "assertions[0].check" in out


def test_pre_commit_args_reach_lint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """pre-commit appends the file names after the hook's args: --dialect FILE must work there."""
    rules = tmp_path / "dialect.yaml"
    rules.write_text(RULE.format(case="sensitive"))
    (tmp_path / "evals").mkdir()
    source = tmp_path / "evals" / "evals.json"
    source.write_text(json.dumps(SOURCE))
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert entry_main(["lint", "--dialect", "dialect.yaml", "evals/evals.json"]) == 0
    finally:
        os.chdir(cwd)
    assert "Checked 1 file and 1 case" in capsys.readouterr().out


def test_a_criteria_place_that_holds_nothing_leaves_its_key_to_the_format(tmp_path: Path) -> None:
    """`assertions.objective[]` reads grouped assertions; a plain assertions list is still read,
    and a key the place does not find is kept as a note, never dropped."""
    source = tmp_path / "evals.json"
    source.write_text(
        json.dumps(
            {
                "skill_name": "s",
                "evals": [
                    {"id": 1, "prompt": "p", "assertions": {"objective": ["Grouped one"]}},
                    {"id": 2, "prompt": "q", "assertions": ["Plain one"], "scorers": {"x": 1}},
                ],
            }
        )
    )
    rules = tmp_path / "dialect.yaml"
    rules.write_text(
        "adhd-evals-dialect: 1\nformat: evals-json\ncases:\n"
        '  criteria: ["assertions.objective[]", "scorers.list[]"]\n'
    )
    result = import_source("evals-json", source, dialect=dialect.load(rules)).result
    assert [c.criteria for c in result.cases] == [["Grouped one"], ["Plain one"]]
    assert [(n.key, n.value) for n in result.cases[1].notes] == [("scorers", {"x": 1})]


def test_skipped_multiturn_fixture_lists_what_it_left_out_and_why() -> None:
    """fixtures/evals-json/good/dialect-skipped-multiturn (see its WORKING.md): case 2 has
    `query_flow` (the first skip entry), case 3's status is "draft" (the second); each is
    left out with its entry's reason and the id it would have had (integer ids take the
    slug of skill_name, order-support); cases 1 and 4 are read."""
    found: list[Fixture] = [f for f in fixtures("good") if f.folder.name == "dialect-skipped-multiturn"]
    fixture = found[0]
    result = import_source(
        "evals-json", fixture.source, display="evals.json", dialect=fixture.dialect()
    ).result
    assert [(x.case, x.id, x.reason) for x in result.left_out] == [
        ("case 2", "order-support-2", "multi-turn conversation"),
        ("case 3", "order-support-3", "not reviewed yet"),
    ]
    assert [case.id for case in result.cases] == ["order-support-1", "order-support-4"]
