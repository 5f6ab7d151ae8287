"""Issue 38 item 4: answers found in the cache are written before any call, on the driving
thread, a chunk of whole lines per write(2), in task order (calls.drive's `ready`)."""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from adhd_evals.runs.calling import calls
from adhd_evals.runs.calling.cache import Cache
from adhd_evals.runs.calling.config import BUILTIN_STUB, Runner
from adhd_evals.runs.calling.policy import only_writer
from adhd_evals.runs.calling.store import Store
from adhd_evals.runs.running.execute import RunRequest, run
from helpers import Case

RUNNER = Runner("fake", ("never-run",), "claude-json")  # no test here makes a call


@dataclass(frozen=True)
class Policy:
    runner: Runner
    jobs: int = 1
    retries: int = 0
    backoff: float = 0.0
    timeout: float | None = None
    max_output_bytes: int = 1 << 20
    budget_usd: float = 1.0
    allow_unmetered: bool = False
    max_calls: int | None = None
    assume_call_usd: float | None = 0.1


@contextlib.contextmanager
def _session(tmp_path: Path, stream: io.StringIO) -> Iterator[calls.Session]:
    output = tmp_path / "out.jsonl"
    with (
        only_writer(output),
        contextlib.closing(Store.open(output)) as store,
        calls.open_session(Policy(RUNNER), store, ("baseline", "fake"), stream) as session,
    ):
        yield session


def _row(task: int) -> dict[str, object]:
    return {"case_id": f"c{task}", "trial": 1, "condition": "baseline", "runner": "fake", "cost_usd": 0.0}


def _ids(path: Path) -> list[str]:
    return [json.loads(line)["case_id"] for line in path.read_text().splitlines()]


def _counting_writes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of rows in each write(2) the store makes."""
    writes: list[int] = []
    real = Store._write

    def write(self: Store, data: bytes) -> None:
        writes.append(data.count(b"\n"))
        real(self, data)

    monkeypatch.setattr(Store, "_write", write)
    return writes


def test_ready_rows_are_written_a_chunk_per_write_in_task_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five tasks, every one ready, chunks of 2: writes of 2, 2 and 1 rows (ceil(5/2) = 3),
    rows c1..c5 in task order, no work called, a progress line per row as a call's would be
    ("task N (N/5, $0.0000)": nothing was spent)."""
    monkeypatch.setattr(calls, "READY_CHUNK", 2)
    writes = _counting_writes(monkeypatch)
    worked: list[int] = []
    stream = io.StringIO()

    def work(task: int) -> calls.Done | None:
        worked.append(task)
        return calls.Done(_row(task), f"task {task}")

    def ready(task: int) -> calls.Done | None:
        return calls.Done(_row(task), f"task {task}")

    with _session(tmp_path, stream) as session:
        driven = calls.drive([1, 2, 3, 4, 5], work, session, ready=ready)
    assert writes == [2, 2, 1] and worked == []
    assert _ids(tmp_path / "out.jsonl") == ["c1", "c2", "c3", "c4", "c5"]
    assert (driven.written, driven.stopped_for_budget, driven.stopped_for_calls) == (5, False, False)
    assert stream.getvalue() == "".join(f"task {n} ({n}/5, $0.0000)\n" for n in range(1, 6))


def test_the_first_task_not_ready_and_all_after_it_go_to_the_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tasks 1, 2 ready (one full chunk of 2), task 3 not: the next chunk is empty and
    nothing more is asked of `ready`; the work runs 3 and 4 (one job, in order), a write
    each. Rows c1..c4 in task order, as one job always wrote them."""
    monkeypatch.setattr(calls, "READY_CHUNK", 2)
    writes = _counting_writes(monkeypatch)
    asked: list[int] = []
    worked: list[int] = []

    def work(task: int) -> calls.Done | None:
        worked.append(task)
        return calls.Done(_row(task), f"task {task}")

    def ready(task: int) -> calls.Done | None:
        asked.append(task)
        return calls.Done(_row(task), f"task {task}") if task < 3 else None

    with _session(tmp_path, io.StringIO()) as session:
        driven = calls.drive([1, 2, 3, 4], work, session, ready=ready)
    assert asked == [1, 2, 3] and worked == [3, 4] and writes == [2, 1, 1]
    assert _ids(tmp_path / "out.jsonl") == ["c1", "c2", "c3", "c4"] and driven.written == 4


def test_a_stop_while_ready_rows_are_served_writes_whole_chunks_and_starts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stop is set while task 2 (the end of the first chunk of 2) is answered: that chunk
    is written whole, no further chunk is served and no work runs: 2 of 4 rows, and the run
    is short for neither the budget nor the call cap (nothing was reserved, no cap)."""
    monkeypatch.setattr(calls, "READY_CHUNK", 2)
    worked: list[int] = []

    def work(task: int) -> calls.Done | None:
        worked.append(task)
        return calls.Done(_row(task), f"task {task}")

    with _session(tmp_path, io.StringIO()) as session:

        def ready(task: int) -> calls.Done | None:
            if task == 2:
                session.stop.set()
            return calls.Done(_row(task), f"task {task}")

        driven = calls.drive([1, 2, 3, 4], work, session, ready=ready)
    assert worked == [] and _ids(tmp_path / "out.jsonl") == ["c1", "c2"]
    assert (driven.written, driven.stopped_for_budget, driven.stopped_for_calls) == (2, False, False)


CASES: list[Case] = [
    {"id": f"case-{n}", "category": "c", "prompt": f"Question {n}", "risk": "low", "criteria": ["x"]}
    for n in range(1, 5)
]


def _request(tmp_path: Path, output: str) -> RunRequest:
    return RunRequest(
        runner=BUILTIN_STUB,
        condition="baseline",
        output=tmp_path / output,
        cases=tmp_path / "cases.jsonl",
        trials=1,
        cache=Cache.open(tmp_path / "cache"),
    )


def test_a_damaged_entry_after_cached_ones_is_counted_once_and_rows_keep_their_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four cases answered once by the stub into the cache; case-3's entry then edited (its
    response no longer matches its digest). The second run (one job) serves case-1 and case-2
    from the cache, finds case-3 not servable (looked up once: damaged 1, not 2), answers it
    with the stub, then serves case-4 from the cache: rows case-1..case-4 in order, `cached`
    on all but case-3, and case-3's response the stub's answer, as the first run wrote it."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    run(_request(tmp_path, "first.jsonl"), progress_stream=io.StringIO())
    first: list[dict[str, Any]] = [json.loads(line) for line in (tmp_path / "first.jsonl").open()]
    entries = sorted((tmp_path / "cache" / "v2").glob("*/*.json"))
    edited = [path for path in entries if '"Stub answer' in path.read_text()]
    assert len(edited) == 4
    target = next(path for path in edited if json.loads(path.read_text())["response"] == first[2]["response"])
    target.write_text(target.read_text().replace("Stub answer", "Stub ANSWER"))
    request = _request(tmp_path, "second.jsonl")
    summary = run(request, progress_stream=io.StringIO())
    second: list[dict[str, Any]] = [json.loads(line) for line in (tmp_path / "second.jsonl").open()]
    assert [row["case_id"] for row in second] == ["case-1", "case-2", "case-3", "case-4"]
    assert [row.get("cached") for row in second] == [True, True, None, True]
    assert [row["response"] for row in second] == [row["response"] for row in first]
    assert request.cache is not None and (request.cache.damaged, request.cache.hits) == (1, 3)
    assert summary.ran == 4


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_ready_rows_on_a_terminal_draw_the_bar_once_per_row(tmp_path: Path) -> None:
    """Two ready tasks on a terminal: the bar as `step` draws it, after each row (12 of 24
    marks at 1/2, all 24 and a newline at 2/2; nothing spent, no failures; the rate varies)."""
    stream = _Terminal()

    def ready(task: int) -> calls.Done | None:
        return calls.Done(_row(task), f"task {task}")

    with _session(tmp_path, stream) as session:
        calls.drive([1, 2], ready, session, ready=ready)
    rate = r"[0-9.]+/s "
    assert re.fullmatch(
        rf"\r\[{'#' * 12}{'.' * 12}\] 1/2 failures 0  \$0\.0000  {rate}"
        rf"\r\[{'#' * 24}\] 2/2 failures 0  \$0\.0000  {rate}\n",
        stream.getvalue(),
    )
