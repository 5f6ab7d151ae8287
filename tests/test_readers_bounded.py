"""Every reader of a path a user or a file names goes through the bounded reader: a FIFO
would block a read forever and /dev/zero would fill memory. Each command runs in a real
subprocess under a 3 GiB address-space cap and a time limit, with the path it reads made a
FIFO, or a link to /dev/zero; it must end with a message, never hang, crash or exhaust memory.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main

GOOD = '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}\n'
CAP = 3 * 1024**3


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


def _adhd(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "adhd_evals", *args]
    return subprocess.run(
        command,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_cap,
        stdin=subprocess.DEVNULL,
    )


def _project(root: Path) -> None:
    """The files every reader below reads, made in this process (only the reader under test
    needs a process of its own, for its caps)."""
    (root / "evals.json").write_text(json.dumps({"skill_name": "s", "evals": [{"id": 1, "prompt": "p"}]}))
    here = Path.cwd()
    os.chdir(root)  # from the project, as a user runs it: the record names evals.json so
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["import", "--format", "evals-json", "evals.json", "--out", "evals"]) == exitcodes.OK
    finally:
        os.chdir(here)
    (root / "responses.jsonl").write_text(
        json.dumps({"case_id": "s-1", "trial": 1, "condition": "baseline", "runner": "stub", "response": "r"})
        + "\n"
    )
    (root / "skill.md").write_text("Be brief.\n")
    (root / "runners.json").write_text(json.dumps({"r": {"command": ["true"], "response_format": "text"}}))


# (what is read, the command, the path it reads relative to the project)
READERS: list[tuple[str, list[str], str]] = [
    ("lint catalog", ["lint", "evals/cases.jsonl"], "evals/cases.jsonl"),
    ("lint module", ["lint", "evals/checks.py"], "evals/checks.py"),
    ("validate", ["validate", "evals/cases.jsonl"], "evals/cases.jsonl"),
    ("check catalog", ["check", "responses.jsonl"], "evals/cases.jsonl"),
    ("check responses", ["check", "responses.jsonl"], "responses.jsonl"),
    ("check module", ["check", "responses.jsonl"], "evals/checks.py"),
    (
        "import over a catalog",
        ["import", "--format", "evals-json", "evals.json", "--out", "evals"],
        "evals/cases.jsonl",
    ),
    (
        "import over a module",
        ["import", "--format", "evals-json", "evals.json", "--out", "evals"],
        "evals/checks.py",
    ),
    (
        "import over a record",
        ["import", "--format", "evals-json", "evals.json", "--out", "evals"],
        "evals/.adhd-evals-sources.json",
    ),
    ("import source", ["import", "--format", "evals-json", "evals.json", "--out", "evals"], "evals.json"),
    (
        "run --runner-config",
        [
            "run",
            "--runner",
            "r",
            "--runner-config",
            "runners.json",
            "--condition",
            "baseline",
            "--output",
            "o.jsonl",
        ],
        "runners.json",
    ),
    (
        "run --condition-skill",
        [
            "run",
            "--runner",
            "stub",
            "--condition",
            "candidate",
            "--condition-skill",
            "skill.md",
            "--output",
            "o.jsonl",
        ],
        "skill.md",
    ),
]


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


@pytest.mark.long
@pytest.mark.parametrize("make", [pytest.param(_fifo, id="fifo"), pytest.param(_dev_zero, id="dev-zero")])
@pytest.mark.parametrize(("what", "args", "target"), [pytest.param(*r, id=r[0]) for r in READERS])
def test_no_reader_opens_what_is_not_a_bounded_file(
    tmp_path: Path, make: Callable[[Path], None], what: str, args: list[str], target: str
) -> None:
    _project(tmp_path)
    (tmp_path / target).unlink()
    make(tmp_path / target)
    done = _adhd(*args, cwd=tmp_path)  # a hang is a TimeoutExpired: the test fails
    assert done.returncode not in (exitcodes.OK, exitcodes.INTERNAL), (what, done.returncode, done.stderr)
    said = done.stdout + done.stderr
    assert "Traceback" not in said and "MemoryError" not in said
    refused = (
        "not a regular file",
        "FIFO",
        "character device",
        "resolves to /dev/zero, outside this project",
    )
    assert any(reason in said for reason in refused), (what, said)


def test_lint_passes_over_a_record_of_sources_that_is_not_a_file(tmp_path: Path) -> None:
    """lint reads the record of sources beside a catalog only when it is a regular file: a
    FIFO in its place is not opened (the run ends, the catalog is still checked)."""
    _project(tmp_path)
    record = tmp_path / "evals" / ".adhd-evals-sources.json"
    record.unlink()
    os.mkfifo(record)
    done = _adhd("lint", "evals/cases.jsonl", cwd=tmp_path)
    assert done.returncode in (exitcodes.OK, exitcodes.FAILED) and "Checked 1 file and 1 case" in done.stdout


@pytest.mark.long
def test_a_manifest_naming_dev_zero_is_not_read(tmp_path: Path) -> None:
    """A manifest is data: one that names /dev/zero as a file of the pair must not make
    `check` read it. A manifest whose files cannot be read is not a pair: the check refuses
    it as torn (exit 4), naming the folder, in well under the time limit."""
    _project(tmp_path)
    manifest = {"old": {"/dev/zero": "0" * 64}, "new": {"/dev/zero": "1" * 64}}
    (tmp_path / "evals" / ".adhd-evals-written.json").write_text(json.dumps(manifest))
    done = _adhd("check", "responses.jsonl", cwd=tmp_path)
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    assert done.returncode == exitcodes.INPUT, done.stderr
