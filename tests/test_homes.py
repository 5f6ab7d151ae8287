"""Each concept has one home: a grep over src/ finds its literal in one module only."""

from __future__ import annotations

import re

import pytest

from helpers import ROOT

SRC = ROOT / "src" / "adhd_evals"


def _where(pattern: str) -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if re.search(pattern, path.read_text(encoding="utf-8")):
            found.append(path.relative_to(SRC).as_posix())
    return found


@pytest.mark.parametrize(
    ("concept", "pattern", "home"),
    [
        ("risk values", r'"low",\s*"medium",\s*"high"', "schema.py"),
        ("catalog field names", r'"id",\s*"category",\s*"prompt"', "schema.py"),
        ("conditions", r'"baseline",\s*"candidate",\s*"comparator"', "schema.py"),
        ("the default catalog path", r'"evals/cases\.jsonl"', "schema.py"),
        ("the default check module path", r'"evals/checks\.py"', "schema.py"),
        # each format is named once, in its catalogue module; the one list is lint's old order
        ("format name lists", r'"evals-json",\s*"(yaml|evalflow)",\s*"', "importing/catalogue/__init__.py"),
        ("metrics", r'"correctness"\s*:\s*0', "runs/rubric.py"),
        ("the marker text", r'"# adhd-evals: "', "importing/checkgen.py"),
        ("reading the dialect schema", r'"dialect\.schema\.json"\)', "importing/dialect_schema.py"),
        ("the plain helpers' text, read to embed", r'"checkhelpers\.py"\)', "importing/checkgen.py"),
        # the escape itself (jsonl.quoted_text asks isprintable() only to know that none is needed)
        ("escaping unprintable text", r"\.isprintable\(\) else repr\(", "text.py"),
        ("text tables", r"\.ljust\(", "text.py"),
        ("JSONL lines", r"^def line\(row", "jsonl.py"),
        # a JSON line written outside jsonl.py (an indented JSON document is not a line)
        ("JSONL written by hand", r'dumps\((?![^\n]*indent=)[^\n]*\)\s*\+\s*"\\n"', None),
        ("the line-break escapes", r"0x2028", "jsonl.py"),
        (
            "finding @check registrations",
            r'(?:func\.(id|value) == |DECORATOR = )"check"',
            "importing/registrations.py",
        ),
        ("the problem value", r"^class Problem\b", "problem.py"),
        ("exit code numbers", r"^INTERNAL = ", "exitcodes.py"),
        ("plurals", r"""'s'\}|"s" \*|'s' \*""", None),
    ],
)
def test_one_home(concept: str, pattern: str, home: str | None) -> None:
    found = _where(rf"(?m){pattern}")
    assert found == ([home] if home else []), f"{concept} has these homes: {found}"


# the cli package's every module (its commands are split by stage), and the other modules that end commands
COMMAND_MODULES = [p.relative_to(SRC).as_posix() for p in sorted((SRC / "cli").glob("*.py"))]


@pytest.mark.parametrize("command", [*COMMAND_MODULES, "entry.py", "boundary.py", "lint/cli.py"])
def test_commands_return_named_exit_codes(command: str) -> None:
    """Only exitcodes.py spells exit-code numbers; the modules that end commands name them."""
    text = (SRC / command).read_text(encoding="utf-8")
    assert not re.search(r"(?m)return \d+$|sys\.exit\(\d|exit_code=\d", text)
