"""Issue 38 (shards + merge): merge over any shard contents writes what docs/scale.md says.

The seal check merge runs on every row was rewritten (the tail looked for at its place, the
catalog's part of the hash fed once); these properties hold merge, over generated shard
contents, to the documented rule rather than to its own earlier output: "The merged file holds
the shards' lines with their seals taken off (otherwise unchanged), in the order one unsharded
`--jobs 1` run writes them (run by run, trial by trial, catalog order)", with the spend counted
apart for rows from the cache and rows without a cost; a row twice, a row missing and a row
whose seal does not hold are each refused by line with their exit codes."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals import exitcodes
from adhd_evals.errors import ScaleRefused
from adhd_evals.runs.calling.merge import merge
from shard_records import record, sealed

IDS = [f"case-{n}" for n in range(4)]
TRIALS = 2


@dataclass(frozen=True)
class Row:
    place: int
    trial: int
    line: str  # the row's line as a run writes it, without its seal
    cost: float | None  # None: no cost reported
    cached: bool


def _row(
    place: int, trial: int, cost: object, cached: bool, response: str, extra: Mapping[str, object]
) -> Row:
    row: dict[str, object] = {
        "case_id": IDS[place],
        "trial": trial,
        "condition": "baseline",
        "runner": "r",
        "response": response,
        **extra,
    }
    if cost != "absent":
        row["cost_usd"] = cost
    if cached:
        row["cached"] = True
    known = cost if isinstance(cost, (int, float)) else None
    return Row(
        place, trial, json.dumps(row, ensure_ascii=False), None if known is None else float(known), cached
    )


# costs that are multiples of 1/8: their sums are exact in any order, so the total is the rule's
COSTS = st.one_of(
    st.integers(0, 40).map(lambda n: n / 8), st.integers(0, 5), st.just(None), st.just("absent")
)
EXTRA = st.dictionaries(
    st.sampled_from(["usage", "trace", "elapsed_s", "note"]),
    st.recursive(
        st.none() | st.integers() | st.text(max_size=6),
        lambda inner: st.lists(inner, max_size=3),
        max_leaves=6,
    ),
    max_size=3,
)


@st.composite
def whole_shards(draw: st.DrawFn) -> list[Row]:
    """Every (trial, place) once, in any line order, each row any shape a response row may take."""
    rows = [
        _row(place, trial, draw(COSTS), draw(st.booleans()), draw(st.text(max_size=12)), draw(EXTRA))
        for trial in range(1, TRIALS + 1)
        for place in range(len(IDS))
    ]
    return draw(st.permutations(rows))


def _write(folder: Path, lines: list[str]) -> Path:
    path = folder / "shard.jsonl"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    record(path, IDS, trials=TRIALS)  # run --shard 1/1's sidecar: IDS at places 0..3
    return path


@settings(max_examples=25, deadline=None)
@given(whole_shards())
def test_a_whole_shard_merges_to_its_lines_unsealed_in_run_order(rows: list[Row]) -> None:
    """The merged text is each line as written (the seal taken off), trial by trial, in catalog
    order; the spend is the costs of rows not from the cache, the cached ones counted apart at
    their first cost, and rows without a number counted as unmetered."""
    with tempfile.TemporaryDirectory() as tmp:
        merged = merge([_write(Path(tmp), [sealed(row.line) for row in rows])])
    in_order = sorted(rows, key=lambda row: (row.trial, row.place))
    assert "".join(merged.text()) == "".join(f"{row.line}\n" for row in in_order)
    assert merged.rows == len(rows) and merged.shards == 1
    assert merged.spent == sum(row.cost for row in rows if row.cost is not None and not row.cached)
    assert merged.cached == sum(1 for row in rows if row.cost is not None and row.cached)
    assert merged.cached_cost == sum(row.cost for row in rows if row.cost is not None and row.cached)
    assert merged.unmetered == sum(1 for row in rows if row.cost is None)


@pytest.mark.long
@settings(max_examples=30, deadline=None)
@given(whole_shards(), st.data())
def test_a_row_written_twice_is_refused_by_its_later_line(rows: list[Row], data: st.DataObject) -> None:
    """A line copied in again (after the line it copies): refused as there twice, naming the
    later line and the first."""
    lines = [sealed(row.line) for row in rows]
    first = data.draw(st.integers(0, len(lines) - 1))
    again = data.draw(st.integers(first + 1, len(lines)))
    lines.insert(again, lines[first])
    with tempfile.TemporaryDirectory() as tmp, pytest.raises(ScaleRefused) as refused:
        merge([path := _write(Path(tmp), lines)])
    row = rows[first]
    assert refused.value.exit_code == exitcodes.ROW_DUPLICATED
    assert refused.value.problems == [
        f"{path}:{again + 1}: case {IDS[row.place]} trial {row.trial} baseline/r is there twice "
        f"(first on line {first + 1})"
    ]


@pytest.mark.long
@settings(max_examples=30, deadline=None)
@given(whole_shards(), st.data())
def test_a_row_edited_after_its_seal_is_refused_by_line(rows: list[Row], data: st.DataObject) -> None:
    """One line's response edited after it was sealed: its seal does not hold, named by line."""
    lines = [sealed(row.line) for row in rows]
    at = data.draw(st.integers(0, len(lines) - 1))
    lines[at] = lines[at].replace('"response": "', '"response": "edited ', 1)
    with tempfile.TemporaryDirectory() as tmp, pytest.raises(ScaleRefused) as refused:
        merge([path := _write(Path(tmp), lines)])
    row = rows[at]
    assert refused.value.exit_code == exitcodes.SHARD_FOREIGN
    assert refused.value.problems == [
        f"{path}:{at + 1}: case {IDS[row.place]} trial {row.trial} baseline/r does not match its seal: "
        "edited since it was written, or written for another catalog than "
        f"{path} (shard 1/1) records; rerun that case"
    ]


@pytest.mark.long
@settings(max_examples=30, deadline=None)
@given(whole_shards(), st.data())
def test_a_shard_missing_rows_is_refused_counting_them(rows: list[Row], data: st.DataObject) -> None:
    """Some rows left out: refused as lacking that many planned rows, nothing merged."""
    kept = data.draw(
        st.lists(st.booleans(), min_size=len(rows), max_size=len(rows)).filter(lambda k: not all(k))
    )
    lines = [sealed(row.line) for row, keep in zip(rows, kept, strict=True) if keep]
    with tempfile.TemporaryDirectory() as tmp, pytest.raises(ScaleRefused) as refused:
        merge([_write(Path(tmp), lines)])
    assert refused.value.exit_code == exitcodes.SHARD_MISSING
    missing = kept.count(False)
    (said,) = refused.value.problems
    assert f"lacks {missing} planned row{'s' if missing > 1 else ''}" in said
