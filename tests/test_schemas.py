"""The published JSON Schemas and the hand-written validation agree."""

from __future__ import annotations

import functools
import json
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.catalog import case_problems
from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import Refusal
from helpers import ROOT, Fixture, fixture_params

SCHEMAS = ROOT / "schemas"
SOURCE_SCHEMA = {
    "evals-json": "evals-json",
    "yaml": "yaml-case",
    "evalflow": "evalflow-dataset",
    "trigger-list": "trigger-list",
}


@functools.cache
def _validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize(
    "name", ["case", "evals-json", "yaml-case", "evalflow-dataset", "dialect", "trigger-list"]
)
def test_schema_is_valid_draft_2020_12_with_an_id(name: str) -> None:
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"]
    _validator(name)


def _documents(fixture: Fixture) -> list[Any] | None:
    """The parsed documents of a fixture's source, or None when it does not parse."""
    source = fixture.source
    paths = (
        sorted(p for p in source.iterdir() if p.suffix in (".yaml", ".yml")) if source.is_dir() else [source]
    )
    try:
        if fixture.format == "yaml":
            return [yaml.safe_load(p.read_text(encoding="utf-8-sig")) for p in paths]
        return [json.loads(p.read_text(encoding="utf-8-sig")) for p in paths]
    except (OSError, ValueError, yaml.YAMLError):
        return None


def _described(fixture: Fixture) -> bool:
    """Whether a schema of ours speaks to this fixture: a format with one (promptfoo and plugin
    eval are described by their own tools), not a refusal about more than one document's shape
    (`"schema": "not-expressible"`), not a file a dialect refines."""
    return (
        fixture.format in SOURCE_SCHEMA
        and fixture.meta.get("schema") != "not-expressible"
        and "dialect" not in fixture.meta
    )


def _schema_params(kind: str) -> list[Any]:
    return [param for param in fixture_params(kind) if _described(param.values[0])]


@pytest.mark.parametrize("fixture", _schema_params("good") + _schema_params("bad"))
def test_schema_and_import_agree_on_fixture(fixture: Fixture) -> None:
    """A document the schema accepts imports, one it refuses is refused; a file that does not
    parse at all no schema applies to, and the import refuses it too."""
    documents = _documents(fixture)
    try:
        import_source(fixture.format, fixture.source, **fixture.meta["args"])
        imported = True
    except Refusal:
        imported = False
    if documents is None:
        assert not imported
        return
    validator = _validator(SOURCE_SCHEMA[fixture.format])
    schema_ok = all(validator.is_valid(jsonable(doc)) for doc in documents)
    assert schema_ok == imported


def jsonable(value: Any) -> Any:
    from adhd_evals.importing.formats._common import jsonable as convert

    return convert(value)


@pytest.mark.parametrize("fixture", fixture_params("good"))
def test_every_written_line_matches_the_case_schema(fixture: Fixture) -> None:
    outcome = import_source(fixture.format, fixture.source, dialect=fixture.dialect(), **fixture.meta["args"])
    validator = _validator("case")
    for line in outcome.catalog.splitlines():
        assert list(validator.iter_errors(json.loads(line))) == []


values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=5),
    st.sampled_from(["low", "medium", "high", " ", "x"]),
    st.lists(st.one_of(st.text(max_size=3), st.integers()), max_size=3),
)
rows = st.dictionaries(
    st.sampled_from(["id", "category", "prompt", "risk", "criteria", "extra"]), values, max_size=6
)


@pytest.mark.long
@settings(max_examples=400, deadline=None)
@given(row=rows)
def test_hand_written_case_rules_equal_the_case_schema(row: dict[str, Any]) -> None:
    assert (case_problems(row) == []) == _validator("case").is_valid(row)
