"""What a command asks of its calls, checked before anything is read: the money and seconds, the
counts and caps, and one writer per output file. `run` and `judge` check their requests here and
take the output's lock here before they know whether any call will start; the driver that makes
the calls (calls.py, with its process groups and threads) is imported only where one will.
"""

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from ... import files
from ...errors import Busy, OutputError, UsageError
from .budget import BudgetPolicy, finite, floor

DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024
MAX_OUTPUT_LIMIT = 1024 * 1024 * 1024  # what one call's output may be read into memory at most

# `run` checks its counts, --trials with them, in these words before check_limits runs (the
# words run_evals.py users know); a command without --trials (judge) hears only of its own.
COUNTS = "--trials and --jobs must be at least 1, --retries at least 0"
CALL_COUNTS = "--jobs must be at least 1, --retries at least 0"


class CallPolicy(BudgetPolicy, Protocol):
    """What the driver reads of a command's request: the fields a RunRequest and a
    JudgeRequest both have. Each command keeps its own request type."""

    @property
    def retries(self) -> int: ...
    @property
    def backoff(self) -> float: ...
    @property
    def timeout(self) -> float | None: ...
    @property
    def max_output_bytes(self) -> int: ...


def check_amounts(policy: CallPolicy) -> None:
    """The amounts a command's calls are given: money and seconds."""
    if not finite(policy.budget_usd, positive=True):
        raise UsageError("--budget-usd must be a number greater than 0")
    if not finite(policy.backoff, positive=False):
        raise UsageError("--backoff must be a number of seconds, 0 or more")
    if policy.timeout is not None and not finite(policy.timeout, positive=True):
        raise UsageError("--timeout must be a number of seconds greater than 0")


def check_limits(policy: CallPolicy) -> None:
    """The counts and caps of a command's calls, and whether its runner can be budgeted."""
    if policy.jobs < 1 or policy.retries < 0:
        raise UsageError(CALL_COUNTS)
    if policy.max_output_bytes < 1 or (policy.max_calls is not None and policy.max_calls < 1):
        raise UsageError("--max-output-bytes and --max-calls must be at least 1")
    if policy.max_output_bytes > MAX_OUTPUT_LIMIT:  # it is read into memory whole
        raise UsageError(f"--max-output-bytes must be at most {MAX_OUTPUT_LIMIT:,} (1 GiB)")
    floor(policy)
    if not policy.runner.metered and not policy.allow_unmetered:
        raise UsageError(
            f"the {policy.runner.response_format!r} response format never reports dollar "
            "cost; rerun with --allow-unmetered only when the provider has a separate hard "
            "spending cap (and --max-calls N to cap the calls)"
        )


@contextlib.contextmanager
def only_writer(output: Path) -> Iterator[None]:
    """One writer per output file, by the file's identity (see files.only_writer): a second
    run refuses at once, whether it names the file by the same path, a symlink or a hard link."""
    output.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as held_lock:
        try:
            held_lock.enter_context(files.only_writer(output))
        except files.Held as held:
            raise Busy(
                f"{output} is being written by another run (pid {held.holder}); "
                "wait for it, or write to another --output"
            ) from None
        except OSError as exc:  # a directory, a FIFO, no permission: said, never a traceback
            raise OutputError(f"{output}: cannot be written ({exc.strerror or exc})") from exc
        yield
