"""`audit --prompt-only`: every check run with the case's own prompt, then with an empty answer,
as the answer; a check that passes on either cannot tell a good answer from an echo.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from ..judging.check import Suite, run_one

if TYPE_CHECKING:
    from ...catalog import CaseRow
    from ..summaries import EchoJson


class Echo(NamedTuple):
    """A check that passed with no real answer: the case's own prompt, or an empty one."""

    case_id: str
    criterion: str
    check: str
    on_prompt: bool
    on_empty: bool

    def json(self) -> EchoJson:
        return {
            "case_id": self.case_id,
            "criterion": self.criterion,
            "check": self.check,
            "on_prompt": self.on_prompt,
            "on_empty": self.on_empty,
        }

    def line(self) -> str:
        said = " and ".join(
            what
            for what, passed in (("its own prompt", self.on_prompt), ("an empty answer", self.on_empty))
            if passed
        )
        return (
            f"{self.case_id}: {self.check} ({self.criterion}) passes on {said} as the answer: it cannot "
            "tell a good answer from an echo"
        )


def echoes(suite: Suite, cases: Sequence[CaseRow], timeout: float) -> list[Echo]:
    """Every check of every case run with the case's prompt, then with an empty answer, as the
    answer; the checks that pass on either."""
    found = []
    for case in cases:
        for criterion, function in suite.registry.get(case["id"], []):
            on_prompt = run_one(suite, function, case["prompt"], timeout)[0] == "pass"
            on_empty = run_one(suite, function, "", timeout)[0] == "pass"
            if on_prompt or on_empty:
                name = getattr(function, "__name__", "?")
                found.append(Echo(case["id"], criterion, name, on_prompt, on_empty))
    return found
