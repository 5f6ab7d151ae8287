"""Everything a user or a file can cause is a `UserError`, carrying its exit code.

One boundary (`boundary.guard`, applied once in `entry.main`) turns a
UserError into its message and code; anything else is a bug.
"""

from __future__ import annotations

from . import exitcodes


class UserError(Exception):
    """A mistake in the command line or an input: a message and an exit code, never a traceback."""

    exit_code = exitcodes.FAILED

    def lines(self) -> list[str]:
        """What the boundary prints on stderr."""
        return [f"adhd-evals: {self}"]


class UsageError(UserError):
    """The command line asks for something that cannot be done; `hint` is a line of our own after it."""

    exit_code = exitcodes.USAGE

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint

    def lines(self) -> list[str]:
        return [*super().lines(), *([self.hint] if self.hint else [])]


class OutputError(UserError):
    """The output cannot be written, or writing it would lose a person's work."""

    exit_code = exitcodes.OUTPUT

    def lines(self) -> list[str]:
        return [*super().lines(), "Nothing was written."]


class _Listed(UserError):
    """Carries every problem found, one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems

    def lines(self) -> list[str]:
        return list(self.problems)


class CatalogInvalid(_Listed):
    """A five-field catalog breaks its rules; carries every problem found."""

    exit_code = exitcodes.FAILED


class InputInvalid(_Listed):
    """An input file (responses, a catalog being read) breaks its rules; every problem listed."""

    exit_code = exitcodes.INPUT


class SuiteBroken(UserError):
    """The check module cannot be imported: a syntax error, or an exception at import."""

    exit_code = exitcodes.SUITE

    def lines(self) -> list[str]:
        return [f"adhd-evals: the check module does not import: {self}"]


class RunnerFailed(UserError):
    """A runner call failed after every retry; the message says how, without the prompt."""

    exit_code = exitcodes.RUNNER

    def lines(self) -> list[str]:
        return [*super().lines(), "Rows already written are kept; rerun the same command to resume."]


class Stopped(UserError):
    """A run stopped by a signal: no new call started, in-flight ones ended, rows kept."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code

    def lines(self) -> list[str]:
        return [*super().lines(), "Rows already written are kept; rerun the same command to resume."]


class Busy(UserError):
    """Another run holds the output file's lock."""

    exit_code = exitcodes.USAGE


class ScaleRefused(_Listed):
    """A shard, a merge or the response cache refused: every problem named, each with its file."""

    def __init__(self, problems: list[str], exit_code: int) -> None:
        super().__init__(problems)
        self.exit_code = exit_code

    def lines(self) -> list[str]:
        return [*self.problems, "Nothing was written."]
