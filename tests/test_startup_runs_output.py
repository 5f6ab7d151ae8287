"""The atomic writer names its temporary file itself (no tempfile: about 3 ms of every writing
command's start-up, issue 38): a name another file holds is drawn again, and a writer that finds
no free name refuses, naming the file it was asked to write and leaving it as it was."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from adhd_evals.errors import OutputError
from adhd_evals.output import TEMP_MARK, write_all_atomically


def _draws(monkeypatch: pytest.MonkeyPatch, values: list[bytes]) -> list[int]:
    """os.urandom answering `values` in turn (the last one from then on); the sizes asked."""
    asked: list[int] = []
    answers: Iterator[bytes] = iter(values)

    def drawn(size: int) -> bytes:
        asked.append(size)
        return next(answers, values[-1])

    monkeypatch.setattr(os, "urandom", drawn)
    return asked


def test_a_temporary_name_already_taken_is_drawn_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first draw (four zero bytes: suffix "00000000") names a file this process already
    holds, so it is kept as it is; the second (four 0x01 bytes: "01010101") is free. The
    target gets the text, the taken file keeps its own, and no other temporary is left."""
    taken = tmp_path / f".out.jsonl{TEMP_MARK}{os.getpid()}-00000000"
    taken.write_text("someone's\n")
    asked = _draws(monkeypatch, [b"\x00" * 4, b"\x01" * 4])
    write_all_atomically({tmp_path / "out.jsonl": "row\n"})
    assert asked == [4, 4]
    assert (tmp_path / "out.jsonl").read_text() == "row\n"
    assert taken.read_text() == "someone's\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out.jsonl", taken.name])


def test_no_free_temporary_name_refuses_and_keeps_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every draw names the one taken file (the same four zero bytes): after the writer's tries
    an OutputError (exit 4 at the boundary) names the target, which keeps its old text."""
    target = tmp_path / "out.jsonl"
    target.write_text("old\n")
    taken = tmp_path / f".out.jsonl{TEMP_MARK}{os.getpid()}-00000000"
    taken.write_text("someone's\n")
    asked = _draws(monkeypatch, [b"\x00" * 4])
    with pytest.raises(OutputError, match=f"^cannot write {target}: no free name for its temporary file$"):
        write_all_atomically({target: "new\n"})
    assert len(asked) > 1  # drawn again before refusing
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out.jsonl", taken.name])


def test_a_new_file_is_readable_by_all_and_a_replaced_one_keeps_its_mode(tmp_path: Path) -> None:
    """The temporary is created 0600 (as mkstemp makes it); the file put in place is 0644 when
    new (what mkstemp's callers here always set), and an existing file's mode when it replaces one."""
    fresh, kept = tmp_path / "fresh.jsonl", tmp_path / "kept.jsonl"
    kept.write_text("old\n")
    kept.chmod(0o600)
    write_all_atomically({fresh: "a\n", kept: "b\n"})
    assert (fresh.stat().st_mode & 0o777, kept.stat().st_mode & 0o777) == (0o644, 0o600)


def test_the_longest_name_mkstemp_could_write_beside_still_writes(tmp_path: Path) -> None:
    """A file name stops at 255 bytes, and the temporary's is the target's with a dot before and
    TEMP_MARK, the pid, a dash and 8 random characters after (mkstemp's 8, so what fit before
    still fits): a target of 255 - (1 + len(TEMP_MARK) + len(pid) + 1 + 8) characters is written."""
    longest = 255 - (1 + len(TEMP_MARK) + len(str(os.getpid())) + 1 + 8)
    target = tmp_path / ("e" * longest)
    write_all_atomically({target: "row\n"})
    assert target.read_text() == "row\n"
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_a_relative_target_s_temporary_is_named_from_its_absolute_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As mkstemp did: a refusal about the temporary file names it by its absolute path, never
    `./.out.jsonl...` (every draw taken, so the writer refuses naming what it tried)."""
    monkeypatch.chdir(tmp_path)
    names: list[str] = []
    real_open = os.open

    def taken(name: str, flags: int, mode: int = 0o777) -> int:
        names.append(name)
        raise FileExistsError(name)

    monkeypatch.setattr(os, "open", taken)
    with pytest.raises(OutputError):
        write_all_atomically({Path("out.jsonl"): "row\n"})
    monkeypatch.setattr(os, "open", real_open)
    assert names and all(name.startswith(f"{tmp_path}/.out.jsonl{TEMP_MARK}") for name in names)
