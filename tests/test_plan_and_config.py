"""`plan` and the runner config's errors, as a user meets them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main

CASES = [
    {"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]},
    {"id": "b", "category": "c", "prompt": "q", "risk": "low", "criteria": ["y"]},
]


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in CASES))
    return path


def test_plan_prints_the_paired_matrix(cases: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--cases", str(cases), "--trials", "2"]) == exitcodes.OK
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["case_id"], r["trial"], r["condition"]) for r in rows] == [
        ("a", 1, "baseline"),
        ("a", 1, "candidate"),
        ("b", 1, "baseline"),
        ("b", 1, "candidate"),
        ("a", 2, "baseline"),
        ("a", 2, "candidate"),
        ("b", 2, "baseline"),
        ("b", 2, "candidate"),
    ]


def test_plan_with_the_comparator(cases: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--cases", str(cases), "--trials", "1", "--include-comparator"]) == exitcodes.OK
    out = capsys.readouterr().out
    assert out == (
        '{"case_id": "a", "trial": 1, "condition": "baseline"}\n'
        '{"case_id": "a", "trial": 1, "condition": "candidate"}\n'
        '{"case_id": "a", "trial": 1, "condition": "comparator"}\n'
        '{"case_id": "b", "trial": 1, "condition": "baseline"}\n'
        '{"case_id": "b", "trial": 1, "condition": "candidate"}\n'
        '{"case_id": "b", "trial": 1, "condition": "comparator"}\n'
    )


def test_plan_refuses_trials_below_one(cases: Path) -> None:
    assert main(["plan", "--cases", str(cases), "--trials", "0"]) == exitcodes.USAGE


def test_plan_on_a_broken_catalog_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "cases.jsonl"
    bad.write_text(json.dumps(CASES[0]) + "\n{not json\n")
    assert main(["plan", "--cases", str(bad)]) != exitcodes.OK
    assert f"{bad}:2" in capsys.readouterr().err


def _run(tmp_path: Path, cases: Path, runner: str, config: object | None) -> int:
    argv = [
        "run",
        "--runner",
        runner,
        "--condition",
        "baseline",
        "--cases",
        str(cases),
        "--output",
        str(tmp_path / "out.jsonl"),
        "--trials",
        "1",
    ]
    if config is not None:
        path = tmp_path / "runners.json"
        path.write_text(config if isinstance(config, str) else json.dumps(config))
        argv += ["--runner-config", str(path)]
    return main(argv)


@pytest.mark.parametrize(
    ("runner", "config", "message"),
    [
        pytest.param("claude", None, "runner 'claude' needs --runner-config", id="no-config"),
        pytest.param("claude", "{not json", "cannot read the runner config", id="not-json"),
        pytest.param(
            "claude",
            {"codex": {"command": ["codex"]}},
            "no runner named 'claude' (it has: codex)",
            id="unknown-runner",
        ),
        pytest.param("claude", {"claude": ["claude"]}, "runner 'claude' must be an object", id="not-object"),
        pytest.param(
            "claude",
            {"claude": {"command": []}},
            "command must be a non-empty list of strings",
            id="empty-command",
        ),
        pytest.param(
            "claude",
            {"claude": {"command": "claude -p"}},
            "command must be a non-empty list",
            id="command-string",
        ),
        pytest.param(
            "claude",
            {"claude": {"command": ["claude"], "response_format": "xml"}},
            "response_format must be one of text, claude-json, codex-jsonl",
            id="format",
        ),
        pytest.param(
            "claude",
            {"claude": {"command": ["claude"], "budget_flag": 5}},
            "budget_flag must be a string",
            id="budget-flag",
        ),
    ],
)
def test_runner_config_errors(
    tmp_path: Path,
    cases: Path,
    capsys: pytest.CaptureFixture[str],
    runner: str,
    config: object | None,
    message: str,
) -> None:
    assert _run(tmp_path, cases, runner, config) == exitcodes.USAGE
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "out.jsonl").exists()


def test_plan_on_a_catalog_that_is_not_there_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mistyped --cases: the path is named with the flag that fixes it, before any work."""
    missing = tmp_path / "evals" / "cases.jsonl"
    assert main(["plan", "--cases", str(missing)]) == exitcodes.USAGE
    assert f"{missing}: no such catalog (pass --cases)" in capsys.readouterr().err
