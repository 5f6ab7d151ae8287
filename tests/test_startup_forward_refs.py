"""No string annotation compiled on a fast-path command's trivial call (issue 38's start-up).

typing.NamedTuple and TypedDict turn each string annotation (every annotation, under `from
__future__ import annotations`) into a ForwardRef, compiling it: about 30 us a field. The modules
of NamedTuples and TypedDicts that `validate` and `plan` import (the catalog reader, the fast
path's declarations, the problem and row types) evaluate their annotations instead. The hook's
own count is tests/lint/test_startup.py's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import string_annotations_made

ROW = '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["Answers 102."]}\n'


@pytest.mark.parametrize(
    "argv",
    [["validate", "{cases}"], ["plan", "--cases", "{cases}", "--trials", "1"]],
    ids=["validate", "plan"],
)
def test_a_trivial_call_compiles_no_string_annotation(tmp_path: Path, argv: list[str]) -> None:
    """A one-case valid catalog: both commands end OK, having made no ForwardRef."""
    cases = tmp_path / "cases.jsonl"
    cases.write_text(ROW, encoding="utf-8")
    code, made = string_annotations_made(tmp_path, *(word.format(cases=cases) for word in argv))
    assert (code, made) == (0, [])
