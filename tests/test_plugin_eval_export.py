"""export --to plugin-eval: the catalog as a suite folder, and `import` of it gives every case's
five fields back (a property over random catalogs), with each plugin eval grader an import
made written back as that grader.

Random catalogs: ids, categories, prompts and criteria of awkward text (quotes, backslashes,
newlines, CR, U+2028, non-ASCII, YAML's own words), each criterion prose, a regex grader on the
final message, a tool_used grader (a trace check), or a mechanical check plugin eval cannot state (it
goes as an llm grader, listed lost). ADHD_EVALS_FUZZ raises the number of examples.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.importing import checkgen
from adhd_evals.importing.formats.plugin_eval.export import export_suite, write_suite
from adhd_evals.importing.formats.plugin_eval.graders import check_of, validate
from adhd_evals.importing.importer import read_source
from adhd_evals.importing.model import Case, Check, CheckKind, ImportResult

EXAMPLES = int(os.environ.get("ADHD_EVALS_FUZZ", "25"))
TEXT = st.text(
    alphabet=st.sampled_from(list("ab Z09-:#\"'\\\n\r\t\u2028é日😀yes---")), min_size=1, max_size=20
).filter(lambda t: bool(t.strip()))
NAME = st.text(alphabet=st.sampled_from(list("abc-xyz")), min_size=1, max_size=8)
PATTERN = st.text(alphabet=st.sampled_from(list("ab.^$*+?()|/ \\d")), min_size=1, max_size=8)


def _regex(name: str, pattern: str, flags: str, match: str) -> Check | None:
    grader: dict[str, Any] = {"name": name, "type": "regex", "pattern": pattern, "match": match}
    if flags:
        grader["flags"] = flags
    try:
        return check_of(validate(grader))  # as the import does
    except Exception:  # a pattern JavaScript or Python cannot read: not this test's concern
        return None


@st.composite
def _check(draw: st.DrawFn, index: int) -> Check:
    kind = draw(st.sampled_from(["prose", "regex", "tool", "contains"]))
    name = f"{draw(NAME)}-{index}"
    if kind == "regex":
        found = _regex(
            name,
            draw(PATTERN),
            draw(st.sampled_from(["", "i", "m", "ms"])),
            draw(st.sampled_from(["contains", "not_contains", "count:2"])),
        )
        if found is not None:
            return found
    if kind == "tool":
        return check_of({"name": name, "type": "tool_used", "tool": draw(TEXT), "min": 0, "max": 0})
    text = draw(TEXT)
    if kind == "contains":
        return Check(text, CheckKind.CONTAINS, ("x",), (("ignore_case", False),))
    return Check(text, CheckKind.UNWRITTEN, (text,))


@st.composite
def catalogs(draw: st.DrawFn) -> list[Case]:
    ids = draw(st.lists(TEXT, min_size=1, max_size=4, unique=True))
    cases = []
    for case_id in ids:
        checks = [draw(_check(i)) for i in range(draw(st.integers(1, 4)))]
        assume(len({c.criterion for c in checks}) == len(checks))  # a module keys checks by criterion
        category = draw(TEXT)
        assume(not category.startswith("adhd-evals:risk="))
        cases.append(
            Case(
                case_id, category, draw(TEXT), draw(st.sampled_from(["low", "medium", "high"])), tuple(checks)
            )
        )
    return cases


def _write(cases: list[Case], folder: Path) -> None:
    result = ImportResult("catalog", "plugin-eval", tuple(cases), "medium", False)
    (folder / "cases.jsonl").write_text("".join(c.catalog_line() + "\n" for c in cases), encoding="utf-8")
    (folder / "checks.py").write_text(checkgen.render(result), encoding="utf-8")


@pytest.mark.long
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(cases=catalogs())
def test_import_of_the_export_gives_the_five_fields_back(cases: list[Case]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _write(cases, folder)
        files, count, lost = export_suite(folder / "cases.jsonl", folder / "checks.py")
        write_suite(folder / "suite", files)
        back = read_source("plugin-eval", folder / "suite").cases
    assert count == len(cases)
    assert [c.catalog_line() for c in back] == [c.catalog_line() for c in cases]
    for before, after in zip(cases, back, strict=True):
        for old, new in zip(before.checks, after.checks, strict=True):
            if old.kind is CheckKind.CONTAINS:
                assert (
                    f"{before.id}: the contains check of {old.criterion!r} goes as an llm grader (its text)"
                    in lost
                )
            elif old.via:  # an import's grader: a regex as the same call, a carried one as itself
                assert (new.kind, new.args, new.options) == (old.kind, old.args, old.options)
            else:  # prose: prose again
                assert (new.kind, new.criterion) == (CheckKind.UNWRITTEN, old.criterion)


def _catalog(folder: Path, cases: list[Case]) -> Path:
    _write(cases, folder)
    return folder / "cases.jsonl"


def test_a_hand_written_check_is_listed_lost_and_goes_as_its_text(tmp_path: Path) -> None:
    case = Case("a", "c", "Hi", "low", (Check("Says hi.", CheckKind.UNWRITTEN, ("Says hi.",)),))
    _catalog(tmp_path, [case])
    module = (tmp_path / "checks.py").read_text()
    (tmp_path / "checks.py").write_text(
        module.replace('return unwritten("Says hi.")', 'return "hi" in answer')
    )
    files, _, lost = export_suite(tmp_path / "cases.jsonl", tmp_path / "checks.py")
    assert lost == ["a: the hand-written check of 'Says hi.' goes as an llm grader (its text)"]
    assert files["1-a/case.yaml"] == 'graders:\n- name: criterion-1\n  type: llm\n  criteria: "Says hi."\n'
    assert (
        files["1-a/prompt.md"]
        == '---\nschema_version: "1.1"\nname: a\ntags:\n- c\n- "adhd-evals:risk=low"\n---\nHi'
    )


def test_without_a_module_every_criterion_is_an_llm_grader(tmp_path: Path) -> None:
    _catalog(tmp_path, [Case("a", "c", "Hi", "low", (Check("x", CheckKind.UNWRITTEN, ("x",)),) * 2)])
    files, _, lost = export_suite(tmp_path / "cases.jsonl", None)
    assert "name: criterion-1\n" in files["1-a/case.yaml"] and "name: criterion-2\n" in files["1-a/case.yaml"]
    assert lost == []


def test_an_edited_criterion_no_longer_matching_its_grader_goes_as_its_text(tmp_path: Path) -> None:
    """The carried grader would import to another criterion: written as an llm grader instead."""
    check = check_of(validate({"name": "t", "type": "file_exists", "path": "out.md"}))
    edited = Check("Writes out.md.", CheckKind.UNWRITTEN, check.args)
    _catalog(tmp_path, [Case("a", "c", "Hi", "low", (edited,))])
    files, _, _ = export_suite(tmp_path / "cases.jsonl", tmp_path / "checks.py")
    assert 'criteria: "Writes out.md."' in files["1-a/case.yaml"]


def test_the_cli_writes_a_new_folder_and_never_over_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = _catalog(tmp_path, [Case("a", "c", "Hi", "low", (Check("x", CheckKind.UNWRITTEN, ("x",)),))])
    argv = ["export", "--to", "plugin-eval", "--cases", str(cases), "--suite", str(tmp_path / "checks.py")]
    assert main([*argv, "--out", str(tmp_path / "suite")]) == exitcodes.OK
    assert (tmp_path / "suite" / "1-a" / "prompt.md").is_file()
    assert "Wrote" in capsys.readouterr().err
    assert main([*argv, "--out", str(tmp_path / "suite")]) == exitcodes.OUTPUT
    assert "exists and is not an empty folder" in capsys.readouterr().err
    assert not list(tmp_path.glob(".suite.*"))


def test_an_unreadable_module_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = _catalog(tmp_path, [Case("a", "c", "Hi", "low", (Check("x", CheckKind.UNWRITTEN, ("x",)),))])
    (tmp_path / "checks.py").write_text("def (:\n")
    argv = ["export", "--to", "plugin-eval", "--cases", str(cases), "--suite", str(tmp_path / "checks.py")]
    assert main([*argv, "--out", str(tmp_path / "suite")]) == exitcodes.USAGE
    assert not (tmp_path / "suite").exists()
