"""The process ends without the interpreter's last full cycle collection (issue 38's start-up):
`entry.run` freezes what is left before exiting, so that collection skips every module's objects
(about 3 ms of a hook run, 5-9 ms of `validate` and `import`: docs/startup.md)."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from adhd_evals import entry
from adhd_evals.collector import collector_paused


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """The test process's objects go back to the collector's care afterwards."""
    yield
    gc.unfreeze()


def test_run_exits_with_mains_code_having_frozen_what_is_left(
    monkeypatch: pytest.MonkeyPatch, unfrozen: None
) -> None:
    """main's exit code is the process's (main told it is the whole process); by then every object
    tracked is frozen (a count above none: this test's own objects at least)."""
    frozen_at_exit: list[int] = []

    def fake_exit(code: int) -> None:
        frozen_at_exit.append(gc.get_freeze_count())
        raise SystemExit(code)

    monkeypatch.setattr(entry, "main", lambda *, process: 3 if process else 0)
    monkeypatch.setattr(sys, "exit", fake_exit)
    gc.unfreeze()
    with pytest.raises(SystemExit) as ended:
        entry.run()
    assert ended.value.code == 3
    assert frozen_at_exit[0] > 0


def test_what_a_command_writes_is_whole_after_the_exit(tmp_path: Path) -> None:
    """The collection skipped is no flush: an import of 500 cases streams its catalog to stdout
    through the raw buffer, and every line is there once the process has ended (worked by hand:
    one catalog line per case, ids 1 to 500 in order)."""
    evals = ",".join(
        f'{{"id": {n}, "prompt": "Question {n}?", "assertions": ["Answers."]}}' for n in range(1, 501)
    )
    source = tmp_path / "evals.json"
    source.write_text(f'{{"skill_name": "s", "evals": [{evals}]}}', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "adhd_evals", "import", "--format", "evals-json", str(source)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 500
    assert lines[-1].startswith('{"id": "') and "Question 500?" in lines[-1]


@pytest.fixture
def collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()


def test_the_collector_is_paused_while_a_command_imports(collector_restored: None) -> None:
    """Off inside (the command's modules imported without a collection), on again after."""
    gc.enable()
    with collector_paused():
        inside = gc.isenabled()
    assert (inside, gc.isenabled()) == (False, True)


def test_a_collector_paused_by_the_caller_stays_paused(collector_restored: None, tmp_path: Path) -> None:
    """A caller that paused the collector (as the importer does) finds it paused after a lint run."""
    gc.disable()
    assert entry.main(["lint", str(_catalog(tmp_path))]) == 0
    assert not gc.isenabled()


def _catalog(tmp_path: Path) -> Path:
    catalog = tmp_path / "cases.jsonl"
    catalog.write_text(
        '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["Answers 102."]}\n',
        encoding="utf-8",
    )
    return catalog


def test_a_process_freezes_what_its_command_imported(unfrozen: None, tmp_path: Path) -> None:
    """As the whole process (entry.run), the command's modules, once imported, are frozen out of
    the collector's later scans: the run starts with a count above none."""
    gc.unfreeze()
    assert entry.main(["lint", str(_catalog(tmp_path))], process=True) == 0
    assert gc.get_freeze_count() > 0


def test_a_callers_process_is_never_frozen(unfrozen: None, tmp_path: Path) -> None:
    """Called from a program of its own (these tests, a script), main freezes nothing: that
    program's garbage of the moment would be kept for good."""
    gc.unfreeze()
    assert entry.main(["lint", str(_catalog(tmp_path))]) == 0
    assert entry.main(["validate", str(_catalog(tmp_path))]) == 0
    assert gc.get_freeze_count() == 0
