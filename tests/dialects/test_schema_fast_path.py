"""The dialect loader tells a valid file without importing jsonschema (`_fits`, for speed);
only its "valid" skips jsonschema, so it must never call valid what jsonschema refuses.
Checked on every dialect file on disk and on random trees built from the schema's own
pieces, well and badly typed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adhd_evals.importing import dialect_schema
from helpers import FIXTURES, ROOT

SCHEMA: dict[str, Any] = json.loads((ROOT / "schemas" / "dialect.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def _on_disk() -> list[Path]:
    return sorted([*FIXTURES.rglob("dialect.yaml"), *(ROOT / "tests" / "corpus").glob("*.dialect.yaml")])


def _tree(path: Path) -> Any:
    from ruamel.yaml import YAML

    return dialect_schema._plain(YAML(typ="rt").load(path.read_text(encoding="utf-8")))


def test_every_dialect_file_on_disk_is_judged_as_jsonschema_judges_it() -> None:
    """Both verdicts on each file; the schema-violation fixtures are among them, so both
    answers occur (a test where `_fits` always said False would pass the equality alone)."""
    verdicts = {}
    for path in _on_disk():
        tree = _tree(path)
        verdicts[path] = dialect_schema._fits(tree, SCHEMA, SCHEMA)
        assert verdicts[path] == VALIDATOR.is_valid(tree), path
    assert True in verdicts.values() and False in verdicts.values()


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.floats(allow_nan=False),
    st.sampled_from(["", "x", "type"]),
)
WORDS = st.sampled_from(
    [
        "contains",
        "contains_any",
        "regex",
        "unwritten",
        "is_json",
        "sensitive",
        "insensitive",
        "skip",
        "refuse",
        "x",
    ]
)
KEYS = st.sampled_from(
    ["at", "prompt", "id", "category", "skip", "criteria", "when", "has", "check", "needle", "case"]
    + ["criterion", "schema", "reason", "missing", "value", "extra"]
)
VALUES: st.SearchStrategy[Any] = st.recursive(
    st.one_of(SCALARS, WORDS),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)
TREES = st.fixed_dictionaries(
    {
        "adhd-evals-dialect": st.sampled_from([1, 1.0, True, 2, "1"]),
        "format": st.sampled_from(["evals-json", "yaml", "x"]),
    },
    optional={
        "cases": st.dictionaries(KEYS, VALUES, max_size=4),
        "assertions": st.lists(st.dictionaries(KEYS, VALUES, max_size=5), max_size=3),
        "extra": VALUES,
    },
)


@pytest.mark.long
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TREES)
def test_fits_agrees_with_jsonschema_on_random_trees(tree: dict[str, Any]) -> None:
    assert dialect_schema._fits(tree, SCHEMA, SCHEMA) == VALIDATOR.is_valid(tree)
