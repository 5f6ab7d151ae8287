"""Shards: the split by case id, `--shard auto` under each scheduler, and a shard's budget."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.errors import UsageError
from adhd_evals.runs.calling import shard as sharding
from helpers import unmeasured_environment


@pytest.mark.parametrize(
    ("case_id", "count", "expected"),
    [
        # `printf %s case-1 | sha256sum`: ba225b9895eafb5e...; 0xba225b9895eafb5e % 4 = 2, so shard 3;
        # % 3 = 0, so shard 1
        pytest.param("case-1", 4, 3, id="case-1 of 4"),
        pytest.param("case-1", 3, 1, id="case-1 of 3"),
        # 34335cf42e144aaf % 4 = 3 -> shard 4; % 3 = 1 -> shard 2
        pytest.param("case-2", 4, 4, id="case-2 of 4"),
        pytest.param("case-2", 3, 2, id="case-2 of 3"),
        pytest.param("a", 1, 1, id="one shard holds everything"),
    ],
)
def test_a_case_id_lands_in_the_shard_its_sha256_says(case_id: str, count: int, expected: int) -> None:
    assert sharding.shard_of(case_id, count) == expected


@pytest.mark.long
@given(st.lists(st.text(min_size=1), min_size=1, max_size=30, unique=True), st.integers(1, 9))
def test_every_case_lands_in_exactly_one_shard(ids: list[str], count: int) -> None:
    holders = {i: [k for k in range(1, count + 1) if sharding.Shard(k, count).holds(i)] for i in ids}
    assert all(len(held) == 1 for held in holders.values()), holders


@pytest.mark.parametrize(
    ("env", "count", "expected"),
    [
        pytest.param({"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "4"}, None, (1, 4), id="gitlab is 1-based"),
        pytest.param({"CI_NODE_INDEX": "4", "CI_NODE_TOTAL": "4"}, None, (4, 4), id="gitlab last"),
        pytest.param({"JOB_COMPLETION_INDEX": "0"}, 4, (1, 4), id="kubernetes is 0-based"),
        pytest.param({"JOB_COMPLETION_INDEX": "3"}, 4, (4, 4), id="kubernetes last"),
        # --array=0-3: ids 0..3, MIN 0, COUNT 4; id 2 is the third task
        pytest.param(
            {
                "SLURM_ARRAY_TASK_ID": "2",
                "SLURM_ARRAY_TASK_MIN": "0",
                "SLURM_ARRAY_TASK_MAX": "3",
                "SLURM_ARRAY_TASK_COUNT": "4",
            },
            None,
            (3, 4),
            id="slurm --array=0-3",
        ),
        # --array=1-4: id 1 is the first task
        pytest.param(
            {
                "SLURM_ARRAY_TASK_ID": "1",
                "SLURM_ARRAY_TASK_MIN": "1",
                "SLURM_ARRAY_TASK_MAX": "4",
                "SLURM_ARRAY_TASK_COUNT": "4",
            },
            None,
            (1, 4),
            id="slurm --array=1-4",
        ),
        # --array=0-12:4: ids 0, 4, 8, 12; id 8 is the third: (8 - 0) / 4 + 1
        pytest.param(
            {
                "SLURM_ARRAY_TASK_ID": "8",
                "SLURM_ARRAY_TASK_MIN": "0",
                "SLURM_ARRAY_TASK_MAX": "12",
                "SLURM_ARRAY_TASK_STEP": "4",
                "SLURM_ARRAY_TASK_COUNT": "4",
            },
            None,
            (3, 4),
            id="slurm --array=0-12:4",
        ),
    ],
)
def test_shard_auto_reads_each_scheduler(
    env: dict[str, str], count: int | None, expected: tuple[int, int]
) -> None:
    found = sharding.parse("auto", count=count, env=env)
    assert (found.index, found.count) == expected


@pytest.mark.parametrize(
    ("env", "count", "named"),
    [
        pytest.param({}, None, "found no scheduler", id="nothing set"),
        pytest.param({"JOB_COMPLETION_INDEX": "0"}, None, "--shard-count", id="kubernetes without a count"),
        pytest.param({"JOB_COMPLETION_INDEX": "4"}, 4, "counts from 1", id="kubernetes index past the count"),
        pytest.param(
            {"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "4", "JOB_COMPLETION_INDEX": "0"},
            4,
            "more than one scheduler",
            id="two schedulers",
        ),
        pytest.param(
            {"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "4"}, 3, "--shard-count says 3", id="count disagrees"
        ),
        pytest.param(
            {"CI_NODE_INDEX": "x", "CI_NODE_TOTAL": "4"}, None, "not a whole number", id="not a number"
        ),
        # --array=1,3,7: MIN 1, MAX 7, COUNT 3, no step: not evenly spaced
        pytest.param(
            {
                "SLURM_ARRAY_TASK_ID": "3",
                "SLURM_ARRAY_TASK_MIN": "1",
                "SLURM_ARRAY_TASK_MAX": "7",
                "SLURM_ARRAY_TASK_COUNT": "3",
            },
            None,
            "not evenly spaced",
            id="slurm list",
        ),
    ],
)
def test_shard_auto_refuses_what_it_cannot_tell(env: dict[str, str], count: int | None, named: str) -> None:
    with pytest.raises(UsageError, match=named):
        sharding.parse("auto", count=count, env=env)


@pytest.mark.parametrize("spec", ["0/4", "5/4", "4", "a/b", "1/0", "-1/4", "1/4/2"])
def test_a_shard_spec_outside_k_of_n_is_refused(spec: str) -> None:
    with pytest.raises(UsageError, match="--shard"):
        sharding.parse(spec)


def test_shard_budget_total_divides_evenly_and_excludes_budget_usd() -> None:
    """$10 over 4 shards: $2.50 each."""
    assert sharding.budget(None, 10.0, sharding.Shard(2, 4), 25.0) == 2.5
    assert sharding.budget(3.0, None, sharding.Shard(2, 4), 25.0) == 3.0
    assert sharding.budget(None, None, None, 25.0) == 25.0
    with pytest.raises(UsageError, match="pass one"):
        sharding.budget(3.0, 10.0, sharding.Shard(2, 4), 25.0)
    with pytest.raises(UsageError, match="--shard too"):
        sharding.budget(None, 10.0, None, 25.0)


def _catalog(path: Path, count: int) -> Path:
    path.write_text(
        "".join(
            json.dumps(
                {"id": f"case-{n}", "category": "c", "prompt": f"Q {n}", "risk": "low", "criteria": ["x"]}
            )
            + "\n"
            for n in range(count)
        )
    )
    return path


def test_run_shard_runs_only_its_cases_and_says_the_budget_is_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """case-1 and case-2 of case-0..case-2 over 3 shards: case-1 is in shard 1 (see above),
    case-2 in shard 2; so shard 1 runs case-1's two trials and nothing of case-2."""
    cases = _catalog(tmp_path / "cases.jsonl", 3)
    out = tmp_path / "s1.jsonl"
    argv = [
        "run",
        "--runner",
        "stub",
        "--condition",
        "baseline",
        "--cases",
        str(cases),
        "--output",
        str(out),
        "--trials",
        "2",
        "--shard",
        "1/3",
        "--shard-budget-total",
        "3",
    ]
    assert main(argv) == exitcodes.OK
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(sharding.shard_of(r["case_id"], 3) == 1 for r in rows)
    assert "case-1" in {r["case_id"] for r in rows} and "case-2" not in {r["case_id"] for r in rows}
    assert "of $1.0000 (the budget of shard 1/3 alone)" in capsys.readouterr().err
    record = json.loads((tmp_path / "s1.jsonl.shard.json").read_text())
    assert (record["index"], record["count"]) == (1, 3)


def test_an_output_recording_another_shard_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = _catalog(tmp_path / "cases.jsonl", 3)
    argv = [
        "run",
        "--runner",
        "stub",
        "--condition",
        "baseline",
        "--cases",
        str(cases),
        "--output",
        str(tmp_path / "s.jsonl"),
        "--trials",
        "1",
        "--shard",
    ]
    assert main([*argv, "1/3"]) == exitcodes.OK
    assert main([*argv, "2/3"]) == exitcodes.SHARD_CONFLICT
    assert "records shard 1/3, not 2/3" in capsys.readouterr().err


def test_an_output_of_an_unsharded_run_is_refused_as_a_shard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = _catalog(tmp_path / "cases.jsonl", 3)
    argv = [
        "run",
        "--runner",
        "stub",
        "--condition",
        "baseline",
        "--cases",
        str(cases),
        "--output",
        str(tmp_path / "s.jsonl"),
        "--trials",
        "1",
    ]
    assert main(argv) == exitcodes.OK
    assert main([*argv, "--shard", "1/3"]) == exitcodes.SHARD_CONFLICT
    assert "rows of an unsharded run" in capsys.readouterr().err


def test_a_rerun_with_other_trials_into_a_shard_output_is_refused(tmp_path: Path) -> None:
    cases = _catalog(tmp_path / "cases.jsonl", 3)
    argv = [
        "run",
        "--runner",
        "stub",
        "--condition",
        "baseline",
        "--cases",
        str(cases),
        "--output",
        str(tmp_path / "s.jsonl"),
        "--shard",
        "1/3",
        "--trials",
    ]
    assert main([*argv, "1"]) == exitcodes.OK
    assert main([*argv, "2"]) == exitcodes.SHARD_CONFLICT


def test_a_shard_is_a_value() -> None:
    """A Shard is equal to (and hashes as) another of the same index and count, and to nothing
    else, so a set of three built from two distinct pairs holds two; it prints as K/N and reprs
    with both numbers named (as the frozen dataclass it was did)."""
    same, other_index, other_count = sharding.Shard(2, 4), sharding.Shard(1, 4), sharding.Shard(2, 3)
    assert sharding.Shard(2, 4) == same
    assert same != other_index
    assert same != other_count
    assert same != (2, 4)  # not a tuple: a pair of numbers is no shard
    assert len({sharding.Shard(2, 4), same, other_index}) == 2
    assert str(same) == "2/4"
    assert repr(same) == "Shard(index=2, count=4)"


def test_the_shard_module_leaves_dataclasses_out() -> None:
    """Every `run` start-up imports the shard module for `--shard`: it must not bring in
    dataclasses (and inspect with it), about 8 ms of start-up (issue 38). A fresh process, without
    coverage's hooks (coverage imports dataclasses itself)."""
    probe = "import sys, adhd_evals.runs.calling.shard; print(sorted({'dataclasses', 'inspect'} & set(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        env=unmeasured_environment(),
    )
    assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr
