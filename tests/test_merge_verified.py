"""Issue 35: merge verifies shards against the plan each was made from, without `--plan`: a shard
narrowed by `--case`, a record that cannot be a split, a cost that is not dollars, a row edited
since it was written and a shard of another catalog whose record was edited to pass are each
refused by name, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.calling.shard import shard_of

CASES: list[dict[str, str | list[str]]] = [
    {"id": f"case-{n}", "category": "c", "prompt": f"Q {n}", "risk": "low", "criteria": ["x"]}
    for n in range(8)
]


def _catalog(work: Path, prompt_suffix: str = "") -> Path:
    path = work / "cases.jsonl"
    path.write_text(
        "".join(json.dumps({**c, "prompt": f"{c['prompt']}{prompt_suffix}"}) + "\n" for c in CASES)
    )
    return path


def _shard(work: Path, k: int, *extra: str) -> Path:
    out = work / f"shard-{k}.jsonl"
    argv = ["run", "--runner", "stub", "--condition", "baseline", "--cases", str(work / "cases.jsonl")]
    argv += ["--trials", "1", "--shard", f"{k}/2", "--output", str(out), *extra]
    assert main(argv) == exitcodes.OK
    return out


def _merge(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, str]:
    out = paths[0].parent / "merged.jsonl"
    capsys.readouterr()
    code = main(["merge", *map(str, paths), "--output", str(out)])
    err = capsys.readouterr().err
    if code != exitcodes.OK:
        assert not out.exists() and "Nothing was written." in err
    return code, err


def _mine(k: int) -> list[str]:
    """The cases of shard k of 2, by the documented rule (sha256 of the id, first 8 bytes, mod 2, + 1)."""
    return [str(c["id"]) for c in CASES if shard_of(str(c["id"]), 2) == k]


@pytest.fixture
def shards(tmp_path: Path) -> list[Path]:
    _catalog(tmp_path)
    return [_shard(tmp_path, 1), _shard(tmp_path, 2)]


def test_a_shard_narrowed_by_case_is_refused_naming_what_it_did_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Shard 1 run with --case for one of its cases: its slice's other cases were never run. Before
    issue 35 its record planned only that case, and the merge passed with rows missing."""
    _catalog(tmp_path)
    mine = _mine(1)
    assert len(mine) >= 2
    one = _shard(tmp_path, 1, "--case", mine[0])
    two = _shard(tmp_path, 2)
    code, err = _merge(capsys, one, two)
    assert code == exitcodes.SHARD_MISSING
    assert (
        f"ran 1 of its slice's {len(mine)} cases (narrowed by --case): {', '.join(mine[1:])} not run" in err
    )


@pytest.mark.parametrize(("index", "count"), [(1, 0), (0, 2), (3, 2), (-1, -1)])
def test_a_record_that_cannot_be_a_split_is_refused_by_position(
    shards: list[Path], capsys: pytest.CaptureFixture[str], index: int, count: int
) -> None:
    """`count: 0` crashed merge (ZeroDivisionError in shard_of, exit 70)."""
    sidecar = Path(str(shards[0]) + ".shard.json")
    record = json.loads(sidecar.read_text())
    sidecar.write_text(json.dumps({**record, "index": index, "count": count}))
    code, err = _merge(capsys, *shards)
    assert code == exitcodes.SHARD_FOREIGN
    assert f"index {index} of count {count} cannot be a split" in err


@pytest.mark.parametrize("cost", ["NaN", "Infinity", "-Infinity", "-1000", "true", '"0.5"'])
def test_a_cost_that_is_not_dollars_is_refused_by_line(
    shards: list[Path], capsys: pytest.CaptureFixture[str], cost: str
) -> None:
    """Rows costing -1000 or NaN merged with `Total spend $nan`, exit 0."""
    lines = shards[0].read_text().splitlines(keepends=True)
    lines[0] = lines[0].replace('"cost_usd": 0.0', f'"cost_usd": {cost}')
    shards[0].write_text("".join(lines))
    code, err = _merge(capsys, *shards)
    assert code == exitcodes.SHARD_FOREIGN
    shown = json.dumps(json.loads(cost))
    assert (
        f"{shards[0]}:1: case {json.loads(lines[0])['case_id']} trial 1 baseline/stub: cost_usd is {shown}"
        in err
    )


def test_an_edited_response_is_refused_by_line(
    shards: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    lines = shards[1].read_text().splitlines(keepends=True)
    row = json.loads(lines[-1])
    lines[-1] = lines[-1].replace("Stub answer", "Edited answer")
    shards[1].write_text("".join(lines))
    code, err = _merge(capsys, *shards)
    assert code == exitcodes.SHARD_FOREIGN
    assert (
        f"{shards[1]}:{len(lines)}: case {row['case_id']} trial 1 baseline/stub does not match its seal"
        in err
    )


def test_a_shard_of_another_catalog_with_its_record_edited_is_refused(
    tmp_path: Path, shards: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Shard 2 run on a catalog whose prompts differ, its record's catalog hash then edited to the
    real catalog's: the records agree, but its rows' seals were made for the other catalog."""
    other = tmp_path / "other"
    other.mkdir()
    _catalog(other, prompt_suffix="!")
    foreign = _shard(other, 2)
    record = json.loads(Path(str(foreign) + ".shard.json").read_text())
    record["catalog_sha256"] = json.loads(Path(str(shards[0]) + ".shard.json").read_text())["catalog_sha256"]
    Path(str(foreign) + ".shard.json").write_text(json.dumps(record))
    code, err = _merge(capsys, shards[0], foreign)
    assert code == exitcodes.SHARD_FOREIGN
    assert f"{foreign}:1:" in err and "does not match its seal" in err


def test_a_record_whose_slices_do_not_add_up_to_its_plan_is_refused(
    shards: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Both records say the plan holds 9 cases; their slices hold 8."""
    for shard in shards:
        sidecar = Path(str(shard) + ".shard.json")
        record = json.loads(sidecar.read_text())
        record["plan"]["cases"] = 9
        sidecar.write_text(json.dumps(record))
    code, err = _merge(capsys, *shards)
    assert code == exitcodes.SHARD_FOREIGN
    assert "the shards' slices hold 8 cases, their plan 9" in err


def test_shards_of_two_plans_are_refused(shards: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    sidecar = Path(str(shards[1]) + ".shard.json")
    record = json.loads(sidecar.read_text())
    record["plan"]["sha256"] = "0" * 64
    sidecar.write_text(json.dumps(record))
    code, err = _merge(capsys, *shards)
    assert code == exitcodes.SHARD_FOREIGN
    assert "was planned from other cases than" in err


def test_whole_shards_still_merge(shards: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = _merge(capsys, *shards)
    assert code == exitcodes.OK
    rows = [json.loads(line) for line in (shards[0].parent / "merged.jsonl").read_text().splitlines()]
    assert len(rows) == 8 and all("seal" not in row for row in rows)


def test_a_row_without_its_seal_is_refused(shards: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    """A row written by hand (or by a version that did not seal) has no seal to hold."""
    lines = shards[0].read_text().splitlines(keepends=True)
    row = json.loads(lines[0])
    del row["seal"]
    lines[0] = json.dumps(row) + "\n"
    shards[0].write_text("".join(lines))
    code, err = _merge(capsys, *shards)
    assert code == exitcodes.SHARD_FOREIGN
    assert f"{shards[0]}:1: case {row['case_id']} trial 1 baseline/stub does not match its seal" in err


def test_a_shard_output_planned_from_other_cases_is_refused_on_rerun(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A case added to the catalog after shard 1 ran: its record speaks for another plan (and
    another catalog): the rerun into the same output is refused, exit 33."""
    _catalog(tmp_path)
    _shard(tmp_path, 1)
    with (tmp_path / "cases.jsonl").open("a") as catalog:
        catalog.write(json.dumps({**CASES[0], "id": "case-new"}) + "\n")
    argv = ["run", "--runner", "stub", "--condition", "baseline", "--cases", str(tmp_path / "cases.jsonl")]
    argv += ["--trials", "1", "--shard", "1/2", "--output", str(tmp_path / "shard-1.jsonl")]
    capsys.readouterr()
    assert main(argv) == exitcodes.SHARD_CONFLICT
    assert "records another plan (the cases changed since)" in capsys.readouterr().err


def test_two_runs_one_narrowed_name_only_the_narrowed_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Shard 1's baseline ran its whole slice, its candidate only one case: the candidate is named."""
    _catalog(tmp_path)
    (tmp_path / "skill.md").write_text("Be brief.\n")
    mine = _mine(1)
    one = _shard(tmp_path, 1)
    argv = [
        "run",
        "--runner",
        "stub",
        "--condition",
        "candidate",
        "--condition-skill",
        str(tmp_path / "skill.md"),
    ]
    argv += ["--cases", str(tmp_path / "cases.jsonl"), "--trials", "1", "--shard", "1/2", "--case", mine[0]]
    assert main([*argv, "--output", str(one)]) == exitcodes.OK
    two = _shard(tmp_path, 2)
    whole = [arg.replace("1/2", "2/2") for arg in argv[: argv.index("--case")]]
    assert main([*whole, "--output", str(two)]) == exitcodes.OK
    code, err = _merge(capsys, one, two)
    assert code == exitcodes.SHARD_MISSING
    assert "run candidate stub ran 1 of its slice's" in err and "run baseline stub" not in err
