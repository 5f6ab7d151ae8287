"""Issue 38 (4 shards + merge): merge's common path agrees with its general path, line for line.

merge takes the common row (planned, new, sealed, a float cost of dollars, not from the cache)
inline and sends every other line to the general path, which takes it or names what is wrong.
Run with the general path alone (`_read_rows(..., common=False)`), every generated shard file
must merge to the same bytes and counts, or be refused with the same lines and exit code:
the common path is only a faster way to the general path's answer, never another answer. The
files mix good rows with rows duplicated, foreign (another case, run or trial), torn, sealed
for another catalog or edited since, unmetered, from the cache, with costs that are not
dollars, with fields of the wrong type under a seal that holds (a seal catches damage, not a
forgery: docs/scale.md), not UTF-8, blank, and with leading blanks or a CR.

And the seal is checked in place for a line as a shard writes it (`shard.opener`): the same
unsealed bytes as the general check gives the same line with a blank before it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals import exitcodes
from adhd_evals.errors import ScaleRefused
from adhd_evals.runs.calling import merge as merging
from adhd_evals.runs.calling import shard as sharding
from shard_records import record

IDS = ["case-0", "case-1", "case-2"]
TRIALS = 2


def _sealed(body: bytes, catalog: bytes = b"x") -> bytes:
    """The documented seal (docs/scale.md "The record"): SHA-256 of the catalog hash, a newline
    and the line as written without its seal, added as a last key "seal"."""
    seal = hashlib.sha256(catalog + b"\n" + body).hexdigest().encode()
    return body[:-1] + b', "seal": "' + seal + b'"}'


# costs as JSON writes them: dollars (multiples of 1/8, so any order of summing is exact), an
# integer, null, none at all, and what is not dollars (NaN, infinite, negative, text, a bool)
DOLLARS = ["0.125", "2.5", "0.0", "-0.0", "3", "null", None]
COSTS = st.sampled_from([*DOLLARS, "NaN", "1e400", "-0.5", '"0.5"', "true"])
CACHED = st.sampled_from(["", "", ', "cached": true', ', "cached": false'])
TRACE = st.sampled_from(["", ', "trace": {"tool_calls": [{"name": "Read", "input": {"a": [1, {}]}}]}'])


@st.composite
def rows(draw: st.DrawFn, planned: tuple[str, int] | None = None) -> bytes:
    """One response row's line: of a planned case and trial (`planned`: a good row, but for its
    cost, cache flag and trace), or anything a row may hold (foreign cases, runs and trials,
    fields of the wrong type, costs that are not dollars), sealed for catalog "x" unless drawn
    otherwise (another catalog's seal, edited since, no seal, bytes that are not UTF-8)."""
    if planned is None:
        case = draw(st.sampled_from([*IDS, *IDS, "case-9", "5"]))
        trial = draw(st.sampled_from(["1", "2", "1", "2", "3", "0", '"1"']))
        condition = draw(st.sampled_from(["baseline"] * 5 + ["candidate"]))
        response = draw(st.sampled_from(['"an answer"', '"\\u00e9t\\u00e9 \\ud800"', '"été"', "null"]))
        cost = draw(COSTS)
    else:
        case, trial, condition, response = planned[0], str(planned[1]), "baseline", '"an answer"'
        cost = draw(st.sampled_from(DOLLARS) if draw(st.integers(0, 5)) else COSTS)  # a sixth: any cost
    quoted = case if case == "5" else f'"{case}"'
    body = f'{{"case_id": {quoted}, "trial": {trial}, "condition": "{condition}", "runner": "r", '
    body += f'"response": {response}, "usage": {{"input_tokens": 7}}'
    body += "" if cost is None else f', "cost_usd": {cost}'
    line = (body + draw(CACHED) + draw(TRACE) + "}").encode()
    if planned is not None:
        return _sealed(line)
    how = draw(st.sampled_from(["sealed"] * 6 + ["other catalog", "edited", "unsealed", "not utf-8"]))
    if how == "other catalog":
        return _sealed(line, b"y")
    if how == "edited":
        return _sealed(line).replace(b"answer", b"answers", 1)
    if how == "not utf-8":
        return _sealed(line.replace(b'"r"', b'"r\xed\xa0\x80"', 1).replace(b"answer", b"\xed\xa0\x80", 1))
    return line if how == "unsealed" else _sealed(line)


@st.composite
def shard_files(draw: st.DrawFn) -> list[bytes]:
    """A shard output: often every planned row once (each with its own cost, cache flag and
    trace), then lines of any kind anywhere (a copy of an earlier line among them), each with
    blanks before it or not, and ending in a newline, a CR and a newline, or a character and
    maybe no newline (the last line of a file, or two lines run together)."""
    lines = []
    if draw(st.sampled_from([True, True, True, False])):
        lines = [draw(rows((case_id, trial))) for trial in range(1, TRIALS + 1) for case_id in IDS]
    for _ in range(draw(st.sampled_from([0, 0, 1, 2, 3]))):
        kind = draw(st.sampled_from(["row", "row", "copy", "torn", "blank", "not json", "a list"]))
        if kind == "copy" and lines:
            line = draw(st.sampled_from(lines))
        elif kind == "torn":
            line = draw(rows())
            line = line[: draw(st.integers(0, len(line) - 1))]
        else:
            line = {"blank": b"   ", "not json": b"not json", "a list": _sealed(b'{"a": 1}')[1:]}.get(
                kind, draw(rows())
            )
        lines.insert(draw(st.integers(0, len(lines))), line)
    starts, ends = [b"", b"", b"", b" ", b"\t"], [b"\n"] * 16 + [b"\r\n", b"\x0c", b"x", b"x\n"]
    return [draw(st.sampled_from(starts)) + line + draw(st.sampled_from(ends)) for line in lines]


def _outcome(lines: list[bytes], *, common: bool) -> object:
    """What merge makes of a shard 1/1 output of `lines` (IDS at places 0..2, two trials): the
    merged text and counts, or the refusal's lines and exit code."""
    read_rows = functools.partial(merging._read_rows, common=common)
    with tempfile.TemporaryDirectory() as tmp, mock.patch.object(merging, "_read_rows", read_rows):
        path = Path(tmp) / "shard.jsonl"
        path.write_bytes(b"".join(lines))
        record(path, IDS, trials=TRIALS)
        try:
            merged = merging.merge([path])
        except ScaleRefused as refused:
            return (
                "refused",
                [line.replace(tmp, "TMP") for line in refused.problems],
                refused.exit_code,
            )
        text = "".join(merged.text())
        return (
            "merged",
            text,
            merged.rows,
            merged.spent,
            merged.cached,
            merged.cached_cost,
            merged.unmetered,
        )


@settings(max_examples=50, deadline=None)
@given(shard_files())
def test_the_common_path_and_the_general_path_give_one_outcome(lines: list[bytes]) -> None:
    """Any shard file: the same merged bytes and counts, or the same refusal and exit code,
    whether the common path took its common rows or the general path took every line."""
    assert _outcome(lines, common=True) == _outcome(lines, common=False)


@pytest.mark.long
@settings(max_examples=600, deadline=None)
@given(shard_files())
def test_the_two_paths_agree_over_a_longer_campaign(lines: list[bytes]) -> None:
    """The same comparison over more files (the long tier): a rarer mix, such as a planned row
    of infinite cost in a file otherwise whole, is drawn often enough to be seen."""
    assert _outcome(lines, common=True) == _outcome(lines, common=False)


def test_the_paths_are_compared_on_files_that_merge_and_files_refused() -> None:
    """The comparison above is not vacuous: a whole shard of good rows merges (and the common
    path takes them: the general path alone gives the same), and a copied row is refused as
    there twice, exit 31, by both."""
    good = [
        _sealed(
            f'{{"case_id": "{c}", "trial": {t}, "condition": "baseline", "runner": "r", "response": "ok", "cost_usd": 0.25}}'.encode()
        )
        + b"\n"
        for t in (1, 2)
        for c in IDS
    ]
    merged = _outcome(good, common=True)
    assert merged == _outcome(good, common=False)
    assert merged == (
        "merged",
        "".join(line.decode().split(', "seal"')[0] + "}\n" for line in good),
        6,
        1.5,
        0,
        0.0,
        0,
    )
    refused = _outcome([*good, good[0]], common=True)
    assert refused == _outcome([*good, good[0]], common=False)
    assert refused == (
        "refused",
        ["TMP/shard.jsonl:7: case case-0 trial 1 baseline/r is there twice (first on line 1)"],
        31,
    )


BODIES = st.builds(
    lambda text: json.dumps({"case_id": "c", "response": text}, ensure_ascii=False).encode(),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=40),  # UTF-8 has no lone surrogate
)


ENDS = st.sampled_from([b"\n", b"\r\n", b" \n", b"", b"x", b"}", b"}\n", b'"}\n'])


@given(BODIES, st.sampled_from([b"x", b"y"]), ENDS)
def test_a_seal_checked_in_place_opens_as_the_general_check_does(
    body: bytes, catalog: bytes, end: bytes
) -> None:
    """A sealed line opens, under its own catalog only, to its body and one newline when nothing
    but blanks follows its seal (docs/scale.md: the merged file holds the lines with their seals
    taken off), else to None; a line as a shard writes it (a newline at its end, nothing before
    it) is checked in place, and the same line with a blank before it (the general check) opens
    to that blank, the body and a newline, or to None alike."""
    raw = _sealed(body, catalog) + end
    opened = sharding.opener("x")
    expected = body + b"\n" if catalog == b"x" and not end.strip() else None
    assert opened(raw) == expected
    assert opened(b" " + raw) == (None if expected is None else b" " + body + b"\n")


@pytest.mark.parametrize(
    ("last", "said"),
    [
        pytest.param(b"x", "not a response row (a torn line? rerun the shard to repair it)", id="a letter"),
        pytest.param(b"\x0c", "case case-1 trial 1 baseline/r is not in the plan", id="a form feed, a blank"),
    ],
)
def test_one_character_after_the_last_row_of_a_file_is_read_as_before(last: bytes, said: str) -> None:
    """A file's last line without its newline, one character after its row: a letter is text
    after the row (not one JSON value: not a response row), a form feed is a blank (str.strip
    takes it, as before) and the row is read, then named as not planned (case-1 is not in a
    plan of case-0 alone). Only a newline right after the value is taken without looking
    further; anything else is judged as before."""
    row = b'{"case_id": "case-1", "trial": 1, "condition": "baseline", "runner": "r", "response": "a"}'
    good = _sealed(
        b'{"case_id": "case-0", "trial": 1, "condition": "baseline", "runner": "r", "response": "a"}'
    )
    with tempfile.TemporaryDirectory() as tmp, pytest.raises(ScaleRefused) as refused:
        path = Path(tmp) / "shard.jsonl"
        path.write_bytes(good + b"\n" + row + last)
        record(path, ["case-0"])
        merging.merge([path])
    assert refused.value.exit_code == exitcodes.SHARD_FOREIGN
    assert refused.value.problems == [
        f"{path}:2: {said}" + (f" of {path} (shard 1/1)" if "plan" in said else "")
    ]
