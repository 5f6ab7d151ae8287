"""Listing unwritten(...) placeholders from a module without executing it."""

from __future__ import annotations

from adhd_evals.importing.importer import import_source
from adhd_evals.lint.placeholders import find_placeholders
from helpers import fixtures

DIALECTS = next(f for f in fixtures("good") if f.name == "evals-json/dialects")


def test_every_placeholder_of_an_import_is_listed_with_its_position() -> None:
    outcome = import_source("evals-json", DIALECTS.source)
    found = find_placeholders(outcome.module)
    expected = [
        (c.id, check.criterion) for c in outcome.result.cases for check in c.checks if not check.mechanical
    ]
    assert [(p.case_id, p.criterion) for p in found] == expected
    lines = outcome.module.splitlines()
    for placeholder in found:
        assert lines[placeholder.line - 1][placeholder.column - 1 :].startswith("unwritten(")


def test_a_written_check_is_no_longer_listed() -> None:
    module = """
@check("a", "Mentions dark mode")
def check_a_1(answer: str) -> bool:
    return "dark mode" in answer.lower()


@check("a", "Reads well")
def check_a_2(answer: str) -> bool:
    return len(answer) < 400 and unwritten("Reads well")


def unwritten(criterion: str) -> bool:
    return False
"""
    found = find_placeholders(module)
    assert [(p.case_id, p.criterion, p.line, p.column) for p in found] == [("a", "Reads well", 9, 34)]
