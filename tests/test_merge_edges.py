"""`adhd-evals merge` on hand-written shards: the refusals and row shapes the stub runs of
test_merge_shards.py do not make (another split, other runs, stray cases, torn or foreign
lines, rows without a cost, a plan smaller than the shards). Each shard is written by hand,
its sidecar as `run --shard` writes it (shard_records.py), so every expected value is worked
from the rule."""

from __future__ import annotations

import hashlib
import json
from itertools import count
from pathlib import Path

import pytest

import shard_records
from adhd_evals import exitcodes
from adhd_evals.entry import main


def _in_shard(index: int, total: int, n: int = 1) -> list[str]:
    """The first `n` ids case-0, case-1, ... whose shard of `total` is `index`, by the rule the
    docs give: sha256 of the id, its first 8 bytes big-endian, mod the count, plus 1."""
    found = []
    for k in count():
        case_id = f"case-{k}"
        digest = hashlib.sha256(case_id.encode()).digest()
        if int.from_bytes(digest[:8], "big") % total + 1 == index:
            found.append(case_id)
            if len(found) == n:
                return found
    raise AssertionError  # count() never ends


def _row(case_id: str, trial: int = 1, **extra: object) -> dict[str, object]:
    return {
        "case_id": case_id,
        "trial": trial,
        "condition": "baseline",
        "runner": "r",
        "response": "a",
        **extra,
    }


def _merge(
    capsys: pytest.CaptureFixture[str], *paths: Path, plan: Path | None = None
) -> tuple[int, str, str]:
    out = paths[0].parent / "merged.jsonl"
    argv = ["merge", *map(str, paths), "--output", str(out), *(["--plan", str(plan)] if plan else [])]
    code = main(argv)
    captured = capsys.readouterr()
    if code != exitcodes.OK:
        assert not out.exists()
        # merge's own refusals say so; a bad input file is named the way every reader names it
        assert code == exitcodes.INPUT or "Nothing was written." in captured.err
    return code, captured.out, captured.err


def test_shards_of_two_splits_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Shard 1 of 2 beside shard 2 of 3: their cases were split two ways, so no set of them
    can be whole. Shard 1 (the lowest index) is the reference the other is named against."""
    one = shard_records.shard(tmp_path / "a.jsonl", [], [], index=1, total=2)
    two = shard_records.shard(tmp_path / "b.jsonl", [], [], index=2, total=3)
    code, _, err = _merge(capsys, one, two)
    assert code == exitcodes.SHARD_FOREIGN
    assert (
        f"{two} (shard 2/3) is a shard of 3, {one} (shard 1/2) of 2: they are not shards of one split" in err
    )


def test_a_shard_holding_other_runs_is_refused_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Shard 2 ran nothing (its record lists no runs), shard 1 ran `baseline r`: "none" is
    said for the empty set, so the message never ends in an empty list."""
    one = shard_records.shard(tmp_path / "a.jsonl", [], [], index=1, total=2)
    two = shard_records.shard(tmp_path / "b.jsonl", [], [], index=2, total=2, runs=False)
    code, _, err = _merge(capsys, one, two)
    assert code == exitcodes.SHARD_FOREIGN
    assert f"{two} (shard 2/2) holds the runs none, {one} (shard 1/2) holds baseline r" in err


def test_a_shard_that_planned_another_shards_case_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Shard 1/2's record lists a case whose hash puts it in shard 2: another split (or another
    hash) made it, and the case is named."""
    stray = _in_shard(2, 2)[0]
    one = shard_records.shard(tmp_path / "a.jsonl", [json.dumps(_row(stray))], [stray], index=1, total=2)
    two = shard_records.shard(tmp_path / "b.jsonl", [], [], index=2, total=2, plan=[stray])
    code, _, err = _merge(capsys, one, two)
    assert code == exitcodes.SHARD_FOREIGN
    assert f"{one} (shard 1/2) planned cases of other shards ({stray})" in err


def test_a_row_with_leading_spaces_is_merged_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Leading whitespace is still one JSON value (json.loads reads it): the row is merged,
    as its line, byte for byte."""
    line = "   " + json.dumps(_row("case-0", cost_usd=0.5))
    shard = shard_records.shard(tmp_path / "s.jsonl", [line], ["case-0"])
    code, out, _ = _merge(capsys, shard)
    assert code == exitcodes.OK and "(1 row)" in out and "Total spend $0.5000." in out
    assert (tmp_path / "merged.jsonl").read_text() == line + "\n"  # its seal taken off


@pytest.mark.parametrize(
    "line",
    [
        pytest.param('{"case_id": "case-0", "trial": 1, "condit', id="a torn line"),
        pytest.param(json.dumps(_row("case-0")) + " x", id="text after the row"),
        pytest.param(json.dumps([_row("case-0")]), id="a list, not an object"),
        pytest.param(json.dumps({**_row("case-0"), "trial": "1"}), id="a trial as text"),
        pytest.param(json.dumps({**_row("case-0"), "response": None}), id="no response text"),
        pytest.param(json.dumps({**_row("case-0"), "runner": 1}), id="a runner that is a number"),
    ],
)
def test_a_line_that_is_not_a_response_row_is_refused_by_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str
) -> None:
    """Line 2 (after the good row of case-0) cannot be any planned row: refused naming the
    file and line, with the likely cause and the repair."""
    good = json.dumps(_row("case-0"))
    shard = shard_records.shard(tmp_path / "s.jsonl", [good, line], ["case-0"])
    code, _, err = _merge(capsys, shard)
    assert code == exitcodes.SHARD_FOREIGN
    assert f"{shard}:2: not a response row (a torn line? rerun the shard to repair it)" in err


def test_a_sealed_line_that_is_not_utf8_is_refused_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A row whose response holds the bytes of a lone surrogate (ED A0 80: what UTF-8 forbids and
    json.loads reads from bytes all the same), sealed by the documented rule (SHA-256 of "x", a
    newline and the line): no merged file can hold it (the reference reads its rows as UTF-8
    text), so it is refused as not a response row, exit 32, by file and line, and nothing is
    written. Before, it was merged and writing it failed as an internal error (exit 70)."""
    good = json.dumps(_row("case-0"))
    body = json.dumps(_row("case-1", cost_usd=0.5)).encode().replace(b'"a"', b'"a\xed\xa0\x80"')
    seal = hashlib.sha256(b"x\n" + body).hexdigest().encode()
    shard = shard_records.shard(tmp_path / "s.jsonl", [good], ["case-0", "case-1"])
    with shard.open("ab") as stream:
        stream.write(body[:-1] + b', "seal": "' + seal + b'"}\n')
    code, _, err = _merge(capsys, shard)
    assert code == exitcodes.SHARD_FOREIGN
    assert f"{shard}:2: not a response row (a torn line? rerun the shard to repair it)" in err


def test_twelve_bad_lines_are_named_ten_and_counted_after(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ten problems are named (lines 2 to 11), then "and 2 more" for lines 12 and 13."""
    good = json.dumps(_row("case-0"))
    shard = shard_records.shard(tmp_path / "s.jsonl", [good, *["not json"] * 12], ["case-0"])
    code, _, err = _merge(capsys, shard)
    assert code == exitcodes.SHARD_FOREIGN
    assert f"{shard}:11: not a response row" in err and f"{shard}:12:" not in err
    assert "and 2 more" in err


def test_rows_without_a_float_cost_are_counted_by_what_they_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Four trials: cost 1 (an integer, still dollars), no cost, cost 0.25, and a cached row
    of 2. Spend 1 + 0.25 = $1.2500; 1 row with no reported cost; 1 from the cache at its first
    cost $2.0000."""
    rows = [
        _row("case-0", 1, cost_usd=1),
        _row("case-0", 2),
        _row("case-0", 3, cost_usd=0.25),
        _row("case-0", 4, cost_usd=2, cached=True),
    ]
    shard = shard_records.shard(tmp_path / "s.jsonl", [json.dumps(r) for r in rows], ["case-0"], trials=4)
    code, out, _ = _merge(capsys, shard)
    assert code == exitcodes.OK
    assert (
        "(4 rows)" in out
        and "Total spend $1.2500; 1 from the cache, not charged (first cost $2.0000); "
        "1 with no reported cost."
        in out
    )


def test_shards_that_ran_more_than_the_plan_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The plan holds case-0 trial 1; the shard ran trials 1 and 2: trial 2 is a row the plan
    does not hold (a shard run with other --trials), refused as foreign."""
    rows = [json.dumps(_row("case-0", t)) for t in (1, 2)]
    shard = shard_records.shard(tmp_path / "s.jsonl", rows, ["case-0"], trials=2)
    plan = tmp_path / "plan.jsonl"
    plan.write_text(json.dumps({"case_id": "case-0", "trial": 1, "condition": "baseline"}) + "\n")
    code, _, err = _merge(capsys, shard, plan=plan)
    assert code == exitcodes.SHARD_FOREIGN
    assert f"{plan}: the shards ran 1 row the plan does not hold: case case-0 trial 2 baseline" in err


def test_a_plan_line_nested_too_deep_is_refused_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plan line of 100,000 nested lists is past what Python's JSON reader can recurse into:
    named as line 2 of the plan (column 1), not a RecursionError, and nothing is merged."""
    shard = shard_records.shard(tmp_path / "s.jsonl", [json.dumps(_row("case-0"))], ["case-0"])
    plan = tmp_path / "plan.jsonl"
    good = json.dumps({"case_id": "case-0", "trial": 1, "condition": "baseline"})
    plan.write_text(good + "\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    code, _, err = _merge(capsys, shard, plan=plan)
    assert code == exitcodes.INPUT
    assert f"{plan}:2:1: invalid JSON: nesting too deep to read" in err


def test_a_huge_cost_prints_a_few_digits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A row that cost 1e308 dollars (finite, so dollars): the total prints as $1e+308, 4
    significant digits, not a 309-digit figure."""
    shard = shard_records.shard(
        tmp_path / "s.jsonl", [json.dumps(_row("case-0", cost_usd=1e308))], ["case-0"]
    )
    code, out, _ = _merge(capsys, shard)
    assert code == exitcodes.OK and "Total spend $1e+308." in out
