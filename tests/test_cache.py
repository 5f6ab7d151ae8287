"""The response cache, counted with a fake CLI: what hits, what misses, what is never served."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.calling import cache as caching
from adhd_evals.runs.calling.config import Runner
from helpers import Case

FAKE = str(Path(__file__).parent / "fakes" / "fake_cli.py")
CASES: list[Case] = [
    {"id": f"case-{n}", "category": "c", "prompt": f"Question {n}", "risk": "low", "criteria": ["x"]}
    for n in range(1, 3)
]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    (tmp_path / "skill.md").write_text("Be terse.\n")
    command = [
        sys.executable,
        FAKE,
        "--format",
        "claude-json",
        "--cost",
        "0.5",
        "--numbered",
        "--calls",
        str(tmp_path / "calls.jsonl"),
    ]
    (tmp_path / "runners.json").write_text(
        json.dumps({"fake": {"command": command, "response_format": "claude-json", "assume_call_usd": 0.5}})
    )
    return tmp_path


def _argv(work: Path, output: str, condition: str = "baseline", *extra: str) -> list[str]:
    return [
        "run",
        "--runner",
        "fake",
        "--runner-config",
        str(work / "runners.json"),
        "--condition",
        condition,
        "--condition-skill",
        str(work / "skill.md"),
        "--cases",
        str(work / "cases.jsonl"),
        "--output",
        str(work / output),
        "--backoff",
        "0",
        "--cache",
        str(work / "cache"),
        *extra,
    ]


def _calls(work: Path) -> list[str]:
    path = work / "calls.jsonl"
    return [json.loads(line)["prompt"] for line in path.open()] if path.exists() else []


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.open()]


@pytest.mark.long
def test_each_trial_keeps_its_own_answer(work: Path) -> None:
    """3 trials of 2 cases: 6 calls, answers numbered 1-6; a second run into a new file makes no
    call and each (case, trial) gets the answer its own call gave, never trial 1's thrice."""
    assert main(_argv(work, "a.jsonl", "baseline", "--trials", "3")) == exitcodes.OK
    first = {(r["case_id"], r["trial"]): r["response"] for r in _rows(work / "a.jsonl")}
    assert len(_calls(work)) == 6 and len(set(first.values())) == 6
    assert main(_argv(work, "b.jsonl", "baseline", "--trials", "3")) == exitcodes.OK
    again = _rows(work / "b.jsonl")
    assert len(_calls(work)) == 6
    assert {(r["case_id"], r["trial"]): r["response"] for r in again} == first
    assert all(r["cached"] is True for r in again)


@pytest.mark.long
def test_a_changed_skill_misses_and_the_unchanged_baseline_hits(work: Path) -> None:
    """Baseline and candidate, 2 cases x 1 trial: 4 calls. SKILL.md changes; a rerun of both
    makes only the 2 candidate calls (the baseline prompt did not change)."""
    for condition in ("baseline", "candidate"):
        assert main(_argv(work, "a.jsonl", condition, "--trials", "1")) == exitcodes.OK
    assert len(_calls(work)) == 4
    (work / "skill.md").write_text("Be terser.\n")
    for condition in ("baseline", "candidate"):
        assert main(_argv(work, "b.jsonl", condition, "--trials", "1")) == exitcodes.OK
    calls = _calls(work)
    assert len(calls) == 6 and all("Be terser." in prompt for prompt in calls[4:])
    rows = _rows(work / "b.jsonl")
    assert [r.get("cached", False) for r in rows] == [True, True, False, False]


@pytest.mark.long
def test_refresh_calls_again_and_keeps_the_new_answers(work: Path) -> None:
    assert main(_argv(work, "a.jsonl", "baseline", "--trials", "1")) == exitcodes.OK
    assert main(_argv(work, "b.jsonl", "baseline", "--trials", "1", "--refresh")) == exitcodes.OK
    assert len(_calls(work)) == 4
    refreshed = {r["response"] for r in _rows(work / "b.jsonl")}
    assert main(_argv(work, "c.jsonl", "baseline", "--trials", "1")) == exitcodes.OK
    assert len(_calls(work)) == 4 and {r["response"] for r in _rows(work / "c.jsonl")} == refreshed


@pytest.mark.long
def test_cached_rows_are_never_charged(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """4 rows at $0.50 paid once ($2.00). A rerun with --budget-usd 0.01, less than one call,
    writes all 4 from the cache: a hit reserves nothing. Each row keeps its $0.50 and the run
    reports $0 spent; resuming a file of cached rows counts none of them either."""
    assert main(_argv(work, "a.jsonl", "baseline", "--trials", "2")) == exitcodes.OK
    capsys.readouterr()
    assert main(_argv(work, "b.jsonl", "baseline", "--trials", "2", "--budget-usd", "0.01")) == exitcodes.OK
    rows = _rows(work / "b.jsonl")
    assert len(rows) == 4 and all(r["cost_usd"] == 0.5 and "elapsed_s" in r for r in rows)
    err = capsys.readouterr().err
    assert (
        "spent $0.0000 of $0.0100" in err
        and "4 answers from the cache" in err
        and "first cost $2.0000" in err
    )
    # a resumed run into b.jsonl with a third trial: the earlier cached rows are not its spend
    assert main(_argv(work, "b.jsonl", "baseline", "--trials", "3", "--budget-usd", "1.5")) == exitcodes.OK
    assert len(_rows(work / "b.jsonl")) == 6 and len(_calls(work)) == 6


@pytest.mark.long
def test_a_torn_or_foreign_entry_is_a_miss(work: Path) -> None:
    """An entry cut in half at its final name (a disk fault), and one naming another key, are
    never served: both calls are made again, and the rerun's entries replace them."""
    assert main(_argv(work, "a.jsonl", "baseline", "--trials", "1")) == exitcodes.OK
    entries = sorted((work / "cache").rglob("*.json"))
    assert len(entries) == 2
    data = entries[0].read_bytes()
    entries[0].write_bytes(data[: len(data) // 2])
    other = json.loads(entries[1].read_text())
    entries[1].write_text(json.dumps({**other, "key": "0" * 64}))
    assert main(_argv(work, "b.jsonl", "baseline", "--trials", "1")) == exitcodes.OK
    assert len(_calls(work)) == 4
    assert not any(r.get("cached") for r in _rows(work / "b.jsonl"))


@pytest.mark.long
def test_a_writer_killed_mid_entry_leaves_nothing_that_is_served(work: Path) -> None:
    """SIGKILL halfway through writing the first entry: the run dies; the half-written file
    holds its temporary name, so the next run misses, calls, and completes."""
    env = {**os.environ, "ADHD_EVALS_TEST_KILL_AT": "cache-entry"}
    killed = subprocess.run(
        [sys.executable, "-m", "adhd_evals", *_argv(work, "a.jsonl", "baseline", "--trials", "1")],
        env=env,
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -9
    left = [p for p in (work / "cache").rglob("*") if p.is_file()]
    assert len(left) == 1 and caching.TEMP_MARK in left[0].name  # the torn half, never at an entry's name
    assert main(_argv(work, "b.jsonl", "baseline", "--trials", "1")) == exitcodes.OK
    assert len(_calls(work)) == 3  # the killed run's one call, then both again
    assert not any(r.get("cached") for r in _rows(work / "b.jsonl"))
    assert caching.stats(work / "cache").temporary == 1


@pytest.mark.long
def test_two_runs_sharing_a_cache_at_once_are_both_correct(work: Path) -> None:
    """Two processes, --jobs 3 each, one cache folder, 2 cases x 4 trials: each output holds its
    8 rows once, every entry is whole, and every row's answer is its entry's."""
    config = json.loads((work / "runners.json").read_text())
    config["fake"]["command"] = [c for c in config["fake"]["command"] if c != "--numbered"] + [
        "--sleep",
        "0.05",
    ]
    (work / "runners.json").write_text(json.dumps(config))
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "adhd_evals",
                *_argv(work, f"{name}.jsonl", "baseline", "--trials", "4", "--jobs", "3"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for name in ("a", "b")
    ]
    for proc in procs:
        assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    cache = caching.Cache(work / "cache")
    runner = Runner("fake", tuple(config["fake"]["command"]), "claude-json")
    for name in ("a", "b"):
        rows = _rows(work / f"{name}.jsonl")
        assert sorted((r["case_id"], r["trial"]) for r in rows) == [
            (c["id"], t) for c in CASES for t in range(1, 5)
        ]
        for row in rows:
            prompt = next(c["prompt"] for c in CASES if c["id"] == row["case_id"])
            hit = cache.get(caching.key(runner, prompt, row["trial"], case_id=row["case_id"]))
            assert hit is not None and hit.response == row["response"]
    assert len(_calls(work)) <= 16  # at most each run calls every row once; hits make it fewer


def test_the_key_covers_what_decides_an_answer() -> None:
    runner = Runner("a", ("cli", "--json"), "claude-json")
    base = caching.key(runner, "prompt", 1, case_id="c")
    assert base == caching.key(
        Runner("renamed", ("cli", "--json"), "claude-json"), "prompt", 1, case_id="c"
    )  # a name decides nothing
    changed = [
        caching.key(runner, "prompt", 2, case_id="c"),
        caching.key(runner, "prompt ", 1, case_id="c"),
        caching.key(Runner("a", ("cli", "--json", "-m", "x"), "claude-json"), "prompt", 1, case_id="c"),
        caching.key(Runner("a", ("cli", "--json"), "text"), "prompt", 1, case_id="c"),
        caching.key(
            Runner("a", ("cli", "--json"), "claude-json", prompt_via="stdin"), "prompt", 1, case_id="c"
        ),
    ]
    assert len({base, *changed}) == 6


def test_cache_without_a_folder_uses_xdg_cache_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    argv = [
        "run",
        "--runner",
        "stub",
        "--condition",
        "baseline",
        "--cases",
        str(tmp_path / "cases.jsonl"),
        "--trials",
        "1",
        "--output",
    ]
    assert main([*argv, str(tmp_path / "a.jsonl"), "--cache"]) == exitcodes.OK
    assert main([*argv, str(tmp_path / "b.jsonl"), "--cache", "--jobs", "2"]) == exitcodes.OK
    assert len(list((tmp_path / "xdg" / "adhd-evals" / "responses").rglob("*.json"))) == 2
    assert "2 answers from the cache" in capsys.readouterr().err


def test_refresh_without_a_cache_is_a_usage_error(work: Path) -> None:
    argv = [a for a in _argv(work, "a.jsonl") if a not in ("--cache", str(work / "cache"))]
    assert main([*argv, "--refresh"]) == exitcodes.USAGE


def test_an_unusable_cache_folder_is_refused(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "cache").write_text("a file, not a folder")
    assert main(_argv(work, "a.jsonl")) == exitcodes.CACHE_UNUSABLE
    assert "cannot be used" in capsys.readouterr().err


def test_stats_and_prune(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """2 entries at $0.50: stats says 2 entries and $1.0000. One is aged 10 days: prune
    --older-than 7d removes it alone; a stale temporary file (2 h old) goes too."""
    assert main(_argv(work, "a.jsonl", "baseline", "--trials", "1")) == exitcodes.OK
    capsys.readouterr()
    assert main(["cache", "stats", "--cache", str(work / "cache")]) == exitcodes.OK
    out = capsys.readouterr().out
    assert "2 entries" in out and "cost $1.0000" in out
    old, kept = sorted((work / "cache").rglob("*.json"))
    ten_days = time.time() - 10 * 86400
    os.utime(old, (ten_days, ten_days))
    stale = old.with_name(f".{old.name}{caching.TEMP_MARK}1-ab")
    stale.write_text("{")
    os.utime(stale, (time.time() - 7200,) * 2)
    assert main(["cache", "prune", "--cache", str(work / "cache"), "--older-than", "7d"]) == exitcodes.OK
    assert "Removed 1 entry" in capsys.readouterr().out
    assert not old.exists() and not stale.exists() and kept.exists()


@pytest.mark.parametrize("age", ["7", "d", "7y", "-1d", ""])
def test_an_age_that_is_not_one_is_refused(age: str) -> None:
    assert main(["cache", "prune", "--older-than", age]) == exitcodes.USAGE


STUB = Runner(name="stub", command=(), response_format="claude-json", budget_flag=None, prompt_via="argv")


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"response": 7}, id="a response that is not text"),
        pytest.param({"usage": None}, id="no usage"),
        pytest.param({"cost_usd": "0.5"}, id="a cost as text"),
        pytest.param({"cost_usd": True}, id="a cost of true"),
        pytest.param({"elapsed_s": None}, id="no elapsed time"),
        pytest.param({"elapsed_s": False}, id="an elapsed time of false"),
    ],
)
def test_an_entry_of_this_key_with_a_field_of_the_wrong_type_is_a_miss(
    tmp_path: Path, change: dict[str, object]
) -> None:
    """An entry that names its own key but holds what no run writes (a hand edit, another
    tool): served, it would put a non-row in the responses; so it is a miss, never counted."""
    cache = caching.Cache.open(tmp_path / "cache")
    digest = caching.key(STUB, "Q", 1, case_id="c")
    cache.put(digest, caching.Hit("answer", {"input_tokens": 1}, 0.5, 1.0))
    entry = json.loads(cache.path(digest).read_text())
    entry.update(change)
    if change == {"usage": None}:  # absent, not null: null is a usage a CLI may report
        del entry["usage"]
    cache.path(digest).write_text(json.dumps(entry))
    assert cache.get(digest) is None and cache.hits == 0


def test_an_entry_without_a_cost_is_served_and_counted_unmetered(tmp_path: Path) -> None:
    """A runner that reports no cost stores `cost_usd: null`: the hit is served (it is a whole
    answer), costs nothing now, and stats counts it among entries that reported no cost."""
    cache = caching.Cache.open(tmp_path / "cache")
    digest = caching.key(STUB, "Q", 1, case_id="c")
    cache.put(digest, caching.Hit("answer", None, None, 2.0))
    assert cache.get(digest) == caching.Hit("answer", None, None, 2.0)
    assert cache.hits == 1 and cache.hit_cost == 0.0
    found = caching.stats(tmp_path / "cache")
    assert (found.entries, found.unmetered, found.recorded_cost_usd) == (1, 1, 0.0)


def test_stats_of_a_cache_not_made_yet_is_empty_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No folder yet (no run has used it): 0 entries, $0, no dates; not an error."""
    assert main(["cache", "stats", "--cache", str(tmp_path / "none")]) == exitcodes.OK
    assert capsys.readouterr().out.splitlines() == [
        f"Cache {tmp_path / 'none'}: 0 entries, 0 bytes.",
        "They cost $0.0000 when they were made.",
        "Oldest -, newest -.",
    ]


def test_stats_counts_unfinished_entries_and_passes_over_stray_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One entry (cost 0.25), a killed writer's temporary beside it, and a stray file in the
    layout folder itself (not a bucket: not read): 1 entry, $0.2500, 1 unfinished entry."""
    cache = caching.Cache.open(tmp_path / "cache")
    digest = caching.key(STUB, "Q", 1, case_id="c")
    cache.put(digest, caching.Hit("answer", None, 0.25, 1.0))
    entry = cache.path(digest)
    entry.with_name(f".{entry.name}{caching.TEMP_MARK}1-ab").write_text("{")
    (tmp_path / "cache" / caching.LAYOUT / "notes.txt").write_text("mine")
    assert main(["cache", "stats", "--cache", str(tmp_path / "cache")]) == exitcodes.OK
    out = capsys.readouterr().out
    assert f"Cache {tmp_path / 'cache'}: 1 entry," in out
    assert "They cost $0.2500 when they were made." in out
    assert "1 unfinished entry (a writer was killed; never served;" in out
