"""A toy source format, to show that a format is one module and one registration line
(tests/test_catalogue_toy.py registers it; docs/extending.md walks it).

A toy case list is a `.toy` file, or a `.txt` file whose first line is `TOY CASES`; each
further line `ID: PROMPT` is one case whose criterion a person must still write. This module
is light enough to be its own reader; a real format names a reader module of its own.
"""

from __future__ import annotations

from pathlib import Path

from adhd_evals.exitcodes import RefusalCode
from adhd_evals.files import read_limited
from adhd_evals.importing.catalogue import Format, Head
from adhd_evals.importing.formats import ReadOptions
from adhd_evals.importing.formats._common import SourceProblems
from adhd_evals.importing.model import Case, Check, CheckKind, Refusal

HEADER = b"TOY CASES\n"
REASON = "is not a toy case list"


def _looks_like(head: Head) -> bool:
    return head.bytes.startswith(HEADER)


FORMAT = Format(
    name="toy",
    description="a toy case list",
    reader=__name__,
    refusal=RefusalCode.FILE_EMPTY,
    by_name=("*.toy",),
    by_shape=("*.txt",),
    looks_like=_looks_like,
    hook=("evals/*.toy",),
)


def read(source: Path, *, display: str, options: ReadOptions) -> list[Case]:
    """Every `ID: PROMPT` line after the header; refused when there is none."""
    lines = read_limited(source).decode("utf-8").splitlines()[1:]
    cases = [_case(line, options) for line in lines if ":" in line]
    if not cases:
        raise Refusal(RefusalCode.FILE_EMPTY, display, REASON, expected="a line ID: PROMPT")
    return cases


def problems(source: Path, *, display: str, options: ReadOptions) -> SourceProblems:
    try:
        cases = read(source, display=display, options=options)
    except Refusal as refusal:
        return SourceProblems(0, [refusal], [])
    return SourceProblems(len(cases), [], [case.id for case in cases])


def _case(line: str, options: ReadOptions) -> Case:
    case_id, _, prompt = line.partition(":")
    criterion = "Answers the toy prompt."
    check = Check(criterion, CheckKind.UNWRITTEN, (criterion,))
    return Case(case_id.strip(), options.category or "toy", prompt.strip(), options.risk, (check,))
