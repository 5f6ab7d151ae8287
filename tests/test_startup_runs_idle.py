"""A run or judge with no row left to write starts no call, so it opens no session of calls
(calls.py, with its process groups, threads and signal handlers: calling/idle.py), yet reads,
refuses and says what a session's opening does: the ledger beside the output read (and refused
when it cannot be), the spend its rows and ledger hold counted, and the scratch folders a dead run
left swept and named. And the folder those scratch folders live in is found as tempfile finds it,
without importing tempfile where it is not loaded (watchdog.temp_dir)."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.calling import calls, watchdog
from helpers import blind_folder

CASES: list[dict[str, object]] = [
    {"id": f"c{n}", "category": "c", "prompt": f"Question {n}?", "risk": "low", "criteria": ["Answers it."]}
    for n in (1, 2, 3)
]
STALE = f"{watchdog.SCRATCH_PREFIX}4194305-12345-abc"  # pid 2^22+1: past Linux's default pid_max


def _jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _run(folder: Path) -> list[str]:
    cases = str(folder / "cases.jsonl")
    return [
        "run",
        "--runner",
        "stub",
        "--condition",
        "baseline",
        "--cases",
        cases,
        "--output",
        str(folder / "o.jsonl"),
    ]


def _judge(folder: Path) -> list[str]:
    cases, output = str(folder / "cases.jsonl"), str(folder / "judged.jsonl")
    return ["judge", str(folder / "sheet.jsonl"), "--runner", "stub", "--cases", cases, "--output", output]


@pytest.fixture
def done(tmp_path: Path) -> Path:
    """A catalog of three cases, a run of its baseline (trial 1) and a judge of a blind sheet of
    those responses, each with every row written: so each is resumed with nothing left to do."""
    _jsonl(tmp_path / "cases.jsonl", CASES)
    assert main([*_run(tmp_path), "--trials", "1"]) == exitcodes.OK
    rows = [json.loads(line) for line in (tmp_path / "o.jsonl").read_text(encoding="utf-8").splitlines()]
    _jsonl(
        tmp_path / "responses.jsonl",
        [{**row, "condition": c} for row in rows for c in ("baseline", "candidate")],
    )
    assert blind_folder(tmp_path) == exitcodes.OK
    assert main(_judge(tmp_path)) == exitcodes.OK
    return tmp_path


@pytest.fixture
def resumed(done: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`done`, where opening a session of calls from now on fails the test: resumed, neither
    command may open one."""

    def opened(*args: object, **kwargs: object) -> None:
        raise AssertionError("a session of calls was opened")

    monkeypatch.setattr(calls, "open_session", opened)
    return done


ARGV = {"run": lambda folder: [*_run(folder), "--trials", "1"], "judge": _judge}
# What each says, resumed: run's three rows and judge's six (three cases, two labels) already there.
SAID = {
    "run": "Ran 0 cases (0 calls), skipped 3 already in {output}; spent {spent} of $25.0000.",
    "judge": "Judged 0 rows (0 void), skipped 6 already in {output}; spent {spent}.",
}
OUTPUT = {"run": "o.jsonl", "judge": "judged.jsonl"}


@pytest.mark.parametrize("command", ["run", "judge"])
def test_a_resumed_command_sweeps_and_names_what_a_dead_run_left(
    resumed: Path, command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scratch folder of a run that no longer runs (pid 4194305) is removed and named on the
    next start, as a session's opening does, though no session is opened."""
    scratch = resumed / "tmp"
    (scratch / STALE / "cwd").mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # tempfile is loaded here: its folder
    capsys.readouterr()
    assert main(ARGV[command](resumed)) == exitcodes.OK
    err = capsys.readouterr().err
    assert err.startswith(
        f"Removed {scratch / STALE}: a scratch folder of adhd-evals pid 4194305, which is no longer running.\n"
    )
    assert SAID[command].format(output=resumed / OUTPUT[command], spent="$0.0000") in err
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize("command", ["run", "judge"])
def test_in_a_process_of_its_own_the_sweep_looks_where_tmpdir_says(done: Path, command: str) -> None:
    """A fresh `adhd-evals` never loads tempfile on this path: the folder is found as tempfile
    finds it (TMPDIR first), and what a dead run left there is removed and named first."""
    scratch = done / "tmp"
    (scratch / STALE / "cwd").mkdir(parents=True)
    ran = subprocess.run(
        [sys.executable, "-m", "adhd_evals", *ARGV[command](done)],
        env={**os.environ, "TMPDIR": str(scratch)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == exitcodes.OK, ran.stderr
    assert ran.stderr.startswith(
        f"Removed {scratch / STALE}: a scratch folder of adhd-evals pid 4194305, which is no longer running.\n"
    )
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize("command", ["run", "judge"])
def test_a_resumed_command_counts_what_its_ledger_charged(
    resumed: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reservation of $0.50 never settled (its run was killed during the call) counts as
    charged: with the stub's rows at $0 each, the spend said is $0.5000. The reservation's scope
    is the command's: run's (baseline, stub), judge's (any condition, "" in its ledger, stub)."""
    condition = "baseline" if command == "run" else ""
    reservation = {"id": "1-1-1", "reserve": 0.5, "condition": condition, "runner": "stub"}
    ledger = resumed / f"{OUTPUT[command]}.ledger"
    ledger.write_text(json.dumps(reservation) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(ARGV[command](resumed)) == exitcodes.OK
    assert SAID[command].format(output=resumed / OUTPUT[command], spent="$0.5000") in capsys.readouterr().err


@pytest.mark.parametrize("command", ["run", "judge"])
def test_a_resumed_command_refuses_a_ledger_it_cannot_read(
    resumed: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ledger that is a folder holds what earlier runs were charged and cannot be read: refused
    (OUTPUT, 73), named, nothing said of rows."""
    ledger = resumed / f"{OUTPUT[command]}.ledger"
    ledger.mkdir()
    capsys.readouterr()
    assert main(ARGV[command](resumed)) == exitcodes.OUTPUT
    err = capsys.readouterr().err
    assert (
        f"{ledger}: the ledger beside the output cannot be read (it is a directory, not a regular file)"
        in err
    )
    assert "skipped" not in err


def test_temp_dir_is_tempfiles_own_where_it_is_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program that set tempfile.tempdir makes its calls' scratch there: so the sweep looks there."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert watchdog.temp_dir() == str(tmp_path)


def test_temp_dir_finds_the_folder_without_loading_tempfile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, "tempfile")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert watchdog.temp_dir() == str(tmp_path)
    assert "tempfile" not in sys.modules


TEMPFILES_OWN: Callable[[], str] = vars(tempfile)["_get_default_tempdir"]  # its search, uncached


def _environment(monkeypatch: pytest.MonkeyPatch, **values: str) -> None:
    for key in ("TMPDIR", "TEMP", "TMP"):
        monkeypatch.delenv(key, raising=False)
    for key, value in values.items():
        monkeypatch.setenv(key, value)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"TMPDIR": "a"}, "a"),  # the first that is set and usable
        ({"TMPDIR": "", "TEMP": "b"}, "b"),  # an empty value is no candidate
        ({"TMPDIR": "file", "TEMP": "missing", "TMP": "c"}, "c"),  # not a folder; no such folder
        ({"TMPDIR": "a/../b"}, "b"),  # made absolute (normalised), as tempfile does
    ],
)
def test_default_temp_dir_is_the_first_candidate_a_file_can_be_written_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, values: dict[str, str], expected: str
) -> None:
    """TMPDIR, TEMP, TMP in that order (relative to the working folder here), each tried by
    making and writing a file in it: a regular file or a missing folder is passed over. The
    probe's file is removed. tempfile's own search agrees."""
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
    (tmp_path / "file").write_text("", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    _environment(monkeypatch, **values)
    assert watchdog.default_temp_dir() == str(tmp_path / expected)
    assert TEMPFILES_OWN() == str(tmp_path / expected)
    assert [list((tmp_path / name).iterdir()) for name in ("a", "b", "c")] == [[], [], []]


def test_a_working_folder_gone_is_no_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The last candidate is the working folder; where it was removed, "." stands for it (as in
    tempfile), and the search goes on from the first."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    _environment(monkeypatch, TMPDIR=str(tmp_path))
    assert watchdog.default_temp_dir() == str(tmp_path)


def test_a_name_taken_is_passed_over_for_another(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe's name is drawn at random; a file of that name is left as it is, and another
    name is drawn: the folder is still usable, and nothing of the probe is left in it."""
    draws = iter([bytes(6), bytes([1] * 6)])
    monkeypatch.setattr(os, "urandom", lambda size: next(draws))
    taken = tmp_path / "tmp000000000000"
    taken.write_text("mine", encoding="utf-8")
    _environment(monkeypatch, TMPDIR=str(tmp_path))
    assert watchdog.default_temp_dir() == str(tmp_path)
    assert list(tmp_path.iterdir()) == [taken] and taken.read_text(encoding="utf-8") == "mine"


def test_a_folder_whose_every_name_is_taken_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """100 names drawn, each taken: as tempfile does, the next candidate."""
    monkeypatch.setattr(os, "urandom", lambda size: bytes(size))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "tmp000000000000").write_text("", encoding="utf-8")
    _environment(monkeypatch, TMPDIR=str(tmp_path / "a"), TEMP=str(tmp_path / "b"))
    assert watchdog.default_temp_dir() == str(tmp_path / "b")


def test_no_usable_folder_is_refused_as_tempfile_refuses_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watchdog, "_writable", lambda folder: False)
    with pytest.raises(FileNotFoundError) as raised:
        watchdog.default_temp_dir()
    assert raised.value.errno == errno.ENOENT
    assert str(raised.value.strerror).startswith("No usable temporary directory found in [")
