"""`adhd-evals run`: call a model CLI for each (case, trial), concurrently, resumably."""

from __future__ import annotations

import hashlib
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from ..catalog import load_valid
from ..errors import RunnerFailed, UsageError
from .config import STUB, Runner
from .prompts import condition_prompt, skill_text
from .responses import ResponseUnreadable, parse
from .rubric import CONDITIONS
from .store import Store


@dataclass(frozen=True)
class RunRequest:
    runner: Runner
    condition: str
    output: Path
    cases: Path = Path("evals/cases.jsonl")
    skill: Path | None = None
    case_ids: tuple[str, ...] = ()
    trials: int = 3
    retries: int = 2
    budget_usd: float = 25.0
    allow_unmetered: bool = False
    jobs: int = 1
    timeout: float | None = None
    backoff: float = 1.0


@dataclass
class RunSummary:
    ran: int = 0
    skipped: int = 0
    failed_attempts: int = 0
    spent: float = 0.0
    stopped_for_budget: bool = False
    repaired_bytes: int = 0


def load_cases(path: Path) -> list[dict[str, Any]]:
    return load_valid(path)


def check_request(request: RunRequest) -> None:
    if request.condition not in CONDITIONS:
        raise UsageError(f"--condition must be one of {', '.join(CONDITIONS)}")
    if not request.budget_usd > 0:
        raise UsageError("--budget-usd must be greater than 0")
    if request.trials < 1 or request.jobs < 1 or request.retries < 0:
        raise UsageError("--trials and --jobs must be at least 1, --retries at least 0")
    if not request.runner.metered and not request.allow_unmetered:
        raise UsageError(
            f"the {request.runner.response_format!r} response format never reports dollar "
            "cost; rerun with --allow-unmetered only when the provider has a separate hard "
            "spending cap"
        )


class Budget:
    """Spend shared by the workers; no call starts once the remaining budget is spent."""

    def __init__(self, limit: float, spent: float) -> None:
        self.limit, self.spent = limit, spent
        self._lock = threading.Lock()

    def remaining(self) -> float:
        with self._lock:
            return self.limit - self.spent

    def add(self, cost: float) -> None:
        with self._lock:
            self.spent += cost


class Progress:
    """A bar on a terminal (cases done, failures, spend, rate); plain lines otherwise."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total, self.stream = total, stream
        self.tty = stream.isatty()
        self.done = self.failures = 0
        self.started = time.monotonic()
        self._lock = threading.Lock()

    def step(self, label: str, spent: float, *, failed_attempts: int = 0) -> None:
        with self._lock:
            self.done += 1
            self.failures += failed_attempts
            rate = self.done / max(time.monotonic() - self.started, 1e-9)
            if self.tty:
                filled = int(24 * self.done / max(self.total, 1))
                self.stream.write(
                    f"\r[{'#' * filled}{'.' * (24 - filled)}] {self.done}/{self.total} "
                    f"failures {self.failures}  ${spent:.4f}  {rate:.1f}/s "
                )
                if self.done == self.total:
                    self.stream.write("\n")
            else:
                self.stream.write(f"{label} ({self.done}/{self.total}, ${spent:.4f})\n")
            self.stream.flush()


def stub_answer(prompt: str) -> str:
    """Deterministic, network-free: the same prompt always gets the same answer."""
    digest = hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    # The digest differs per condition; no prompt text, so a blind sheet gives nothing away.
    return f"Stub answer {digest}: a deterministic stand-in for a model's reply."


def run(request: RunRequest, *, progress_stream: TextIO | None = None) -> RunSummary:
    check_request(request)
    cases = load_cases(request.cases)
    unknown = sorted(set(request.case_ids) - {case["id"] for case in cases})
    if unknown:
        raise UsageError(f"--case matched no evaluation case: {', '.join(unknown)}")
    instructions = skill_text(request.condition, request.skill)
    store = Store.open(request.output)
    summary = RunSummary(repaired_bytes=store.repaired_bytes)
    try:
        pending = []
        for trial in range(1, request.trials + 1):
            for case in cases:
                if request.case_ids and case["id"] not in request.case_ids:
                    continue
                if (case["id"], trial, request.condition, request.runner.name) in store.done:
                    summary.skipped += 1
                else:
                    pending.append((case, trial))
        budget = Budget(request.budget_usd, store.spent.get((request.condition, request.runner.name), 0.0))
        _run_all(
            request,
            pending,
            instructions,
            store,
            budget,
            summary,
            Progress(len(pending), progress_stream or sys.stderr),
        )
        summary.spent = budget.spent
    finally:
        store.close()
    return summary


def _run_all(
    request: RunRequest,
    pending: list[tuple[dict[str, Any], int]],
    instructions: str | None,
    store: Store,
    budget: Budget,
    summary: RunSummary,
    progress: Progress,
) -> None:
    stop = threading.Event()
    lock = threading.Lock()

    def work(case: dict[str, Any], trial: int) -> None:
        if stop.is_set():
            return
        remaining = budget.remaining()
        if remaining <= 0:
            with lock:
                summary.stopped_for_budget = True
            return
        prompt = condition_prompt(case["prompt"], instructions)
        row, failed = _one_call(request, case, trial, prompt, remaining)
        budget.add(row["cost_usd"] or 0.0)
        store.append(row)
        with lock:
            summary.ran += 1
            summary.failed_attempts += failed
        progress.step(
            f"{request.condition} trial {trial}: {case['id']}", budget.spent, failed_attempts=failed
        )

    with ThreadPoolExecutor(max_workers=request.jobs) as pool:
        futures = [pool.submit(work, case, trial) for case, trial in pending]
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        failure = next((f.exception() for f in done if f.exception() is not None), None)
        if failure is not None:
            stop.set()
            for future in futures:
                future.cancel()
            raise failure


def _one_call(
    request: RunRequest, case: dict[str, Any], trial: int, prompt: str, remaining: float
) -> tuple[dict[str, Any], int]:
    started = time.monotonic()
    cost: float | None
    if request.runner.name == STUB and not request.runner.command:
        text, usage, cost = stub_answer(prompt), {"input_tokens": len(prompt.split())}, 0.0
        failed = 0
    else:
        (text, usage, cost), failed = _call_with_retries(request, prompt, remaining)
    row = {
        "case_id": case["id"],
        "trial": trial,
        "condition": request.condition,
        "runner": request.runner.name,
        "response": text,
        "usage": usage,
        "cost_usd": cost,
        "elapsed_s": round(time.monotonic() - started, 3),
    }
    return row, failed


def _call_with_retries(
    request: RunRequest, prompt: str, remaining: float
) -> tuple[tuple[str, dict[str, Any], float | None], int]:
    runner = request.runner
    invocation = list(runner.command)
    if runner.budget_flag:
        invocation += [runner.budget_flag, f"{remaining:.4f}"]
    shown = shlex.join(invocation)  # the command without the prompt, for messages
    last = ""
    for attempt in range(request.retries + 1):
        if attempt:
            time.sleep(min(request.backoff * 2 ** (attempt - 1), 30.0))
        code, out, err = _call([*invocation, prompt], request.timeout)
        if code == 0:
            try:
                text, usage, cost = parse(out, runner.response_format)
            except ResponseUnreadable as exc:
                last = f"{exc}\n{_tail(out)}"
                continue
            if cost is None and not request.allow_unmetered:
                raise RunnerFailed(
                    f"runner {runner.name!r} ({shown}) did not report dollar cost; rerun with "
                    "--allow-unmetered only when the provider has a separate hard spending cap"
                )
            return (text, usage, cost), attempt
        last = (f"timed out after {request.timeout} s" if code is None else f"exit code {code}") + (
            f"; last output:\n{_tail(err or out)}" if (err or out).strip() else ""
        )
    raise RunnerFailed(
        f"runner {runner.name!r} failed after {request.retries + 1} attempts (command: {shown}): {last}"
    )


def _call(argv: list[str], timeout: float | None) -> tuple[int | None, str, str]:
    """One call in an empty scratch folder, so the CLI cannot adopt this checkout as context."""
    with tempfile.TemporaryDirectory(prefix="adhd-evals-run-") as cwd:
        try:
            done = subprocess.run(
                argv,
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            return None, out, ""
        except OSError as exc:
            return 127, "", f"cannot start {argv[0]}: {exc.strerror or exc}"
    return done.returncode, done.stdout, done.stderr


def _tail(text: str, lines: int = 12) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])
