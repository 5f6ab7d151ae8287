"""Nothing a dialect's paths reach is dropped without a word (issue 22, item 5).

Every string in a source case is a unique token (`tok007q`). Over random cases and
random dialects (nested prompt paths, has-only rules, list needles, `missing: skip`,
`cases.skip`), an import either refuses, naming the file, the case and the path, or
every token of every case it did not leave out by declaration is somewhere in what it
wrote: the catalog (ids, prompts, criteria) or the check module (check arguments,
notes). A token nowhere would be a value silently lost.
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adhd_evals.importing import dialect
from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import Refusal

KEYS = [
    "id",
    "ticket_id",
    "prompt",
    "inputs",
    "ticket",
    "body",
    "rubric",
    "pass_if",
    "expected",
    "output_contains_any",
    "name",
    "description",
    "text",
    "check",
    "type",
    "value",
    "query_flow",
]
LEAF = "\x00"  # replaced by a unique token after generation
scalars = st.one_of(st.just(LEAF), st.none(), st.integers(0, 3), st.booleans())
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)
    ),
    max_leaves=10,
)
items = st.one_of(
    st.just(LEAF),
    st.none(),
    st.fixed_dictionaries({}, optional={"pass_if": values, "name": st.just(LEAF), "description": values}),
    st.fixed_dictionaries({"text": values}, optional={"check": values, "type": values, "value": values}),
    values,
)
item_lists = st.one_of(st.lists(items, max_size=4), items)
# Real-shaped cases (issue 22's sample), each part sometimes missing, null or of another type.
cases = st.fixed_dictionaries(
    {},
    optional={
        "id": st.one_of(st.just(LEAF), st.integers(1, 3), values),
        "ticket_id": st.just(LEAF),
        "prompt": st.one_of(st.just(LEAF), values),
        "inputs": st.one_of(
            st.fixed_dictionaries(
                {"prompt": st.just(LEAF)}, optional={"rubric": item_lists, "locale": values}
            ),
            values,
        ),
        "ticket": st.fixed_dictionaries(
            {}, optional={"body": st.just(LEAF), "name": values, "queue": values}
        ),
        "rubric": item_lists,
        "expected": st.fixed_dictionaries(
            {}, optional={"output_contains_any": item_lists, "value": values, "rubric": item_lists}
        ),
        "query_flow": values,
        "other": values,
    },
)

PLACES = [
    "rubric[]",
    "rubric[].pass_if",
    {"at": "rubric[].pass_if", "missing": "skip"},
    "expected.rubric[]",
    {"at": "expected.output_contains_any", "check": "contains_any", "case": "insensitive"},
    {"at": "expected.output_contains_any", "check": "contains_any", "case": "insensitive", "missing": "skip"},
    {"at": "expected.value", "check": "contains", "case": "sensitive", "missing": "skip"},
    {"at": "inputs.rubric[]", "missing": "skip"},
]
RULES = [
    {"has": ["name", "description"], "check": "unwritten", "criterion": "description"},
    {
        "has": ["text", "check"],
        "check": "contains",
        "needle": "check",
        "case": "sensitive",
        "criterion": "text",
    },
    {"when": {"type": "value"}, "check": "contains", "needle": "value", "case": "insensitive"},
    {"has": ["value"], "check": "unwritten"},
]
dialects = st.fixed_dictionaries(
    {
        "prompt": st.sampled_from(
            [["prompt"], ["prompt", "inputs.prompt"], ["ticket.body", "inputs.prompt"]]
        ),
        "id": st.sampled_from([["id", "#"], ["ticket_id", "id", "#"], ["ticket.name", "#"]]),
        "criteria": st.lists(st.sampled_from(PLACES), max_size=4),
        "rules": st.lists(st.sampled_from(RULES), max_size=4),
        "skip": st.booleans(),
    }
)


def _tokens(value: Any, counter: itertools.count[int]) -> Any:
    if value == LEAF:
        return f"tok{next(counter):03d}q"
    if isinstance(value, dict):
        return {k: _tokens(v, counter) for k, v in value.items()}
    if isinstance(value, list):
        return [_tokens(v, counter) for v in value]
    return value


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _dialect_text(chosen: dict[str, Any]) -> str:
    shape: dict[str, Any] = {"at": "evals", "prompt": chosen["prompt"], "id": chosen["id"]}
    if chosen["criteria"]:
        shape["criteria"] = chosen["criteria"]
    if chosen["skip"]:
        shape["skip"] = [{"has": ["query_flow"], "reason": "multi-turn"}]
    text: dict[str, Any] = {"adhd-evals-dialect": 1, "format": "evals-json", "cases": shape}
    if chosen["rules"]:
        text["assertions"] = chosen["rules"]
    return json.dumps(text)  # JSON is YAML


@pytest.mark.long
@settings(
    max_examples=int(os.environ.get("ADHD_EVALS_FUZZ", "100")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(raw_cases=st.lists(cases, min_size=1, max_size=3), chosen=dialects)
def test_every_reached_value_is_kept_or_refused_by_name(
    tmp_path: Path, raw_cases: list[dict[str, Any]], chosen: dict[str, Any]
) -> None:
    counter = itertools.count()
    evals = [_tokens(case, counter) for case in raw_cases]
    source = tmp_path / "evals.json"
    source.write_text(json.dumps({"skill_name": "s", "evals": evals}), encoding="utf-8")
    rules = tmp_path / "dialect.yaml"
    rules.write_text(_dialect_text(chosen), encoding="utf-8")
    try:
        outcome = import_source("evals-json", source, display="evals.json", dialect=dialect.load(rules))
    except Refusal as refusal:
        assert refusal.file == "evals.json"
        assert refusal.case and refusal.field_path, refusal.message  # the case and the path, by name
        return
    written = outcome.catalog + outcome.module
    left_out = chosen["skip"]
    for case in evals:
        if left_out and "query_flow" in case:
            continue  # left out by declaration: listed in the summary, not lost
        lost = [token for token in _strings(case) if token not in written]
        assert lost == [], (case, lost)


def test_a_left_out_case_is_listed_with_its_reason(tmp_path: Path) -> None:
    """The skip entry's reason and the case travel to the result (the summary prints them)."""
    source = tmp_path / "evals.json"
    source.write_text(json.dumps({"evals": [{"id": "a", "prompt": "p"}, {"id": "b", "query_flow": []}]}))
    rules = tmp_path / "dialect.yaml"
    rules.write_text(
        _dialect_text({"prompt": ["prompt"], "id": ["id"], "criteria": [], "rules": [], "skip": True})
    )
    result = import_source("evals-json", source, dialect=dialect.load(rules)).result
    assert [c.id for c in result.cases] == ["a"]
    assert [(x.case, x.id, x.reason) for x in result.left_out] == [('case "b"', "b", "multi-turn")]


def test_a_case_left_out_later_is_not_reported_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Imported once as a plain case, then left out by a cases.skip: the re-import lists it
    with its reason (not among cases that left the catalog), the record of sources remembers
    it, and lint of the folder finds nothing wrong."""
    from adhd_evals.entry import main

    source = tmp_path / "evals.json"
    cases = [{"id": "a", "prompt": "p"}, {"id": "b", "prompt": "q", "query_flow": ["hi", "and?"]}]
    source.write_text(json.dumps({"skill_name": "s", "evals": cases}))
    out = tmp_path / "evals"
    assert main(["import", str(source), "--out", str(out)]) == 0
    rules = tmp_path / "dialect.yaml"
    rules.write_text(
        _dialect_text({"prompt": ["prompt"], "id": ["id"], "criteria": [], "rules": [], "skip": True})
    )
    capsys.readouterr()
    assert main(["import", str(source), "--out", str(out), "--dialect", str(rules)]) == 0
    err = capsys.readouterr().err
    assert 'case "b": multi-turn' in err and "left the catalog" not in err
    record = json.loads((out / ".adhd-evals-sources.json").read_text())
    assert [(x["id"], x["reason"]) for x in record["left_out"]] == [("b", "multi-turn")]
    assert main(["lint", str(out)]) == 0
