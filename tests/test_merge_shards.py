"""`adhd-evals merge`: every refusal names what is wrong, and nothing is written."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from helpers import Case
from shard_records import sealed

CASES: list[Case] = [
    {"id": f"case-{n}", "category": "c", "prompt": f"Q {n}", "risk": "low", "criteria": ["x"]}
    for n in range(8)
]


def _catalog(path: Path, cases: Sequence[Mapping[str, object]]) -> Path:
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    return path


def _shard(work: Path, k: int, catalog: Path, name: str | None = None, *extra: str) -> Path:
    out = work / (name or f"shard-{k}.jsonl")
    for condition in ("baseline", "candidate"):
        code = main(
            [
                "run",
                "--runner",
                "stub",
                "--condition",
                condition,
                "--condition-skill",
                str(work / "skill.md"),
                "--cases",
                str(catalog),
                "--trials",
                "2",
                "--shard",
                f"{k}/4",
                "--output",
                str(out),
                *extra,
            ]
        )
        assert code == exitcodes.OK
    return out


@pytest.fixture
def shards(tmp_path: Path) -> list[Path]:
    (tmp_path / "skill.md").write_text("Be terse.\n")
    catalog = _catalog(tmp_path / "cases.jsonl", CASES)
    return [_shard(tmp_path, k, catalog) for k in range(1, 5)]


def _merge(*paths: Path, plan: Path | None = None) -> int:
    out = paths[0].parent / "merged.jsonl"
    return main(["merge", *map(str, paths), "--output", str(out), *(["--plan", str(plan)] if plan else [])])


def test_all_shards_merge_to_every_planned_row_once(
    shards: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """8 cases x 2 trials x 2 conditions = 32 rows, each once."""
    assert _merge(*reversed(shards)) == exitcodes.OK  # the order given does not matter
    rows = [json.loads(line) for line in (shards[0].parent / "merged.jsonl").open()]
    keys = [(r["case_id"], r["trial"], r["condition"]) for r in rows]
    assert len(keys) == 32 and len(set(keys)) == 32
    assert "Merged 4 shards (32 rows)" in capsys.readouterr().out


def test_a_missing_shard_is_refused_by_its_number(
    shards: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _merge(shards[0], shards[1], shards[3]) == exitcodes.SHARD_MISSING
    assert "shard 3/4 is missing" in capsys.readouterr().err
    assert not (shards[0].parent / "merged.jsonl").exists()


def test_a_duplicated_row_is_refused_by_file_and_line(
    shards: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    lines = shards[1].read_text().splitlines(keepends=True)
    shards[1].write_text("".join(lines) + lines[0])  # the first row again, as line len + 1
    assert _merge(*shards) == exitcodes.ROW_DUPLICATED
    err = capsys.readouterr().err
    assert f"{shards[1]}:{len(lines) + 1}:" in err and "is there twice (first on line 1)" in err
    assert not (shards[0].parent / "merged.jsonl").exists()


def test_a_shard_given_twice_is_refused(
    shards: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(shards[2].read_bytes())
    (tmp_path / "copy.jsonl.shard.json").write_bytes((tmp_path / "shard-3.jsonl.shard.json").read_bytes())
    assert _merge(*shards, copy) == exitcodes.ROW_DUPLICATED
    assert f"{shards[2]} and {copy} are both shard 3/4" in capsys.readouterr().err


def test_a_shard_of_another_catalog_is_refused_by_name(
    shards: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "skill.md").write_text("Be terse.\n")
    changed: list[Case] = [{**c, "prompt": c["prompt"] + "!"} if c["id"] == "case-0" else c for c in CASES]
    foreign = _shard(other, 2, _catalog(other / "cases.jsonl", changed))
    assert _merge(shards[0], foreign, shards[2], shards[3]) == exitcodes.SHARD_FOREIGN
    assert f"{foreign} (shard 2/4) was run on another catalog" in capsys.readouterr().err


def test_a_shard_with_another_runner_config_is_refused(
    shards: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "shard-4.jsonl.shard.json"
    data = json.loads(record.read_text())
    data["runs"]["baseline stub"]["trials"] = 3
    record.write_text(json.dumps(data))
    assert _merge(*shards) == exitcodes.SHARD_FOREIGN
    assert "shard-4.jsonl (shard 4/4): run baseline stub differs from" in capsys.readouterr().err


def test_an_output_without_its_record_is_refused(
    shards: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    Path(str(shards[0]) + ".shard.json").unlink()
    assert _merge(*shards) == exitcodes.SHARD_FOREIGN
    assert "shard-1.jsonl.shard.json is missing" in capsys.readouterr().err


def test_a_shard_short_of_rows_is_refused_naming_them(
    shards: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    lines = shards[0].read_text().splitlines(keepends=True)
    gone = json.loads(lines[-1])
    shards[0].write_text("".join(lines[:-1]))
    assert _merge(*shards) == exitcodes.SHARD_MISSING
    err = capsys.readouterr().err
    assert (
        "lacks 1 planned row" in err and f"case {gone['case_id']} trial {gone['trial']} candidate/stub" in err
    )


def test_a_row_of_another_shard_is_refused(shards: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    stray = shards[1].read_text().splitlines(keepends=True)[0]
    shards[0].write_text(shards[0].read_text() + stray)
    assert _merge(*shards) == exitcodes.SHARD_FOREIGN
    assert "is not in the plan of" in capsys.readouterr().err


def test_merge_checks_the_shards_ran_the_whole_plan(
    shards: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plan with a comparator no shard ran: 8 cases x 2 trials of it are missing."""
    plan = tmp_path / "plan.jsonl"
    assert main(["plan", "--cases", str(tmp_path / "cases.jsonl"), "--trials", "2"]) == exitcodes.OK
    plan.write_text(capsys.readouterr().out)
    assert _merge(*shards, plan=plan) == exitcodes.OK
    capsys.readouterr()
    assert (
        main(["plan", "--cases", str(tmp_path / "cases.jsonl"), "--trials", "2", "--include-comparator"]) == 0
    )
    plan.write_text(capsys.readouterr().out)
    (tmp_path / "merged.jsonl").unlink()
    assert _merge(*shards, plan=plan) == exitcodes.SHARD_MISSING
    assert "16 planned rows no shard ran" in capsys.readouterr().err
    assert not (tmp_path / "merged.jsonl").exists()


def test_merge_prints_total_spend_apart_from_cached_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rows costing 0.25 (two) and a cached row of 1.0: spend $0.5000; the cached $1.0000 apart."""
    out = tmp_path / "s.jsonl"
    rows = [
        {
            "case_id": "case-0",
            "trial": 1,
            "condition": "baseline",
            "runner": "r",
            "response": "a",
            "cost_usd": 0.25,
        },
        {
            "case_id": "case-0",
            "trial": 2,
            "condition": "baseline",
            "runner": "r",
            "response": "b",
            "cost_usd": 0.25,
        },
        {
            "case_id": "case-0",
            "trial": 3,
            "condition": "baseline",
            "runner": "r",
            "response": "c",
            "cost_usd": 1.0,
            "cached": True,
        },
    ]
    out.write_text("".join(sealed(json.dumps(r)) + "\n" for r in rows))
    runner = {
        "name": "r",
        "command": ["x"],
        "response_format": "claude-json",
        "budget_flag": None,
        "prompt_via": "argv",
    }
    run = {
        "condition": "baseline",
        "runner": runner,
        "trials": 3,
        "skill_sha256": None,
        "places": [0],
    }
    record = {
        "adhd_evals_shard": 3,
        "shard": "1/1",
        "index": 1,
        "count": 1,
        "catalog_sha256": "x",
        # the documented plan digest: SHA-256 over each id and a newline
        "plan": {"cases": 1, "sha256": hashlib.sha256(b"case-0\n").hexdigest()},
        "places": [0],
        "ids": ["case-0"],
        "runs": {"baseline r": run},
    }
    (tmp_path / "s.jsonl.shard.json").write_text(json.dumps(record))
    assert _merge(out) == exitcodes.OK
    assert (
        "Total spend $0.5000; 1 from the cache, not charged (first cost $1.0000)." in capsys.readouterr().out
    )


@pytest.mark.long
def test_judge_shards_merge_to_the_scores_of_one_judge(
    shards: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The merged responses blinded, judged by the stub in 4 shards and merged, score as one
    judge of the whole sheet does (the stub judge is deterministic per response)."""
    assert _merge(*shards) == exitcodes.OK
    merged, cases = tmp_path / "merged.jsonl", str(tmp_path / "cases.jsonl")
    sheet, key = str(tmp_path / "sheet.jsonl"), str(tmp_path / "key.jsonl")
    assert main(["blind", str(merged), "--sheet", sheet, "--key", key, "--cases", cases]) == exitcodes.OK
    judge = ["judge", sheet, "--runner", "stub", "--cases", cases, "--output"]
    assert main([*judge, str(tmp_path / "whole.jsonl")]) == exitcodes.OK
    parts = [tmp_path / f"judged-{k}.jsonl" for k in range(1, 5)]
    for k, part in enumerate(parts, start=1):
        assert main([*judge, str(part), "--shard", f"{k}/4"]) == exitcodes.OK
    assert sum(len(p.read_text().splitlines()) for p in parts) == 32  # every sheet row judged once
    assert main(["merge", *map(str, parts), "--output", str(tmp_path / "judged.jsonl")]) == exitcodes.OK
    capsys.readouterr()
    scores = []
    for judged in ("whole.jsonl", "judged.jsonl"):
        main(["score", str(tmp_path / judged), "--key", key, "--json"])
        scores.append(capsys.readouterr().out)
    assert scores[0] == scores[1] and '"conditions"' in scores[0]


def test_check_shard_checks_only_its_cases(
    shards: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Shard 2/4's check sees its cases alone: as many rows as shard-2.jsonl holds."""
    assert _merge(*shards) == exitcodes.OK
    suite = tmp_path / "checks.py"
    suite.write_text(
        "CHECKS = {" + ", ".join(f"'case-{n}': [('x', lambda a: True)]" for n in range(8)) + "}\n"
    )
    capsys.readouterr()
    argv = [
        "check",
        str(tmp_path / "merged.jsonl"),
        "--cases",
        str(tmp_path / "cases.jsonl"),
        "--suite",
        str(suite),
        "--json",
        "--shard",
        "2/4",
    ]
    assert main(argv) == exitcodes.OK
    found = json.loads(capsys.readouterr().out)
    rows = sum(c["rows"] for c in found["conditions"].values())
    assert rows == len(shards[1].read_text().splitlines()) and found["catalog_cases_without_checks"] == []


@pytest.mark.parametrize(
    ("field", "value"),
    [
        pytest.param("ids", [1, 2], id="ids that are numbers"),
        pytest.param("places", ["0"], id="a place as text"),
        pytest.param("ids", [], id="fewer ids than places"),
        pytest.param("places", "0", id="not a list"),
        pytest.param("run places", [99], id="a run planning a case the shard does not list"),
    ],
)
def test_a_record_this_version_did_not_write_is_refused(
    shards: list[Path], tmp_path: Path, field: str, value: object, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "shard-2.jsonl.shard.json"
    data = json.loads(record.read_text())
    if field == "run places":
        data["runs"]["baseline stub"]["places"] = value
    else:
        data[field] = value
    record.write_text(json.dumps(data))
    assert _merge(*shards) == exitcodes.SHARD_FOREIGN
    assert "shard-2.jsonl.shard.json is not a shard record" in capsys.readouterr().err
