"""Any case folder is read or refused by field: never a traceback.

Random case.yaml and prompt.md front matter built from the keys plugin eval documents (and a
few it does not), holding values of every JSON shape, plus grader files; each import either
gives cases or a Refusal, and lint's reader gives problems. ADHD_EVALS_FUZZ raises the count.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adhd_evals.importing.formats._common import ReadOptions
from adhd_evals.importing.formats.plugin_eval import problems
from adhd_evals.importing.importer import read_source
from adhd_evals.importing.model import Refusal
from adhd_evals.lint import lint_paths

EXAMPLES = int(os.environ.get("ADHD_EVALS_FUZZ", "60"))
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 300),
    st.floats(allow_nan=False, width=32),
    st.text(alphabet=st.sampled_from(list("aZ09 .*^$[]\\/(?:)|{}-_\n'\"é")), max_size=12),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
KEYS = st.sampled_from(
    [
        "schema_version",
        "name",
        "description",
        "tags",
        "plugins",
        "runs",
        "expected_outcome",
        "model",
        "max_turns",
        "timeout_seconds",
        "allowed_tools",
        "append_system_prompt",
        "env",
        "execution",
        "context",
        "graders",
        "prompt",
        "system",
    ]
)
GRADER_KEYS = st.sampled_from(
    [
        "name",
        "type",
        "weight",
        "arm",
        "pattern",
        "flags",
        "match",
        "target",
        "tool",
        "input_match",
        "min",
        "max",
        "before",
        "after",
        "path",
        "exists",
        "criteria",
        "focus",
        "baseline_file",
    ]
)
GRADER = st.dictionaries(
    GRADER_KEYS, VALUES | st.sampled_from(["regex", "llm", "tool_used", "x*", "count:2"]), max_size=6
)
CASE = st.dictionaries(
    KEYS,
    VALUES
    | st.lists(GRADER, max_size=3)
    | st.fixed_dictionaries({"prompt": SCALARS}, optional={"env": VALUES}),
    max_size=6,
)


def _write(
    folder: Path, data: dict[str, Any], front: dict[str, Any] | None, grader: dict[str, Any] | None, body: str
) -> None:
    case = folder / "evals" / "c"
    case.mkdir(parents=True)
    (case / "case.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    if front is not None:
        (case / "prompt.md").write_text(
            f"---\n{yaml.safe_dump(front, allow_unicode=True)}---\n{body}", encoding="utf-8"
        )
    if grader is not None:
        (case / "graders").mkdir()
        (case / "graders" / "g.md").write_text(
            f"---\n{yaml.safe_dump(grader, allow_unicode=True)}---\n{body}", encoding="utf-8"
        )


@pytest.mark.long
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=CASE,
    front=st.none() | st.dictionaries(KEYS, VALUES, max_size=4),
    grader=st.none() | GRADER,
    body=st.text(max_size=10),
)
def test_any_case_is_read_or_refused(
    data: dict[str, Any], front: dict[str, Any] | None, grader: dict[str, Any] | None, body: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _write(folder, data, front, grader, body)
        with contextlib.suppress(Refusal):  # a refusal is an answer; anything else fails the test
            read_source("plugin-eval", folder / "evals")
        found = problems(folder / "evals", display="evals", options=ReadOptions(risk="low"))
        assert found.cases == 1
        lint_paths([folder / "evals"])


RUN = st.fixed_dictionaries(
    {"score": st.integers(0, 1) | st.floats(0, 1)},
    optional={
        "error": st.none() | st.text(max_size=5),
        "graders": st.lists(
            st.fixed_dictionaries(
                {
                    "name": st.sampled_from(["a", "b", "Skill"]),
                    "passed": st.booleans(),
                    "weight": st.integers(-1, 3),
                },
                optional={"scored": st.booleans()},
            ),
            max_size=3,
        ),
    },
)
RESULT_CASE = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["x", "y", "z"]),
        "arms": st.fixed_dictionaries(
            {"with": st.lists(RUN, max_size=3)}, optional={"without": st.lists(RUN, max_size=3)}
        ),
    },
    optional={
        "graders": st.lists(
            st.fixed_dictionaries(
                {"name": st.sampled_from(["a", "b"]), "type": st.sampled_from(["tool_used", "llm", "regex"])},
                optional={
                    "config": st.dictionaries(
                        st.sampled_from(["tool", "arm", "target"]),
                        st.sampled_from(["Skill", "with-only", "both", "mock_calls"]),
                    )
                },
            ),
            max_size=2,
        ),
        "aggregates": st.dictionaries(
            st.sampled_from(["score", "delta", "scoreWithout"]),
            st.none() | st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(10**400), 10**400),
        ),
    },
)


@pytest.mark.long
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cases=st.lists(RESULT_CASE, min_size=1, max_size=3), ablation=st.sampled_from(["with-without", "none"])
)
def test_any_results_file_is_scored_or_refused(cases: list[dict[str, Any]], ablation: str) -> None:
    """Figures and rows for any well-shaped file (weights may be 0 or negative, figures huge)."""
    import json

    from adhd_evals.runs.judging import plugin_results as plugin

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.json"
        path.write_text(json.dumps({"schemaVersion": 1, "suite": {"ablation": ablation}, "cases": cases}))
        results = plugin.read_results(path)
        plugin.lines(plugin.section(results))
        plugin.rows(results)


def test_nan_is_not_json(tmp_path: Path) -> None:
    import pytest

    from adhd_evals.runs.judging import plugin_results as plugin

    path = tmp_path / "r.json"
    path.write_text('{"schemaVersion": 1, "cases": [{"name": "c", "arms": {"with": [{"score": NaN}]}}]}')
    with pytest.raises(plugin.NotPluginEvalResults, match="NaN is not JSON"):
        plugin.read_results(path)
