"""The rule contract: every rule declares its scope, and the engine runs it by that scope."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from adhd_evals import catalogrules
from adhd_evals.catalogrules import engine as core_engine
from adhd_evals.catalogrules.stream import read_row
from adhd_evals.lint import engine, lint_paths
from adhd_evals.lint.rules import ORDER, RULES, SCOPES, Rule
from adhd_evals.lint.rules._contract import IN_CATALOG, IN_MODULE, IN_RECORD, Run

GOOD = {"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["Answers 102."]}


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_rule_declares_a_scope_and_what_that_scope_calls(code: str) -> None:
    """A row rule is started per run (`start`); the others are asked once (`check`); a folder
    rule says which file its lines are in."""
    rule = RULES[code]
    assert rule.SCOPE in SCOPES
    assert callable(getattr(rule, "start" if rule.SCOPE == "row" else "check", None))
    if rule.SCOPE == "folder":
        assert getattr(rule, "FILE", None) in (IN_CATALOG, IN_MODULE, IN_RECORD)


def test_the_engine_runs_every_rule_under_exactly_one_scope_in_order() -> None:
    by_scope: list[Sequence[Rule]] = [
        catalogrules.ROW_RULES,
        catalogrules.CATALOG_RULES,
        engine.MODULE_RULES,
        engine.FOLDER_RULES,
    ]
    assert sorted(r.ID for rules in by_scope for r in rules) == sorted(RULES)
    for scope, rules in zip(SCOPES, by_scope, strict=True):
        assert [r.ID for r in rules] == [r.ID for r in ORDER if scope == r.SCOPE]
    # the scopes the code has: 11 row rules, E113 on the whole catalog, E111 and W203 on a
    # module, E112, W202, W204 and E114 on a catalog with the files beside it
    assert [len(rules) for rules in by_scope] == [11, 1, 2, 4]


def test_a_row_rules_state_is_its_own_and_made_per_run() -> None:
    """E106 remembers ids across the rows of one run, and only of that run: the same row in a
    second run is no duplicate."""
    row = read_row(1, json.dumps(GOOD).encode())
    first = core_engine.RowRun()
    assert first.check(row) == []
    assert [p.code for p in first.check(row._replace(number=2))] == ["E106"]
    assert core_engine.RowRun().check(row) == []


def test_a_run_that_can_read_again_keeps_hashes_until_an_id_repeats(tmp_path: Path) -> None:
    """With a way back to the rows, E106 keeps only hashes and finds the first line again
    when an id repeats: line 3 repeats line 1 (line 2 is another id)."""
    rows = [read_row(n, json.dumps(dict(GOOD, id=i)).encode()) for n, i in ((1, "a"), (2, "b"))]
    run = core_engine.RowRun(Run(again=lambda: iter(rows), expected=3))
    for row in rows:
        assert run.check(row) == []
    [problem] = run.check(read_row(3, json.dumps(GOOD).encode()))
    assert (problem.code, problem.message) == ("E106", 'duplicate id "a": line 1 has it too')


def test_folder_rules_report_in_their_own_files(tmp_path: Path) -> None:
    """W204 is on checks.py's line, E114 on the record's, W202 on the catalog's: one lint of a
    catalog, three files. checks.py registers `b` at line 1 (its decorator); the record's
    first source's "path" value sits on line 1, column 23 (`{"sources": [{"path": ` is 22)."""
    catalog = tmp_path / "cases.jsonl"
    catalog.write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    (tmp_path / "checks.py").write_text('@check("b", "x")\ndef check_b_1(answer):\n    return True\n')
    record = tmp_path / ".adhd-evals-sources.json"
    record.write_text('{"sources": [{"path": "gone.json", "resolved": "gone.json"}]}', encoding="utf-8")
    found = [(p.code, p.path, p.line, p.column) for p in lint_paths([catalog]).problems]
    assert found == [
        ("W202", str(catalog), 1, 1),
        ("W204", str(tmp_path / "checks.py"), 1, 1),
        ("E114", str(record), 1, 23),
    ]
