"""The scale examples: each parses, and the matrix workflow's own shard and merge commands, run
locally as N processes, give the scores one unsharded run gives, byte for byte."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers import ROOT

EXAMPLES = ROOT / "docs" / "examples"
WORKFLOW = EXAMPLES / "github-actions-shards.yml"
FAKE = str(Path(__file__).parent / "fakes" / "fake_cli.py")
BIN = str(Path(sys.executable).parent)  # the adhd-evals the workflow's commands call


def test_the_workflow_is_a_matrix_of_shards_then_a_merge() -> None:
    flow = yaml.safe_load(WORKFLOW.read_text())
    shards = flow["jobs"]["shard"]["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, int(flow["env"]["SHARDS"]) + 1))  # the matrix and SHARDS agree
    assert flow["jobs"]["merge"]["needs"] == "shard"
    assert "adhd-evals merge" in _step(flow, "merge", "Merge")


def test_the_kubernetes_manifest_is_an_indexed_job_whose_count_matches() -> None:
    job = yaml.safe_load((EXAMPLES / "kubernetes-indexed-job.yaml").read_text())
    assert (job["kind"], job["spec"]["completionMode"]) == ("Job", "Indexed")
    script = job["spec"]["template"]["spec"]["containers"][0]["args"][0]
    assert f"--shard-count {job['spec']['completions']}" in script and "--shard auto" in script
    _bash_syntax(script)


def test_the_slurm_script_is_valid_shell_for_an_array() -> None:
    script = EXAMPLES / "slurm-array.sh"
    _bash_syntax(script.read_text())
    assert "#SBATCH --array=0-3" in script.read_text() and "--shard auto" in script.read_text()


def _bash_syntax(script: str) -> None:
    result = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def _step(flow: dict[str, Any], job: str, name: str) -> str:
    return str(next(step["run"] for step in flow["jobs"][job]["steps"] if step.get("name") == name))


CASES = [
    {"id": f"case-{n}", "category": "c", "prompt": f"Question {n}?", "risk": "low", "criteria": ["x"]}
    for n in range(6)
]


def _project(folder: Path, calls: Path) -> Path:
    """A repository like the workflow expects: evals/cases.jsonl, SKILL.md, runners.json."""
    (folder / "evals").mkdir(parents=True)
    (folder / "evals" / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    (folder / "SKILL.md").write_text("Be terse.\n")
    command = [
        sys.executable,
        FAKE,
        "--format",
        "claude-json",
        "--cost",
        "0.01",
        "--sleep",
        "0.02",
        "--calls",
        str(calls),
    ]
    (folder / "runners.json").write_text(
        json.dumps({"fake": {"command": command, "response_format": "claude-json", "assume_call_usd": 0.01}})
    )
    return folder


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CI_NODE", "SLURM_", "JOB_COMPLETION"))}
    return {**env, "PATH": BIN + os.pathsep + env.get("PATH", ""), "RUNNER": "fake", **extra}


def _cli(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "adhd_evals", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env=_env(),
        check=False,
    )


def _score(folder: Path, responses: str) -> str:
    """blind, the stub judge, score --json: the same steps for both runs."""
    for args in (
        ["blind", responses, "--sheet", "sheet.jsonl", "--key", "key.jsonl", "--cases", "evals/cases.jsonl"],
        [
            "judge",
            "sheet.jsonl",
            "--runner",
            "stub",
            "--cases",
            "evals/cases.jsonl",
            "--output",
            "judged.jsonl",
        ],
    ):
        result = _cli(folder, *args)
        assert result.returncode == 0, result.stderr
    scored = _cli(folder, "score", "judged.jsonl", "--key", "key.jsonl", "--json")
    assert scored.returncode in (0, 1), scored.stderr  # the gate may fail; the figures are compared
    return scored.stdout


@pytest.mark.long
@pytest.mark.skipif(shutil.which("bash") is None, reason="the workflow's steps are bash")
def test_the_workflow_shards_as_processes_merge_to_the_scores_of_one_run(tmp_path: Path) -> None:
    """4 shards as 4 concurrent processes (--jobs 4 each), merged by the workflow's Merge step,
    then scored, give the bytes of `score --json` an unsharded run gives; and the shards never
    overlap: the fake CLI was called once per planned row (6 cases x 3 trials x 2 conditions =
    36), each prompt as often as in the single run."""
    flow = yaml.safe_load(WORKFLOW.read_text())
    shards = flow["jobs"]["shard"]["strategy"]["matrix"]["shard"]
    split = _project(tmp_path / "split", tmp_path / "split-calls.jsonl")
    env = {k: str(v) for k, v in flow["env"].items() if k != "RUNNER"}
    workers = [
        subprocess.Popen(
            ["bash", "-c", _step(flow, "shard", "Run shard")],
            cwd=split,
            env=_env(**env, SHARD=str(k)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in shards
    ]
    for worker in workers:
        _, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
    merged = subprocess.run(
        ["bash", "-c", _step(flow, "merge", "Merge")],
        cwd=split,
        env=_env(**env),
        capture_output=True,
        text=True,
        check=False,
    )
    assert merged.returncode == 0, merged.stderr
    assert "Total spend $0.3600" in merged.stdout  # 36 calls at $0.01

    single = _project(tmp_path / "single", tmp_path / "single-calls.jsonl")
    for condition in ("baseline", "candidate"):
        result = _cli(
            single,
            "run",
            "--runner",
            "fake",
            "--runner-config",
            "runners.json",
            "--condition",
            condition,
            "--condition-skill",
            "SKILL.md",
            "--trials",
            "3",
            "--output",
            "runs/responses.jsonl",
        )
        assert result.returncode == 0, result.stderr

    assert _score(split, "runs/responses.jsonl") == _score(single, "runs/responses.jsonl")
    split_calls = Counter(json.loads(line)["prompt"] for line in (tmp_path / "split-calls.jsonl").open())
    single_calls = Counter(json.loads(line)["prompt"] for line in (tmp_path / "single-calls.jsonl").open())
    assert sum(split_calls.values()) == 36 and split_calls == single_calls
    # the merged file holds the single run's rows in its order (elapsed time aside)
    assert _rows(split / "runs/responses.jsonl") == _rows(single / "runs/responses.jsonl")


def _rows(path: Path) -> list[dict[str, Any]]:
    return [{k: v for k, v in json.loads(line).items() if k != "elapsed_s"} for line in path.open()]
