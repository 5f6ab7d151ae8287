"""Errors a user can cause that are not refusals of a source file."""

from __future__ import annotations


class UsageError(Exception):
    """The command line asks for something that cannot be done."""


class OutputError(Exception):
    """The output cannot be written, or writing it would lose a person's work."""


class CatalogInvalid(Exception):
    """A five-field catalog breaks its rules; carries every problem found."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class InputInvalid(Exception):
    """An input file (responses, a catalog being read) breaks its rules; every problem listed."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class SuiteBroken(Exception):
    """The check module cannot be imported: a syntax error, or an exception at import."""


class RunnerFailed(Exception):
    """A runner call failed after every retry; the message says how, without the prompt."""
