"""Run a check module against model responses: every check gets a status.

pass      the check returned True
fail      it returned False
unwritten it returned False after calling unwritten(...): nobody wrote it yet
error     it raised, or returned something other than a bool (recorded; the
          rest still run)
orphan    a kept check whose case or criterion is no longer in the catalog (a
          person's check the import kept when its source changed): not run, never
          a pass, counted by score --checks as unwritten is
"""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled into
# ForwardRefs as it is made (a process's first compile is about 1.3 ms of start-up); names type
# checkers alone import are quoted where a function names them (docs/startup.md).
import contextlib
import importlib.util
import marshal
import os
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import CodeType, ModuleType
from typing import TYPE_CHECKING, NamedTuple

from ... import jsonl
from ...catalog import load_valid
from ...errors import InputInvalid, SuiteBroken, UsageError
from ...files import check_readable, read_limited
from ...output import torn
from ...schema import DEFAULT_MODULE
from ...text import plural, table
from ..rows import STATUSES, CheckStatus, ResponseRow, ResultRow
from ..rows import read_responses as read_responses  # `check`'s input, read as its shape

if TYPE_CHECKING:
    from ..rows import CheckSummary

Registry = dict[
    str, list[tuple[str, Callable[[str], object]]]
]  # a check returns anything; run_one wants a bool


# NamedTuples and a plain class, not dataclasses: dataclasses imports inspect (and ast, dis,
# tokenize), about 8 ms of check's and blind's start-up of about 70.
class Suite(NamedTuple):
    registry: Registry
    unwritten_calls: list[int]  # a one-item counter the patched unwritten() bumps
    namespace: dict[str, object] | None = None  # the module's globals: its TRACE is set per row

    def see(self, row: ResponseRow) -> None:
        """Give the module's trace checks this row's trace (None: its runner records none)."""
        if self.namespace is not None and "TRACE" in self.namespace:
            self.namespace["TRACE"] = row.get("trace")


class CheckResult(NamedTuple):
    case_id: str
    trial: int
    condition: str
    runner: str
    criterion: str
    check: str
    status: CheckStatus
    error: str | None = None

    def row(self) -> ResultRow:
        row: ResultRow = {
            "case_id": self.case_id,
            "trial": self.trial,
            "condition": self.condition,
            "runner": self.runner,
            "criterion": self.criterion,
            "check": self.check,
            "status": self.status,
        }
        if self.error is not None:
            row["error"] = self.error
        return row


class CheckRun:
    def __init__(self, *, results: list[CheckResult] | None = None) -> None:
        self.results: list[CheckResult] = [] if results is None else results
        self.rows_without_checks: Counter[str] = Counter()  # case id -> response rows
        self.rows_outside_catalog: Counter[str] = Counter()
        self.catalog_cases_without_checks: list[str] = []
        self.fully_passing: Counter[str] = Counter()  # condition -> rows
        self.rows_checked: Counter[str] = Counter()

    def per_condition(self) -> dict[str, dict[str, int]]:
        table: dict[str, dict[str, int]] = {}
        for result in self.results:
            counts = table.setdefault(result.condition, dict.fromkeys(STATUSES, 0))
            counts[result.status] += 1
        for condition, counts in table.items():
            counts["rows"] = self.rows_checked[condition]
            counts["rows_fully_passing"] = self.fully_passing[condition]
        return dict(sorted(table.items()))

    @property
    def clean(self) -> bool:
        problems = self.rows_without_checks or self.rows_outside_catalog or self.catalog_cases_without_checks
        return not problems and all(r.status == "pass" for r in self.results) and bool(self.results)


def load_suite(path: Path) -> Suite:
    """Import the check module by path; a module that will not import is named by line."""
    if not path.exists():
        raise UsageError(f"{path}: no such check module")
    try:
        check_readable(path)
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    spec = importlib.util.spec_from_file_location("adhd_evals_suite", path)
    if spec is None or spec.loader is None:
        raise SuiteBroken(f"{path}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    try:
        exec(compiled(path), module.__dict__)
    except SyntaxError as exc:
        raise SuiteBroken(f"{path}:{exc.lineno}:{exc.offset or 0}: syntax error: {exc.msg}") from exc
    except Exception as exc:
        raise SuiteBroken(f"{_where(exc, path)}: {type(exc).__name__} while importing: {exc}") from exc
    return Suite(_registry(module, path), _track_unwritten(module), module.__dict__)


def cache_dir() -> Path | None:
    """Where compiled check modules are kept: the user's cache, as pre-commit keeps its own
    (so a read-only checkout or PYTHONDONTWRITEBYTECODE does not cost a compile per run); None
    where no home folder can be found (then every run compiles)."""
    override = os.environ.get("ADHD_EVALS_CACHE")
    if override:
        return Path(override)
    from ..calling.home import cache_home

    home = cache_home()
    return None if home is None else home / "compiled"


def compiled(path: Path) -> CodeType:
    """The module's code, from the cache when its bytes (and this Python) were compiled before."""
    import hashlib  # here, not at the top: `blind` reads its responses through this module

    source = read_limited(path)
    folder = cache_dir()
    if folder is None:
        return compile(source, str(path), "exec", dont_inherit=True)
    key = hashlib.sha256(importlib.util.MAGIC_NUMBER + str(path.resolve()).encode() + b"\0" + source)
    cached = folder / f"{key.hexdigest()}.code"
    try:
        code = marshal.loads(cached.read_bytes())
        if isinstance(code, CodeType):
            return code
    except (OSError, ValueError, EOFError, TypeError):
        pass  # not cached yet, or a damaged entry: compile again
    code = compile(source, str(path), "exec", dont_inherit=True)
    with contextlib.suppress(OSError):  # a cache that cannot be written only costs speed
        cached.parent.mkdir(parents=True, exist_ok=True)
        temp = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
        temp.write_bytes(marshal.dumps(code))
        os.replace(temp, cached)
    return code


def _where(exc: BaseException, path: Path) -> str:
    import traceback  # a broken module's line only

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
    return f"{path}:{frames[-1].lineno}" if frames else str(path)


def _registry(module: ModuleType, path: Path) -> Registry:
    registry = getattr(module, "CHECKS", None)
    if not isinstance(registry, dict):
        raise SuiteBroken(f"{path}: defines no CHECKS registry (is it a module adhd-evals generated?)")
    return registry


def _track_unwritten(module: ModuleType) -> list[int]:
    """Count calls to the module's unwritten(), so a False from one reads as unwritten."""
    calls = [0]
    original = getattr(module, "unwritten", None)

    def unwritten(*args: object, **kwargs: object) -> bool:
        calls[0] += 1
        return bool(original(*args, **kwargs)) if callable(original) else False

    module.unwritten = unwritten  # type: ignore[attr-defined]
    return calls


DEFAULT_SUITE = Path(DEFAULT_MODULE)  # defined once, in the core


def default_suite() -> Path:
    """evals/checks.py, refused when it resolves outside the current folder: `check` runs
    the module's code, and code from elsewhere must be named on purpose (--suite)."""
    here = Path.cwd().resolve()
    real = DEFAULT_SUITE.resolve()
    if DEFAULT_SUITE.exists() and here not in real.parents:
        raise UsageError(
            f"{DEFAULT_SUITE} resolves to {real}, outside this project ({here}); check runs a check "
            f"module's Python code, so name it on purpose: --suite {real}"
        )
    return DEFAULT_SUITE


def refuse_torn_pair(cases: Path, suite: Path) -> None:
    """A catalog and module written by one import must not be half old, half new."""
    if cases.parent == suite.parent and (problem := torn(cases.parent)):
        raise InputInvalid([f"adhd-evals: {problem}"])


def catalog_ids(path: Path) -> list[str]:
    return [row["id"] for row in load_valid(path)]


def catalog_criteria(path: Path) -> dict[str, list[str]]:
    """Each catalog case's criteria, by id, in file order."""
    return {row["id"]: list(row["criteria"]) for row in load_valid(path)}


DEFAULT_CHECK_TIMEOUT = 5.0  # seconds: a check is a few string tests; a catastrophic regex is not


class CheckTimedOut(BaseException):
    """Raised into a check that overran its time; a BaseException, so that a check's own
    `except Exception` cannot swallow it and run on."""


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Interrupt the block after `seconds` with CheckTimedOut. A real timer signal: Python's
    regex engine and loops check for signals, so a runaway pattern from a case file stops.
    Off the main thread (where no signal can be set) the block runs unbounded."""
    import signal  # here, not at the top: `blind` reads its responses through this module
    import threading

    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(signum: int, frame: object) -> None:
        raise CheckTimedOut

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_one(
    suite: Suite, function: Callable[[str], object], answer: str, timeout: float = DEFAULT_CHECK_TIMEOUT
) -> tuple[CheckStatus, str | None]:
    suite.unwritten_calls[0] = 0
    try:
        with _time_limit(timeout):
            outcome = function(answer)
    except CheckTimedOut:
        return "error", f"timed out after {timeout:g} s (--check-timeout)"
    except (Exception, SystemExit) as exc:
        return "error", f"{type(exc).__name__}: {exc}"
    if not isinstance(outcome, bool):
        return "error", f"returned {outcome!r}, not True or False"
    if outcome:
        return "pass", None
    return ("unwritten" if suite.unwritten_calls[0] else "fail"), None


def run_checks(
    responses: Sequence[ResponseRow],
    suite: Suite,
    catalog: list[str],
    criteria: dict[str, list[str]] | None = None,
    *,
    timeout: float = DEFAULT_CHECK_TIMEOUT,
) -> CheckRun:
    """Every response through its case's checks; `criteria` (case id -> the catalog's criteria)
    tells a check whose criterion left the catalog, as a case id outside `catalog` does."""
    run = CheckRun()
    known = set(catalog)
    current = {case_id: set(texts) for case_id, texts in (criteria or {}).items()}
    run.catalog_cases_without_checks = [case_id for case_id in catalog if case_id not in suite.registry]
    for row in responses:
        case_id = row["case_id"]
        if case_id not in known:
            run.rows_outside_catalog[case_id] += 1
        checks = suite.registry.get(case_id)
        if not checks:
            run.rows_without_checks[case_id] += 1
            continue
        statuses: list[CheckStatus] = []
        suite.see(row)
        for criterion, function in checks:
            status: CheckStatus
            if case_id not in known or (criteria is not None and criterion not in current.get(case_id, ())):
                status, error = "orphan", None  # its case or criterion left the catalog: not run
            else:
                status, error = run_one(suite, function, row["response"], timeout)
            statuses.append(status)
            run.results.append(
                CheckResult(
                    case_id,
                    row["trial"],
                    row["condition"],
                    row["runner"],
                    criterion,
                    getattr(function, "__name__", "?"),
                    status,
                    error,
                )
            )
        run.rows_checked[row["condition"]] += 1
        run.fully_passing[row["condition"]] += all(s == "pass" for s in statuses)
    return run


def results_text(run: CheckRun) -> str:
    return jsonl.text(r.row() for r in run.results)


def summary_json(run: CheckRun) -> "CheckSummary":
    return {
        "conditions": run.per_condition(),
        "rows_without_checks": dict(run.rows_without_checks),
        "rows_outside_catalog": dict(run.rows_outside_catalog),
        "catalog_cases_without_checks": run.catalog_cases_without_checks,
        "passed": run.clean,
    }


def summary_table(run: CheckRun) -> list[str]:
    header = ("condition", "rows", "pass", "fail", "unwritten", "error", "orphan", "rows fully passing")
    body = [
        (
            name,
            str(c["rows"]),
            str(c["pass"]),
            str(c["fail"]),
            str(c["unwritten"]),
            str(c["error"]),
            str(c["orphan"]),
            f"{c['rows_fully_passing']} of {c['rows']}",
        )
        for name, c in run.per_condition().items()
    ]
    lines = table([header, *body])
    lines += _gaps(run)
    return lines


def _gaps(run: CheckRun) -> list[str]:
    lines = []
    for case_id, count in sorted(run.rows_without_checks.items()):
        lines.append(
            f"No checks in the module for case {case_id} ({plural(count, 'response row')} not checked)."
        )
    for case_id, count in sorted(run.rows_outside_catalog.items()):
        lines.append(f"Case {case_id} is not in the catalog ({plural(count, 'response row')}).")
    if run.catalog_cases_without_checks:
        lines.append(
            "Catalog cases with no checks in the module: " + ", ".join(run.catalog_cases_without_checks) + "."
        )
    orphans = sorted({(r.case_id, r.criterion) for r in run.results if r.status == "orphan"})
    if orphans:
        lines.append(
            f"{len(orphans)} kept checks have no case or criterion in the catalog any more (orphan, never "
            "a pass): "
            + "; ".join(f"{case_id}: {criterion}" for case_id, criterion in orphans[:10])
            + ("; ..." if len(orphans) > 10 else "")
            + ". Delete them, or point them at a criterion."
        )
    if not run.results:
        lines.append("No check ran.")
    return lines


__all__ = [
    "catalog_criteria",
    "catalog_ids",
    "load_suite",
    "read_responses",
    "results_text",
    "run_checks",
    "summary_json",
    "summary_table",
]
