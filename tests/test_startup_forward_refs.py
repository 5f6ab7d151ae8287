"""No string annotation compiled on a fast-path command's trivial call (issue 38's start-up).

typing.NamedTuple and TypedDict turn each string annotation (every annotation, under `from
__future__ import annotations`) into a ForwardRef, compiling it: about 30 us a field. The modules
of NamedTuples and TypedDicts that `validate` and `plan` import (the catalog reader, the fast
path's declarations, the problem and row types) evaluate their annotations instead. The hook's
own count is tests/lint/test_startup.py's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import unmeasured_environment

PROBE = (
    "import json, sys, typing\n"
    "made = []\n"
    "make = typing.ForwardRef.__init__\n"
    "def counted(self, arg, *args, **kwargs):\n"
    "    made.append(arg)\n"
    "    make(self, arg, *args, **kwargs)\n"
    "typing.ForwardRef.__init__ = counted\n"
    "from adhd_evals.entry import main\n"
    "code = main(sys.argv[2:])\n"
    "open(sys.argv[1], 'w', encoding='utf-8').write(json.dumps({'code': code, 'made': made}))\n"
)
ROW = '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["Answers 102."]}\n'


def _made(tmp: Path, *argv: str) -> tuple[int, list[str]]:
    found = tmp / "made.json"
    subprocess.run(
        [sys.executable, "-c", PROBE, str(found), *argv],
        capture_output=True,
        check=True,
        env=unmeasured_environment(),
    )
    ended = json.loads(found.read_text(encoding="utf-8"))
    made: list[str] = ended["made"]
    return ended["code"], made


@pytest.mark.parametrize(
    "argv",
    [["validate", "{cases}"], ["plan", "--cases", "{cases}", "--trials", "1"]],
    ids=["validate", "plan"],
)
def test_a_trivial_call_compiles_no_string_annotation(tmp_path: Path, argv: list[str]) -> None:
    """A one-case valid catalog: both commands end OK, having made no ForwardRef."""
    cases = tmp_path / "cases.jsonl"
    cases.write_text(ROW, encoding="utf-8")
    code, made = _made(tmp_path, *(word.format(cases=cases) for word in argv))
    assert (code, made) == (0, [])
