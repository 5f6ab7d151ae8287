"""One home per concept, tested by value: the CLI's choices and defaults are the core's
constants, every refusal carries its own exit code, and the check vocabulary is one set
wherever it is written (CheckKind, vocabulary.py, dialect.VOCABULARY, the dialect schema, its
page, the plain helpers of checkhelpers.py), read from one dialect schema file."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path, PurePath
from typing import Any

import pytest
import typer

from adhd_evals import exitcodes, schema
from adhd_evals.boundary import guard
from adhd_evals.cli import app
from adhd_evals.entry import main
from adhd_evals.exitcodes import RefusalCode
from adhd_evals.importing import checkhelpers, dialect, tracehelpers, vocabulary
from adhd_evals.importing.catalogue import lint_names, readers, source_names
from adhd_evals.importing.formats import READERS
from adhd_evals.importing.model import CheckKind, Refusal
from adhd_evals.lint import FORMATS
from helpers import ROOT

PACKAGE_SCHEMA = ROOT / "src" / "adhd_evals" / "importing" / "dialect.schema.json"
PUBLISHED_SCHEMA = ROOT / "schemas" / "dialect.schema.json"


def _commands() -> dict[str, Any]:
    # typer carries its own copy of click: its objects are read by attribute, not isinstance
    commands: dict[str, Any] = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    return commands


def _params(command: str) -> dict[str, Any]:
    return {p.name: p for p in _commands()[command].params}


@pytest.mark.parametrize(
    ("argv", "option", "constant"),
    [
        (["import", "x.json", "--format"], "'--format' / '-f'", source_names()),
        (["survey", "x.json", "--format"], "'--format' / '-f'", source_names()),
        (["import", "x.json", "--risk"], "'--risk'", schema.RISKS),
        (["run", "--runner-config", "r.json", "--condition"], "'--condition'", schema.CONDITIONS),
    ],
)
def test_cli_choices_are_the_core_constants(
    argv: list[str], option: str, constant: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """A value outside the choices is a usage error (2) that lists the choices offered, in
    order: they are the constant's values, nothing copied beside it."""
    assert main([*argv, "nope"]) == exitcodes.USAGE
    offered = ", ".join(f"'{value}'" for value in constant)
    assert f"Invalid value for {option}: 'nope' is not one of {offered}." in capsys.readouterr().err


def test_constants_are_what_the_rules_say() -> None:
    """Worked from the catalog's rules: five fields in line order, three of them text, three
    risks with medium the default; six formats import reads (evals-json, yaml, evalflow,
    promptfoo, plugin-eval, trigger-list, in the order its help has always listed them), lint
    reading those plus the catalog and check module they become (eight, in its own help's
    order); three conditions."""
    assert schema.FIELDS == ("id", "category", "prompt", "risk", "criteria")
    assert schema.TEXT_FIELDS == ("id", "category", "prompt")
    assert schema.RISKS == ("low", "medium", "high") and schema.DEFAULT_RISK in schema.RISKS
    assert source_names() == ("evals-json", "yaml", "evalflow", "promptfoo", "plugin-eval", "trigger-list")
    assert lint_names() == (
        "catalog",
        "evals-json",
        "evalflow",
        "yaml",
        "module",
        "promptfoo",
        "plugin-eval",
        "trigger-list",
    )
    assert schema.CONDITIONS == ("baseline", "candidate", "comparator")


def test_format_names_have_one_home() -> None:
    """lint's formats are the catalogue's; each import format has one reader module, and the
    readers' registry is the catalogue's list of them."""
    assert lint_names() == FORMATS
    assert list(READERS) == list(readers()) == list(source_names())
    assert len(set(readers().values())) == len(readers())


def _cases_defaults() -> list[tuple[str, Any]]:
    return [
        (name, param.default)
        for name, command in _commands().items()
        for param in command.params
        if param.name == "cases" and param.default is not None
    ]


def test_every_cases_default_is_the_default_catalog() -> None:
    """Every command with a --cases default (validate, check, plan, run, judge, verdicts,
    report, export: eight at least) reads the one default catalog."""
    defaults = _cases_defaults()
    assert len(defaults) >= 8
    assert {str(default) for _, default in defaults} == {"evals/cases.jsonl"}
    assert PurePath("evals/cases.jsonl") == schema.DEFAULT_CATALOG
    assert PurePath("evals/checks.py") == schema.DEFAULT_MODULE


def test_export_suite_default_is_the_default_module() -> None:
    assert Path(_params("export")["suite"].default) == Path(schema.DEFAULT_MODULE)


def test_every_refusal_has_a_distinct_exit_code() -> None:
    """One exit code per refusal, none shared with another refusal or with a named outcome
    (OK, FAILED, USAGE ... the scale codes), so a script can tell them all apart."""
    codes = [code.exit_code for code in RefusalCode]
    assert len(set(codes)) == len(codes)
    named = {v for k, v in vars(exitcodes).items() if k.isupper() and isinstance(v, int)}
    assert not named & set(codes)
    assert {code.value: code.exit_code for code in RefusalCode} == exitcodes.REFUSAL


@pytest.mark.parametrize("code", list(RefusalCode))
def test_every_refusal_leaves_through_the_boundary_with_its_code(
    code: RefusalCode, capsys: pytest.CaptureFixture[str]
) -> None:
    """A refusal raised inside a command becomes its own exit code and message, never an
    internal error (70) with a traceback."""

    def refuse() -> int:
        raise Refusal(code, "cases.json", "is refused")

    assert guard(refuse) == code.exit_code
    err = capsys.readouterr().err
    assert f"refused ({code.value})" in err and "internal error" not in err


def test_the_published_dialect_schema_is_the_package_one() -> None:
    """The package reads its own copy; the top-level schemas/ one is for editors and must be
    the same bytes."""
    assert PUBLISHED_SCHEMA.read_bytes() == PACKAGE_SCHEMA.read_bytes()


# Check kinds the dialect cannot name: promptfoo's not- forms (a dialect negates with
# not_regex and contains_none), made only by the promptfoo reader.
PROMPTFOO_ONLY = {"not_contains_all", "not_equals", "not_starts_with", "not_is_json"}
# tool_order takes two steps, which no one-needle dialect rule can give: only code writes it.
TRACE_ONLY = {"tool_order"}
# Check kinds only the plugin eval reader makes: a regex grader's `match: count:N`.
PLUGIN_EVAL_ONLY = {"regex_count"}
# vocabulary.py's public callables that are not checks: the decorator, and the word counter
# min_words/max_words share.
NOT_CHECKS = {"check", "words"}


def test_vocabulary_functions_are_the_check_kinds() -> None:
    """The text checks are vocabulary.py's, the trace checks tracehelpers.py's: together, every kind."""
    functions = {
        name
        for module in (vocabulary, tracehelpers)
        for name, value in vars(module).items()
        if inspect.isfunction(value) and not name.startswith("_") and value.__module__ == module.__name__
    }
    assert functions - NOT_CHECKS == {kind.value for kind in CheckKind}


def test_dialect_schema_check_enum_is_the_check_kinds() -> None:
    """The dialect schema's check enum is every kind but promptfoo's own: CheckKind counted by
    hand is 5 (the import's own) + 11 (the vocabulary's rest) + 4 (promptfoo's) + 1 (plugin
    eval's count) = 21 kinds, so 16 a dialect can name."""
    enum = json.loads(PACKAGE_SCHEMA.read_text(encoding="utf-8"))["$defs"]["check"]["enum"]
    assert len(enum) == len(set(enum)) == 18
    assert set(enum) | PROMPTFOO_ONLY | TRACE_ONLY | PLUGIN_EVAL_ONLY == {kind.value for kind in CheckKind}
    assert not set(enum) & (PROMPTFOO_ONLY | PLUGIN_EVAL_ONLY)


def test_the_dialect_vocabulary_is_the_schema_enum() -> None:
    """dialect.VOCABULARY (what a rule's check may name, survey's list) is the schema's check
    enum; its five groups by needle split it with nothing shared:
    6 one-text + 4 list + 4 count + 2 needle-free + 2 over the trace = 18."""
    enum = json.loads(PACKAGE_SCHEMA.read_text(encoding="utf-8"))["$defs"]["check"]["enum"]
    groups = [dialect.ONE_TEXT, dialect.TEXTS, dialect.COUNTS, dialect.NO_NEEDLE, dialect.TRACED]
    assert [len(group) for group in groups] == [6, 4, 4, 2, 2]
    assert sorted(dialect.VOCABULARY) == sorted(name for group in groups for name in group)
    assert len(set(dialect.VOCABULARY)) == 18
    assert set(dialect.VOCABULARY) == set(enum)


def test_the_schema_s_criteria_checks_are_the_vocabulary_s_text_checks() -> None:
    """A criteria place's `check` compares needles taken from the case as text, so it must
    state letter case: the schema's enum there is the one- and list-needle checks that do
    (CASE_FREE set aside): 6 + 4 - matches_exactly = 9."""
    criteria = json.loads(PACKAGE_SCHEMA.read_text(encoding="utf-8"))["properties"]["cases"]
    place = criteria["properties"]["criteria"]["items"]["oneOf"][1]["properties"]["check"]["enum"]
    text_checks = {*dialect.ONE_TEXT, *dialect.TEXTS} - set(dialect.CASE_FREE)
    assert len(place) == len(set(place)) == 9
    assert set(place) == text_checks


def test_the_vocabulary_page_names_every_check_once() -> None:
    """docs/dialects.md's table of the check vocabulary names each check a dialect can name,
    once (a check missing from the page, or a page row naming a check that is not one, fails)."""
    page = (ROOT / "docs" / "dialects.md").read_text(encoding="utf-8")
    section = page.split("\n## The check vocabulary\n", 1)[1].split("\n## ", 1)[0]
    first_cells = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    named = [name for cell in first_cells for name in re.findall(r"`(\w+)`", cell)]
    assert sorted(named) == sorted(dialect.VOCABULARY)


# The kinds a format reader makes without a dialect (model.py lists them first).
PLAIN_KINDS = {
    CheckKind.CONTAINS_ANY,
    CheckKind.CONTAINS_ALL,
    CheckKind.CONTAINS_NONE,
    CheckKind.MATCHES_EXACTLY,
    CheckKind.UNWRITTEN,
}


def test_the_plain_helpers_are_the_plain_kinds_and_part_of_the_vocabulary() -> None:
    """checkhelpers.py (a module imported without a dialect) defines `check` and one helper per
    kind a reader makes without a dialect, every one a vocabulary function too."""
    plain = {
        name
        for name, value in vars(checkhelpers).items()
        if inspect.isfunction(value)
        and not name.startswith("_")
        and value.__module__ == checkhelpers.__name__
    }
    assert plain == {"check"} | {kind.value for kind in PLAIN_KINDS}
    assert plain - {"check"} <= set(dialect.VOCABULARY)
    assert all(inspect.isfunction(getattr(vocabulary, name, None)) for name in plain)


def test_there_is_one_dialect_schema_and_the_package_reads_it() -> None:
    """The loader's path is the package's file; the only other file of that name anywhere in the
    project is the published copy (compared byte for byte above)."""
    assert dialect.SCHEMA_PATH.name == PACKAGE_SCHEMA.name
    assert dialect.SCHEMA_PATH.read_bytes() == PACKAGE_SCHEMA.read_bytes()
    found = sorted(
        p
        for top in ("src", "schemas", "docs", "tests", "fixtures")
        for p in (ROOT / top).rglob(PACKAGE_SCHEMA.name)
    )
    assert found == sorted([PACKAGE_SCHEMA, PUBLISHED_SCHEMA])
