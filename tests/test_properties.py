"""Property: any JSON/YAML value in any field gives a valid catalog or a refusal, never
an uncaught exception and never a partial output."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adhd_evals.catalog import validate_lines
from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import Refusal

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)

EVALS_CASE = {
    "id": 1,
    "prompt": "Say hi",
    "expected_output": "hi",
    "files": [],
    "assertions": ["Says hi", {"text": "t", "kind": "content_contains_any", "needles": ["hi"]}],
}
EVALFLOW_CASE = {
    "id": "say-hi",
    "description": "d",
    "task_type": "qa",
    "input": "Say hi",
    "expected_output": "hi",
    "context": "",
    "tags": ["t"],
    "eval_config": {"methods": ["exact_match"], "judge": False, "weight": 1.0},
}
YAML_CASE = {"name": "Say hi", "task": "Say hi", "judge_context": ["Says hi"], "max_steps": 3}
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _outcome_is_whole(fmt: str, source: Path, out: Path) -> None:
    try:
        outcome = import_source(fmt, source, out=out)
    except Refusal as refusal:
        assert refusal.code.value.startswith("Case")
        assert not out.exists()
        return
    count, problems = validate_lines(outcome.catalog.splitlines())
    assert problems == [] and count == len(outcome.result.cases)
    compile(outcome.module, "checks.py", "exec")
    assert sorted(p.name for p in out.iterdir()) == [".adhd-evals-sources.json", "cases.jsonl", "checks.py"]


def _check_json(fmt: str, document: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "source.json"
        source.write_text(json.dumps(document), encoding="utf-8")
        _outcome_is_whole(fmt, source, Path(tmp) / "out")


@pytest.mark.long
@SETTINGS
@given(field=st.sampled_from(sorted(EVALS_CASE) + ["skill_name", "extra"]), value=json_values)
def test_evals_json_any_value_in_any_field(field: str, value: Any) -> None:
    case = dict(EVALS_CASE)
    document: dict[str, Any] = {"skill_name": "demo", "evals": [case]}
    if field == "skill_name":
        document["skill_name"] = value
    else:
        case[field] = value
    _check_json("evals-json", document)


@pytest.mark.long
@SETTINGS
@given(value=json_values)
def test_evals_json_any_assertion_item(value: Any) -> None:
    _check_json("evals-json", {"evals": [{**EVALS_CASE, "assertions": [value]}]})


@pytest.mark.long
@SETTINGS
@given(field=st.sampled_from(sorted(EVALFLOW_CASE) + ["version", "extra"]), value=json_values)
def test_evalflow_any_value_in_any_field(field: str, value: Any) -> None:
    case = dict(EVALFLOW_CASE)
    document: dict[str, Any] = {"version": "1.0", "test_cases": [case]}
    if field == "version":
        document["version"] = value
    else:
        case[field] = value
    _check_json("evalflow", document)


@pytest.mark.long
@SETTINGS
@given(field=st.sampled_from(sorted(YAML_CASE) + ["extra"]), value=json_values)
def test_yaml_any_value_in_any_field(field: str, value: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "task.yaml"
        source.write_text(yaml.safe_dump({**YAML_CASE, field: value}, allow_unicode=True), encoding="utf-8")
        _outcome_is_whole("yaml", source, Path(tmp) / "out")


@SETTINGS
@given(text=st.text(min_size=1))
def test_yaml_any_text_as_a_file(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "task.yaml"
        source.write_text(text, encoding="utf-8", errors="surrogatepass")
        _outcome_is_whole("yaml", source, Path(tmp) / "out")
