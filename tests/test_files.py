"""Files that are not files: FIFOs, devices, files past --max-bytes, symlink loops."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.files import DEFAULT_MAX_BYTES, set_max_bytes, walk

GOOD = '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}\n'


@pytest.fixture(autouse=True)
def _default_limit() -> object:
    yield
    set_max_bytes(DEFAULT_MAX_BYTES)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "evals.json"
    os.mkfifo(path)
    return path


def test_a_fifo_is_refused_by_name_not_read(fifo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["import", "--format", "evals-json", str(fifo)])  # reading it would block forever
    assert code == exitcodes.REFUSAL["CaseFileUnreadable"]
    assert f"{fifo} cannot be read: it is a FIFO (named pipe), not a regular file" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["validate"], ["check", "RESPONSES", "--suite", "SUITE", "--cases"]])
def test_row_readers_refuse_a_fifo(
    tmp_path: Path, fifo: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    (tmp_path / "r.jsonl").write_text("")
    (tmp_path / "s.py").write_text("CHECKS = {}\n")
    argv = [
        {"RESPONSES": str(tmp_path / "r.jsonl"), "SUITE": str(tmp_path / "s.py")}.get(a, a) for a in command
    ]
    assert main([*argv, str(fifo)]) == exitcodes.USAGE
    assert "cannot be read: it is a FIFO (named pipe), not a regular file" in capsys.readouterr().err


def test_lint_reports_a_fifo_named_on_the_command_line(
    fifo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = fifo.with_name("cases.jsonl")
    os.mkfifo(catalog)
    assert main(["lint", str(catalog)]) == 1
    assert (
        "cases.jsonl:1:1: CaseFileUnreadable cases.jsonl cannot be read: it is a FIFO"
        in capsys.readouterr().out
    )


def test_a_device_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "--format", "evals-json", "/dev/zero"]) == exitcodes.REFUSAL["CaseFileUnreadable"]
    assert "it is a character device, not a regular file" in capsys.readouterr().err


def test_a_file_past_max_bytes_is_refused_unread(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "evals.json"
    source.write_text('{"evals": []}' + " " * 200)  # 213 bytes
    assert main(["import", "--format", "evals-json", str(source), "--max-bytes", "100"]) == 10
    assert "it is 213 bytes, past the limit of 100 (--max-bytes)" in capsys.readouterr().err
    catalog = tmp_path / "cases.jsonl"
    catalog.write_text(GOOD)  # 78 bytes
    assert main(["lint", "--max-bytes", "50", str(catalog)]) == 1
    assert "it is 78 bytes, past the limit of 50 (--max-bytes)" in capsys.readouterr().out
    assert main(["lint", "--max-bytes", "78", str(catalog)]) == 0


def test_walks_follow_no_symlink_twice_and_never_leave_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "evals").mkdir(parents=True)
    (root / "evals" / "cases.jsonl").write_text(GOOD)
    (root / "loop1").symlink_to(root)
    (root / "loop2").symlink_to(root)
    (root / "evals" / "again").symlink_to(root / "evals")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "cases.jsonl").write_text(GOOD)
    (root / "out").symlink_to(outside)
    (root / "same.jsonl").symlink_to(root / "evals" / "cases.jsonl")
    assert walk(root) == [root / "evals" / "cases.jsonl"]


def test_lint_of_a_folder_with_symlink_loops_finishes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "cases.jsonl").write_text(GOOD)
    for name in ("a", "b", "c"):
        (tmp_path / name).symlink_to(tmp_path)
    assert main(["lint", str(tmp_path)]) == 0
    assert capsys.readouterr().out.endswith("Checked 1 file and 1 case: 0 errors, 0 warnings.\n")


def test_a_yaml_folder_import_and_lint_agree_on_a_link_leading_out(tmp_path: Path) -> None:
    """A YAML case folder holding `away.yaml`, a link to a case file outside it: lint's walk
    does not follow it, and the import agrees — the folder's one case is `here`, not two."""
    from adhd_evals.importing.importer import import_source
    from adhd_evals.lint import lint_paths

    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "here.yaml").write_text("name: here\ntask: Do the thing.\n")
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("name: away\ntask: Read what is outside.\n")
    (cases / "away.yaml").symlink_to(outside)
    result = import_source("yaml", cases, out=tmp_path / "evals")
    catalog = (tmp_path / "evals" / "cases.jsonl").read_text().splitlines()
    assert [json.loads(line)["id"] for line in catalog] == ["here"]
    assert result is not None
    assert lint_paths([cases]).files == 1
