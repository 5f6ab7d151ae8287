"""The catalog's fast path skips a rule only where the rule says it may (issue 36 item 7).

Each row rule declares `clean` (catalogrules/contract.py): None when the fast path's strict
parse already refuses everything it reports, else a predicate the rule's own check opens with
(the engine fuses them into one function).
The property: a catalog read with the fast path reports exactly what the rules report when
every row goes through them, over arbitrary JSON rows (a recursive strategy of any JSON value,
mixed with values near the rules' edges so that clean rows are common too).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals import catalogrules
from adhd_evals.catalogrules import engine
from adhd_evals.catalogrules.contract import CatalogRead, Predicate, Run, fused
from adhd_evals.catalogrules.engine import RowRun, check_catalog
from adhd_evals.catalogrules.row import Row
from adhd_evals.catalogrules.stream import lint_lines, read_row
from adhd_evals.problem import ERROR, Finding, Problem

GOOD = {"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["Answers 102."]}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
near_text = st.sampled_from(["a", "b", "", " ", "\u00a0", "é", "Finds it and gives the fix.", "low", "x"])
valid: dict[str, st.SearchStrategy[Any]] = {
    "id": st.sampled_from(["a", "b", "é"]),
    "category": st.just("c"),
    "prompt": st.sampled_from(["p", "x and gives"]),
    "risk": st.sampled_from(["low", "medium", "high"]),
    "criteria": st.lists(st.sampled_from(["Answers 102.", "Names it and then"]), min_size=1, max_size=2),
}
edges: dict[str, st.SearchStrategy[Any]] = {
    **dict.fromkeys(("id", "category", "prompt"), near_text | json_values),
    "risk": st.sampled_from(["High", "", " low"]) | json_values,
    "criteria": st.lists(st.sampled_from(["Finds it and gives the fix.", "", " "]), min_size=1, max_size=2)
    | st.lists(near_text | json_values, max_size=3)
    | json_values,
}


@st.composite
def objects(draw: st.DrawFn) -> dict[str, Any]:
    """A row with a few of its fields broken (an edge value, any JSON value, or gone), and
    maybe keys of its own: most rows are near a rule's edge, many are clean."""
    broken = draw(st.sets(st.sampled_from(sorted(valid)), max_size=2))
    gone = draw(st.sets(st.sampled_from(sorted(broken)), max_size=len(broken))) if broken else set()
    row = {name: draw(edges[name] if name in broken else valid[name]) for name in valid if name not in gone}
    return {**draw(st.dictionaries(st.text(max_size=4), json_values, max_size=2)), **row}


rows = objects() | json_values


def _by_the_rules(lines: list[bytes]) -> list[Problem]:
    """Every line through every row rule (no fast path), then the catalog rules."""
    run = RowRun()
    found = [p for number, raw in enumerate(lines, start=1) for p in run.check(read_row(number, raw))]
    return found + check_catalog(CatalogRead(len(lines)))


@pytest.mark.long
@settings(max_examples=100, deadline=None)
@given(values=st.lists(rows, min_size=1, max_size=4), ascii_only=st.booleans())
def test_the_fast_path_reports_what_the_rules_report(values: list[Any], ascii_only: bool) -> None:
    lines = [json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass") for value in values]
    _, fast, _ = lint_lines(lines)
    assert fast == _by_the_rules(lines)


@pytest.mark.long
@settings(max_examples=60, deadline=None)
@given(value=objects())
def test_a_row_the_fast_path_proves_clean_no_rule_reports(value: dict[str, Any]) -> None:
    """The direction that matters, row by row: `clean` true means the rules are silent."""
    run = RowRun()
    if run.clean(value, 1):
        assert RowRun().check(read_row(1, json.dumps(value).encode())) == []


def test_a_clean_row_takes_the_fast_path_and_its_id_is_recorded() -> None:
    """Not vacuous: the five-field row passes every declared predicate, and E106's recording
    check keeps its id, so the same id on line 2 is refused by the fast path."""
    run = RowRun()
    assert run.clean(GOOD, 1) is True
    assert run.clean(GOOD, 2) is False


@pytest.mark.parametrize(
    ("change", "code"),
    [
        pytest.param({"risk": "x"}, "E107", id="risk"),
        pytest.param({"prompt": " "}, "E105", id="blank prompt"),
        pytest.param({"criteria": []}, "E108", id="empty criteria"),
        pytest.param({"criteria": ["Finds it and gives the fix."]}, "W201", id="bundled"),
        pytest.param({"id": 3}, "E104", id="wrong type"),
    ],
)
def test_each_declared_predicate_sends_its_row_to_the_rules(change: dict[str, Any], code: str) -> None:
    """One row per value rule: the fast path refuses it, and the rules report that rule's code."""
    row = {**GOOD, **change}
    assert RowRun().clean(row, 1) is False
    assert [p.code for p in RowRun().check(read_row(1, json.dumps(row).encode()))] == [code]


def test_the_rule_without_a_declaration_breaks_the_engine_not_the_catalog(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new row rule must say what lets the fast path skip it: without `clean` the engine
    cannot start, so no rule is ever silently skipped on rows the fast path passes."""
    bare = SimpleNamespace(ID="E999", NAME="toy", SEVERITY=ERROR, SCOPE="row", start=lambda run: _never)
    monkeypatch.setattr(engine, "ROW_RULES", [*catalogrules.ROW_RULES, bare])
    with pytest.raises(AttributeError):
        RowRun(Run())


def _never(row: Row) -> Iterator[Finding]:
    return iter(())


def test_the_engine_honours_a_new_rules_predicate(monkeypatch: pytest.MonkeyPatch) -> None:
    """A toy rule reporting a prompt with "x" in it, declaring exactly that: the clean first
    row takes the fast path, the second is sent to the rules, which report E999 on line 2."""

    def check(row: Row) -> Iterator[Finding]:
        if isinstance(row.value, dict) and "x" in str(row.value.get("prompt")):
            yield Finding(row.number, 1, "an x")

    toy = SimpleNamespace(
        ID="E999",
        NAME="toy",
        SEVERITY=ERROR,
        SCOPE="row",
        clean=Predicate("'x' not in str(row.get('prompt'))"),
        start=lambda run: check,
    )
    monkeypatch.setattr(engine, "ROW_RULES", [*catalogrules.ROW_RULES, toy])
    lines = [json.dumps(GOOD).encode(), json.dumps({**GOOD, "id": "b", "prompt": "x"}).encode()]
    _, problems, _ = lint_lines(lines)
    assert [(p.line, p.code) for p in problems] == [(2, "E999")]


def test_two_rules_binding_one_name_differently_is_refused() -> None:
    """Fused predicates share one namespace: a name two rules bind to different values would
    make one rule test the other's value, so the engine refuses to fuse them."""
    with pytest.raises(ValueError, match="LIMIT"):
        fused([Predicate("len(row) < LIMIT", LIMIT=3), Predicate("len(row) > LIMIT", LIMIT=1)])


def test_a_predicate_that_cannot_read_a_row_calls_it_unclean() -> None:
    """`row['risk']` of a row without one raises KeyError: not clean (the rules decide)."""
    assert Predicate("row['risk'] in ('low',)")({"id": "a"}) is False
    assert Predicate("row['risk'] in ('low',)")({"risk": "low"}) is True


def test_a_fused_predicate_that_raises_sends_the_row_to_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule whose expression reads a key the row lacks: the fused function raises KeyError
    on the five-field row, and the fast path calls the row unclean rather than crash."""
    toy = SimpleNamespace(
        ID="E999",
        NAME="toy",
        SEVERITY=ERROR,
        SCOPE="row",
        clean=Predicate("row['extra'] == 1"),
        start=lambda run: _never,
    )
    monkeypatch.setattr(engine, "ROW_RULES", [*catalogrules.ROW_RULES, toy])
    assert RowRun().clean(GOOD, 1) is False
