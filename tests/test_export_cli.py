"""`adhd-evals export` as a user runs it: the file written and what did not survive, said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main

ROW = {"id": "a", "category": "notes", "prompt": "Write notes.", "risk": "high", "criteria": ["Says hi"]}


def test_export_to_evals_json_writes_the_file_and_names_what_was_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An evals.json has a skill name (the category), ids, prompts and expectations (the
    criteria), but no risk: the file is written, and the lost risk is said with its repair."""
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps(ROW) + "\n")
    suite = tmp_path / "checks.py"
    suite.write_text("CHECKS = {}\n")
    out = tmp_path / "evals.json"
    argv = ["export", "--to", "evals-json", "--cases", str(cases), "--suite", str(suite), "--out", str(out)]
    assert main(argv) == exitcodes.OK
    assert json.loads(out.read_text()) == {
        "skill_name": "notes",
        "evals": [{"id": "a", "prompt": "Write notes.", "expectations": ["Says hi"]}],
    }
    assert capsys.readouterr().err.splitlines() == [
        f"Wrote {out} (1 case, evals-json).",
        "Did not survive the export:",
        "  risk: evals.json has none (pass --risk when importing it back)",
    ]
