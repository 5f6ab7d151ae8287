"""Issue 35: the cache neither shares answers between cases nor serves a poisoned entry.

Cases that share a prompt are independent draws: one answer each (the key holds the case id).
An entry whose content does not match its digest, or whose cost is not dollars, is a miss with a
warning, counted by `cache stats`, which reads every entry through the bounded reader."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.calling import cache as caching
from adhd_evals.runs.calling.config import Runner

FAKE = str(Path(__file__).parent / "fakes" / "fake_cli.py")
STUB = Runner("stub", (), "text")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """Three cases with one prompt; a fake CLI whose answers are numbered by call."""
    rows = [
        {"id": f"case-{n}", "category": "c", "prompt": "The same question", "risk": "low", "criteria": ["x"]}
        for n in range(1, 4)
    ]
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    command = [sys.executable, FAKE, "--format", "claude-json", "--cost", "0.5", "--numbered"]
    command += ["--calls", str(tmp_path / "calls.jsonl")]
    spec = {"command": command, "response_format": "claude-json", "assume_call_usd": 0.5}
    (tmp_path / "runners.json").write_text(json.dumps({"fake": spec}))
    return tmp_path


def _run(work: Path, output: str, *extra: str) -> int:
    argv = [
        "run",
        "--runner",
        "fake",
        "--runner-config",
        str(work / "runners.json"),
        "--condition",
        "baseline",
    ]
    argv += ["--cases", str(work / "cases.jsonl"), "--output", str(work / output), "--backoff", "0"]
    return main([*argv, "--cache", str(work / "cache"), "--budget-usd", "10", *extra])


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _calls(work: Path) -> int:
    return len((work / "calls.jsonl").read_text().splitlines())


@pytest.mark.long
def test_cases_sharing_a_prompt_get_an_answer_each(work: Path) -> None:
    """3 cases x 3 trials, one prompt: 9 calls and 9 distinct answers (before: 3 calls, each
    answer copied into 3 cases, which narrows a paired interval that assumes independent cases)."""
    assert _run(work, "a.jsonl") == exitcodes.OK
    rows = _rows(work / "a.jsonl")
    assert len(rows) == 9 and len({row["response"] for row in rows}) == 9
    assert _calls(work) == 9 and not any(row.get("cached") for row in rows)
    assert _run(work, "b.jsonl") == exitcodes.OK  # and each is served back to its own case
    again = {(r["case_id"], r["trial"]): r["response"] for r in _rows(work / "b.jsonl")}
    assert again == {(r["case_id"], r["trial"]): r["response"] for r in rows} and _calls(work) == 9


def test_the_key_holds_the_case() -> None:
    assert caching.key(STUB, "Q", 1, case_id="a") != caching.key(STUB, "Q", 1, case_id="b")


def _poison(work: Path, change: dict[str, Any]) -> None:
    for entry in sorted((work / "cache").rglob("*.json")):
        data = json.loads(entry.read_text())
        entry.write_text(json.dumps({**data, **change}))


@pytest.mark.long
@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"cost_usd": math.nan}, id="NaN"),
        pytest.param({"cost_usd": math.inf}, id="Infinity"),
        pytest.param({"cost_usd": -50}, id="negative"),
        pytest.param({"response": "an edited answer"}, id="an edited response"),
        pytest.param({"elapsed_s": -1}, id="a negative time"),
    ],
)
def test_a_poisoned_entry_is_never_served_and_the_output_stays_resumable(
    work: Path, change: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """Every entry poisoned: each is a miss (9 more calls), warned of, the rows hold the new
    answers, and the output resumes (before: NaN was written as a bare token into the output,
    and the next resume refused it, exit 4)."""
    assert _run(work, "a.jsonl", "--trials", "1") == exitcodes.OK
    _poison(work, change)
    capsys.readouterr()
    assert _run(work, "b.jsonl", "--trials", "1") == exitcodes.OK
    assert _calls(work) == 6
    rows = _rows(work / "b.jsonl")
    assert not any(row.get("cached") for row in rows)
    assert all(row["response"] != "an edited answer" and row["cost_usd"] == 0.5 for row in rows)
    assert "Warning: 3 cache entries not served: their content does not match" in capsys.readouterr().err
    assert _run(work, "b.jsonl", "--trials", "1") == exitcodes.OK  # resumes: nothing left to run


@pytest.mark.long
def test_stats_counts_poisoned_entries(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """3 entries of $0.50; one's cost made NaN: 2 entries counted at $1.0000, 1 damaged."""
    assert _run(work, "a.jsonl", "--trials", "1") == exitcodes.OK
    entry = sorted((work / "cache").rglob("*.json"))[0]
    entry.write_text(json.dumps({**json.loads(entry.read_text()), "cost_usd": math.nan}))
    capsys.readouterr()
    assert main(["cache", "stats", "--cache", str(work / "cache")]) == exitcodes.OK
    out = capsys.readouterr().out
    assert "They cost $1.0000 when they were made." in out
    assert "1 damaged entry (its content does not match its digest; never served;" in out


def test_stats_on_a_huge_sparse_entry_does_not_read_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 5 GB sparse file at an entry's place (before: MemoryError, exit 70): refused unread by
    the bounded reader and counted damaged; the good entry beside it is counted."""
    cache = caching.Cache.open(tmp_path / "cache")
    good = caching.key(STUB, "Q", 1, case_id="a")
    cache.put(good, caching.Hit("answer", None, 0.25, 1.0))
    huge = cache.path(caching.key(STUB, "Q", 1, case_id="b"))
    huge.parent.mkdir(exist_ok=True)
    with huge.open("wb") as stream:
        stream.truncate(5 * 1024**3)
    assert main(["cache", "stats", "--cache", str(tmp_path / "cache")]) == exitcodes.OK
    out = capsys.readouterr().out
    assert "They cost $0.2500 when they were made." in out and "1 damaged entry" in out
