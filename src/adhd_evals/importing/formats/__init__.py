"""The readers of the source formats, by name, as the catalogue of formats declares them.

Adding a format is one module declaring its `Format` (its reader named by dotted path: a
module with `read` and `problems`), one line in the catalogue's `REGISTERED`, and one folder
of golden fixtures under `fixtures/<name>/` (docs/extending.md). A reader's module is imported
when it is first used, so linting an evals.json never imports PyYAML (the pre-commit hook runs
on every commit).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from ...problem import Problem
from ..catalogue import readers
from ..model import Case
from ._common import ReadOptions, SourceProblems


class Reader(Protocol):
    def __call__(self, source: Path, *, display: str, options: ReadOptions) -> list[Case]: ...


class ProblemFinder(Protocol):
    def __call__(self, source: Path, *, display: str, options: ReadOptions) -> SourceProblems: ...


T = TypeVar("T")


class _Registry(Mapping[str, T], Generic[T]):
    """Format name -> its reader module's `attribute`, the module imported on first use."""

    def __init__(self, attribute: str) -> None:
        self.attribute = attribute

    def __getitem__(self, name: str) -> T:
        module: Any = importlib.import_module(readers()[name])
        found: T = getattr(module, self.attribute)
        return found

    def __contains__(self, name: object) -> bool:  # without importing the module
        return name in readers()

    def __iter__(self) -> Iterator[str]:
        return iter(readers())

    def __len__(self) -> int:
        return len(readers())


READERS: Mapping[str, Reader] = _Registry("read")
# For lint: every refusal a source holds, not only the first.
PROBLEMS: Mapping[str, ProblemFinder] = _Registry("problems")


def plugin_eval_warnings(path: Path) -> list[Problem]:
    """lint's warnings on a plugin eval case (what plugin eval loads, but likely not as meant)."""
    from .plugin_eval.lint import lint_warnings

    return lint_warnings(path)


__all__ = ["PROBLEMS", "READERS", "ProblemFinder", "ReadOptions", "Reader"]
