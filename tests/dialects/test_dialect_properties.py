"""Arbitrary dialect files x arbitrary sources: a valid catalog or a refusal, never a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adhd_evals.catalog import validate_lines
from adhd_evals.errors import UsageError
from adhd_evals.importing import dialect
from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import Refusal

CHECKS = list(dialect.VOCABULARY) + ["includes", ""]
KEYS = ["type", "kind", "value", "values", "pattern", "text", "needles", "limit", "prompt", "id"]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**10),
    st.text(max_size=12),
    st.sampled_from(["(?<n>x)", "\\p{L}", "a(?i)b", "[", "^ok$", "東京"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)
    ),
    max_leaves=12,
)

rules = st.fixed_dictionaries(
    {
        "when": st.dictionaries(
            st.sampled_from(["type", "kind"]),
            st.sampled_from(["contains", "regex", "x", 1]),
            min_size=1,
            max_size=2,
        ),
        "check": st.sampled_from(CHECKS),
    },
    optional={
        "needle": st.sampled_from(KEYS),
        "case": st.sampled_from(["sensitive", "insensitive", "upper"]),
        "criterion": st.sampled_from(KEYS),
        "schema": st.sampled_from([{"type": "object"}, {"type": 5}, True]),
    },
)
criteria_entries = st.one_of(
    st.sampled_from(["checks", "scorers[]", "a.b[]", "values"]),
    st.fixed_dictionaries(
        {"at": st.sampled_from(["must", "values"]), "check": st.sampled_from(CHECKS)},
        optional={"case": st.sampled_from(["sensitive", "insensitive"])},
    ),
)
dialects = st.fixed_dictionaries(
    {
        "adhd-evals-dialect": st.sampled_from([1, 1, 1, 2]),
        "format": st.sampled_from(["evals-json", "evals-json", "yaml"]),
    },
    optional={
        "cases": st.fixed_dictionaries(
            {},
            optional={
                "at": st.sampled_from(["evals", "cases", ".", ["cases", "."]]),
                "prompt": st.sampled_from(["prompt", "input", ["input", "prompt"]]),
                "id": st.sampled_from(["id", "#", ["name", "#"]]),
                "criteria": st.lists(criteria_entries, max_size=3),
            },
        ),
        "assertions": st.lists(rules, max_size=4),
        "extra": st.integers(),
    },
)

cases = st.dictionaries(
    st.sampled_from(
        ["id", "name", "prompt", "input", "assertions", "checks", "scorers", "must", "values", "a"]
    ),
    json_values,
    max_size=6,
)
sources = st.one_of(
    st.lists(cases, max_size=3),
    st.fixed_dictionaries(
        {},
        optional={
            "skill_name": st.text(max_size=5),
            "evals": st.lists(cases, max_size=3),
            "cases": st.lists(cases, max_size=3),
        },
    ),
)


@pytest.mark.long
@settings(
    max_examples=int(os.environ.get("ADHD_EVALS_FUZZ", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(declared=dialects, source=sources)
def test_any_dialect_with_any_source_imports_or_refuses(
    tmp_path: Path, declared: dict[str, Any], source: Any
) -> None:
    dialect_file = tmp_path / "dialect.yaml"
    dialect_file.write_text(json.dumps(declared, ensure_ascii=False), encoding="utf-8")  # JSON is YAML
    source_file = tmp_path / "evals.json"
    source_file.write_text(json.dumps(source, ensure_ascii=False), encoding="utf-8")
    try:
        loaded = dialect.load(dialect_file)
        outcome = import_source("evals-json", source_file, dialect=loaded)
    except (Refusal, UsageError) as refusal:
        assert str(refusal)
        return
    count, problems = validate_lines(outcome.catalog.splitlines())
    assert problems == [] and count == len(outcome.result.cases) > 0
    compile(outcome.module, "checks.py", "exec")  # every generated call is valid Python
