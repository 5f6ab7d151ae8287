"""The explicit registry of source formats.

Adding a format is one module with `NAME` and `read`, one line here, and one
folder of golden fixtures under `fixtures/<name>/`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from ..model import Case, Refusal
from . import evalflow, evals_json, yaml_cases
from ._common import ReadOptions


class Reader(Protocol):
    def __call__(self, source: Path, *, display: str, options: ReadOptions) -> list[Case]: ...


READERS: dict[str, Reader] = {
    evals_json.NAME: evals_json.read,
    yaml_cases.NAME: yaml_cases.read,
    evalflow.NAME: evalflow.read,
}


class ProblemFinder(Protocol):
    def __call__(self, source: Path, *, display: str, options: ReadOptions) -> tuple[int, list[Refusal]]: ...


# For lint: every refusal a source holds, not only the first.
PROBLEMS: dict[str, ProblemFinder] = {
    evals_json.NAME: evals_json.problems,
    yaml_cases.NAME: yaml_cases.problems,
    evalflow.NAME: evalflow.problems,
}

__all__ = ["PROBLEMS", "READERS", "ReadOptions", "Reader"]
