"""import --dry-run prints unified diffs the size `diff -u` prints for the same change
(issue 22, item 11), and each diff applied to the old text gives the new one."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.importing.importer import Request, import_source, import_sources
from adhd_evals.importing.unified_diff import unified


def _cases(count: int) -> list[dict[str, object]]:
    return [
        {"id": n, "prompt": f"Do task {n}.", "assertions": [f"Explains step {n}", "Is calm"]}
        for n in range(count)
    ]


@pytest.mark.skipif(shutil.which("diff") is None, reason="no diff on this machine")
def test_dry_run_diff_is_as_long_as_diff_u(tmp_path: Path) -> None:
    """300 cases make a module of thousands of lines whose blank and placeholder lines
    are common enough for difflib's junk heuristic; one reworded criterion, one case
    removed and one added must print what `diff -u` prints, line for line in count."""
    source = tmp_path / "evals.json"
    cases = _cases(300)
    source.write_text(json.dumps({"skill_name": "s", "evals": cases}))
    import_source("evals-json", source, out=tmp_path / "evals")
    cases[150]["assertions"] = ["Explains step 150 well", "Is calm"]
    del cases[200]
    cases.insert(5, {"id": 999, "prompt": "New.", "assertions": ["New one"]})
    source.write_text(json.dumps({"skill_name": "s", "evals": cases}))
    outcome = import_sources("evals-json", [source], Request(out=tmp_path / "evals", dry_run=True))
    after = {"cases.jsonl": outcome.catalog, "checks.py": outcome.module}
    for (name, text), printed in zip(after.items(), outcome.diffs, strict=True):
        (tmp_path / f"new-{name}").write_text(text, encoding="utf-8")
        expected = subprocess.run(
            ["diff", "-u", str(tmp_path / "evals" / name), str(tmp_path / f"new-{name}")],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        assert printed.count("\n") == expected.count("\n") > 0
        assert _hunks(printed) == _hunks(expected)


def _hunks(diff: str) -> list[str]:
    return re.findall(r"^@@ .* @@$", diff, re.MULTILINE)


def _apply(a: list[str], diff: str) -> list[str]:
    """The new text from the old and a unified diff (hunks in order)."""
    out: list[str] = []
    at = 0
    for line in diff.splitlines(keepends=True)[2:]:
        if line.startswith("@@"):
            start = int(re.match(r"@@ -(\d+)", line).group(1))  # type: ignore[union-attr]
            begin = start - 1 if ",0 " not in line.split(" +")[0] else start
            out += a[at:begin]
            at = begin
        elif line.startswith(" "):
            out.append(line[1:])
            at += 1
        elif line.startswith("-"):
            at += 1
        elif line.startswith("+"):
            out.append(line[1:])
    return out + a[at:]


lines = st.lists(st.sampled_from(["\n", "x\n", "y\n", "return unwritten()\n", "# c\n", "z\n"]), max_size=40)


@pytest.mark.long
@settings(max_examples=300, deadline=None)
@given(a=lines, b=lines)
def test_the_diff_turns_the_old_text_into_the_new(a: list[str], b: list[str]) -> None:
    diff = unified(a, b, "a", "b")
    assert (diff == "") == (a == b)
    assert _apply(a, diff) == b
