"""The atomic writer and the bounded readers at their edges: a write under a file, a write
stopped mid-stream, temporaries of live and dead writers, manifests that are not ours or
whose writer still runs, a file whose size lies, walks past what is not a file."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from adhd_evals.errors import OutputError
from adhd_evals.files import DEFAULT_MAX_BYTES, NotAFile, read_limited, set_max_bytes, walk
from adhd_evals.output import MANIFEST, TEMP_MARK, remove_stale_temps, torn, write_all_atomically

DEAD = 2**30  # past any pid_max Linux allows (2**22): no process has it


@pytest.fixture(autouse=True)
def _default_limit() -> Iterator[None]:
    yield
    set_max_bytes(DEFAULT_MAX_BYTES)


def test_a_write_whose_folder_is_a_file_names_it(tmp_path: Path) -> None:
    """`--output notes.txt/out.jsonl` where notes.txt is a file: the folder cannot be made;
    an OutputError (exit 4 at the boundary) naming it, and the file untouched."""
    plain = tmp_path / "notes.txt"
    plain.write_text("mine\n")
    with pytest.raises(OutputError, match=f"cannot write {plain}: "):
        write_all_atomically({plain / "out.jsonl": "row\n"})
    assert plain.read_text() == "mine\n"


def test_a_write_stopped_mid_stream_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    """Ctrl-C while the second piece of a streamed file is made: the old file stays whole and
    the temporary sibling holding the first piece is gone."""
    target = tmp_path / "cases.jsonl"
    target.write_text("old\n")

    def pieces() -> Iterator[str]:
        yield "new 1\n"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_all_atomically({target: pieces()})
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["cases.jsonl"]


def test_only_a_dead_writers_temporaries_are_removed(tmp_path: Path) -> None:
    """Four temporaries: a dead pid's (removed), this process's and its parent's (live
    writers: kept), and one whose pid is not a number (not ours to judge: kept)."""
    names = {pid: f".cases.jsonl{TEMP_MARK}{pid}-x" for pid in (DEAD, os.getpid(), os.getppid())}
    odd = tmp_path / f".cases.jsonl{TEMP_MARK}abc-x"
    for name in [*names.values(), odd.name]:
        (tmp_path / name).write_text("half")
    assert remove_stale_temps(tmp_path) == [tmp_path / names[DEAD]]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [names[os.getpid()], names[os.getppid()], odd.name]
    )


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("not json\n", id="not JSON"),
        pytest.param('{"old": {}}\n', id="no new set"),
        pytest.param('{"new": {}}\n', id="no old set"),  # once a KeyError out of torn (exit 70)
    ],
)
def test_a_manifest_adhd_evals_did_not_write_is_named(tmp_path: Path, text: str) -> None:
    (tmp_path / MANIFEST).write_text(text)
    assert (
        torn(tmp_path)
        == f"{tmp_path / MANIFEST} is not a manifest adhd-evals wrote; delete it and import again"
    )


def _pair(folder: Path, pid: int) -> None:
    """cases.jsonl and checks.py as one finished write, with the manifest its writer `pid`
    (killed after the last rename, or still running) left."""
    write_all_atomically({folder / "cases.jsonl": "c\n", folder / "checks.py": "m\n"}, paired=True)
    new = {
        name: hashlib.sha256(text.encode()).hexdigest()
        for name, text in (("cases.jsonl", "c\n"), ("checks.py", "m\n"))
    }
    record = {"old": {"cases.jsonl": None, "checks.py": None}, "new": new, "pid": pid}
    (folder / MANIFEST).write_text(json.dumps(record))


def test_a_finished_pairs_manifest_is_kept_while_its_writer_lives(tmp_path: Path) -> None:
    """Both files new: not torn. The manifest's writer (this test's parent, alive) may still
    be renaming, so it stays; a dead writer's manifest is cleared."""
    _pair(tmp_path, os.getppid())
    assert torn(tmp_path) is None and (tmp_path / MANIFEST).exists()
    _pair(tmp_path, DEAD)
    assert torn(tmp_path) is None and not (tmp_path / MANIFEST).exists()


def test_a_pair_with_one_file_deleted_is_named_torn(tmp_path: Path) -> None:
    """The manifest says both were written; checks.py is gone, cases.jsonl is new: neither
    the old set nor the new one, and no later edit to explain it: named, with the repair."""
    _pair(tmp_path, DEAD)
    (tmp_path / "checks.py").unlink()
    assert torn(tmp_path) == (
        f"{tmp_path / 'cases.jsonl'} and {tmp_path / 'checks.py'} are not from one import "
        "(an import into this folder was interrupted): rerun it"
    )


def test_a_file_that_grows_past_the_limit_while_read_is_refused() -> None:
    """/proc/self/status says it holds 0 bytes (procfs sizes lie) and reads as hundreds: past a
    limit of 10 only once read, refused then, never returned past the limit."""
    status = Path("/proc/self/status")
    if not status.exists():
        pytest.skip("no procfs")
    set_max_bytes(10)
    with pytest.raises(
        NotAFile, match=r"it grew past the limit of 10 bytes \(--max-bytes\) while being read"
    ):
        read_limited(status)


def test_a_walk_of_a_missing_root_finds_nothing(tmp_path: Path) -> None:
    assert walk(tmp_path / "gone") == []


def test_a_walk_passes_over_a_fifo_and_skipped_folders(tmp_path: Path) -> None:
    """A FIFO is neither a folder nor a file to read; `skip` folders are not entered: only
    the one case file is found."""
    (tmp_path / "task.yaml").write_text("name: x\n")
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "task.yaml").write_text("name: y\n")
    assert walk(tmp_path, skip=(".git",)) == [tmp_path / "task.yaml"]
