"""The one place that maps outcomes to exit codes and prints errors."""

from __future__ import annotations

import sys
from collections.abc import Callable

from .errors import CatalogInvalid, InputInvalid, OutputError, RunnerFailed, SuiteBroken, UsageError
from .importing.model import Refusal, RefusalCode

OK = 0
FAILED = 1  # a check ran and found problems (validate)
USAGE = 2
OUTPUT = 3
INPUT = 4  # a responses file or catalog that breaks its rules
SUITE = 5  # a check module that does not import
RUNNER = 6  # a model CLI failed after its retries
BUDGET = 7  # the run stopped because the budget was spent; rerun with more to finish
GATE = 1  # score: the release gate failed
REFUSAL = {  # one code per refusal, so scripts can tell them apart
    RefusalCode.FILE_UNREADABLE: 10,
    RefusalCode.DIRECTORY_UNREADABLE: 11,
    RefusalCode.NOT_JSON: 12,
    RefusalCode.NOT_YAML: 13,
    RefusalCode.NOT_EVALS_JSON: 14,
    RefusalCode.NOT_YAML_CASE: 15,
    RefusalCode.NOT_EVALFLOW: 16,
    RefusalCode.FILE_EMPTY: 17,
    RefusalCode.DIRECTORY_EMPTY: 18,
    RefusalCode.DIALECT_INVALID: 19,
}


def _err(line: str) -> None:
    print(line, file=sys.stderr)


def guarded(action: Callable[[], int]) -> int:
    """Run a command body; a user's mistake becomes a message and a code, never a traceback."""
    try:
        return action()
    except Refusal as refusal:
        _err(f"adhd-evals: refused ({refusal.code.value}): {refusal.message}")
        if refusal.hint:
            _err(f"hint: {refusal.hint}")
        _err("Nothing was written.")
        return REFUSAL[refusal.code]
    except UsageError as exc:
        _err(f"adhd-evals: {exc}")
        return USAGE
    except OutputError as exc:
        _err(f"adhd-evals: {exc}")
        _err("Nothing was written.")
        return OUTPUT
    except InputInvalid as exc:
        for problem in exc.problems:
            _err(problem)
        return INPUT
    except RunnerFailed as exc:
        _err(f"adhd-evals: {exc}")
        _err("Rows already written are kept; rerun the same command to resume.")
        return RUNNER
    except SuiteBroken as exc:
        _err(f"adhd-evals: the check module does not import: {exc}")
        return SUITE
    except CatalogInvalid as exc:
        for problem in exc.problems:
            _err(problem)
        return FAILED
