"""SIGKILL at each write step of `import --out` (injected deterministically): the
folder holds both old files or both new ones, or the next command names the torn
pair; the next import repairs it and no temporary file survives it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from adhd_evals.entry import main
from adhd_evals.output import MANIFEST, TEMP_MARK

OLD = {"skill_name": "s", "evals": [{"id": 1, "prompt": "old prompt", "assertions": ["Old criterion"]}]}
NEW = {"skill_name": "s", "evals": [{"id": 1, "prompt": "new prompt", "assertions": ["New criterion"]}]}
STEPS = ["written", "manifest", "renamed-1", "renamed-2", "renamed-3"]


def _import(source: Path, out: Path, kill_at: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ADHD_EVALS_TEST_KILL_AT": kill_at or ""}
    code = "import sys; from adhd_evals.entry import main; sys.exit(main(sys.argv[1:]))"
    argv = [sys.executable, "-c", code, "import", "--format", "evals-json", str(source), "--out", str(out)]
    return subprocess.run(argv, env=env, capture_output=True, text=True, check=False, timeout=60)


def _state(out: Path) -> tuple[str, str]:
    catalog = "new" if "new prompt" in (out / "cases.jsonl").read_text() else "old"
    module = "new" if "New criterion" in (out / "checks.py").read_text() else "old"
    return catalog, module


@pytest.mark.long
@pytest.mark.parametrize("step", STEPS)
def test_a_kill_at_each_step_is_consistent_or_named_then_repaired(
    tmp_path: Path, step: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "evals.json", tmp_path / "evals"
    source.write_text(json.dumps(OLD))
    assert _import(source, out).returncode == 0
    source.write_text(json.dumps(NEW))
    killed = _import(source, out, kill_at=step)
    assert killed.returncode == -signal.SIGKILL
    leftovers = sorted(p.name for p in out.iterdir() if TEMP_MARK in p.name)
    state = _state(out)
    # By hand, from the order of the steps: temps are written, then the manifest,
    # then cases.jsonl is renamed, then checks.py.
    # (then the record of sources, the third file of the write, whose change is invisible here)
    expected_state = {
        "written": ("old", "old"),
        "manifest": ("old", "old"),
        "renamed-1": ("new", "old"),
        "renamed-2": ("new", "new"),
        "renamed-3": ("new", "new"),
    }[step]
    assert state == expected_state
    # what the killed writer left: its temporary files, and the manifest once written
    temps, manifest = {
        "written": (3, False),
        "manifest": (3, True),
        "renamed-1": (2, True),
        "renamed-2": (1, True),
        "renamed-3": (0, True),
    }[step]
    assert len(leftovers) == temps and (out / MANIFEST).exists() == manifest
    responses = tmp_path / "responses.jsonl"
    responses.write_text(
        '{"case_id": "s-1", "trial": 1, "condition": "baseline", "runner": "stub", "response": "x"}\n'
    )
    code = main(
        ["check", str(responses), "--cases", str(out / "cases.jsonl"), "--suite", str(out / "checks.py")]
    )
    err = capsys.readouterr().err
    if state[0] != state[1]:  # torn: named, and check refuses to run on it
        assert code == 4
        assert "are not from one import (an import into this folder was interrupted): rerun it" in err
        assert main(["lint", str(out)]) == 1
        assert "E112" in capsys.readouterr().out
    else:
        assert "not from one import" not in err
    repaired = _import(source, out)
    assert repaired.returncode == 0
    assert ("Repaired:" in repaired.stderr) == (state[0] != state[1])
    assert _state(out) == ("new", "new")
    # no temporary file, no manifest: the catalog, the module and the record of sources
    assert sorted(p.name for p in out.iterdir()) == [".adhd-evals-sources.json", "cases.jsonl", "checks.py"]
    assert not (out / MANIFEST).exists()
