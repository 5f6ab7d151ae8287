"""Issue 38 item 4: a catalog is validated once per content and rules, not per run or shard.

`catalog.load_valid_once` keeps a record named by a SHA-256 over the rules' version and the
catalog's bytes; with it, a run only parses the catalog. These tests hold that the record
never lets a changed catalog (or changed rules) skip the rules, and that the cases and the
refusals are load_valid's, byte for byte.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adhd_evals import catalog, exitcodes
from adhd_evals.catalog import CaseRow
from adhd_evals.entry import main
from adhd_evals.errors import InputInvalid, UsageError

ROW = {"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}


def _line(**fields: Any) -> str:
    return json.dumps({**ROW, **fields}) + "\n"


@pytest.fixture
def records(tmp_path: Path) -> Path:
    return tmp_path / "validated"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the rules ran (catalog.validate_lines, through which the rules run)."""
    calls: list[int] = []
    real = catalog.validate_lines

    def counting(lines: Any) -> tuple[int, list[Any]]:
        calls.append(1)
        return real(lines)

    monkeypatch.setattr(catalog, "validate_lines", counting)
    return calls


def test_the_rules_run_once_per_content(tmp_path: Path, records: Path, counted: list[int]) -> None:
    """First load: the rules run and one record is written; the second: parsed only."""
    path = tmp_path / "cases.jsonl"
    path.write_text(_line(id="a") + _line(id="b"))
    first = catalog.load_valid_once(path, records)
    assert (len(counted), len(list(records.glob("*.valid")))) == (1, 1)
    second = catalog.load_valid_once(path, records)
    assert len(counted) == 1
    assert first == second == [{**ROW, "id": "a"}, {**ROW, "id": "b"}]


def test_an_edited_catalog_is_validated_again_and_refused(
    tmp_path: Path, records: Path, counted: list[int]
) -> None:
    """The record of the old content does not cover the new: the rules run, E107 refuses."""
    path = tmp_path / "cases.jsonl"
    path.write_text(_line(id="a"))
    catalog.load_valid_once(path, records)
    path.write_text(_line(id="a", risk="extreme"))
    with pytest.raises(InputInvalid) as refused:
        catalog.load_valid_once(path, records)
    assert len(counted) == 2
    assert refused.value.problems == _refusal(path)


def test_equal_rows_from_other_bytes_are_validated_again(tmp_path: Path, records: Path) -> None:
    """A duplicate key parses (last wins) to the very rows of the recorded catalog; the record
    is of bytes, not rows, so E109 still refuses the edited file."""
    path = tmp_path / "cases.jsonl"
    path.write_text(_line(id="a"))
    catalog.load_valid_once(path, records)
    path.write_text(
        '{"id": "a", "id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}\n'
    )
    assert catalog._parsed(path.read_bytes()) == [ROW]
    with pytest.raises(InputInvalid) as refused:
        catalog.load_valid_once(path, records)
    assert refused.value.problems == _refusal(path)
    assert refused.value.problems == [f'{path}:1:13: E109 duplicate key "id" in one object']


def test_other_rules_do_not_use_the_record(
    tmp_path: Path, records: Path, counted: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same bytes under another rules' version: validated again, and recorded apart."""
    path = tmp_path / "cases.jsonl"
    path.write_text(_line())
    catalog.load_valid_once(path, records)
    monkeypatch.setattr(catalog, "rules_version", lambda: "other rules")
    catalog.load_valid_once(path, records)
    assert len(counted) == 2
    assert len(list(records.glob("*.valid"))) == 2


def test_rules_version_follows_each_module_s_size_and_time(tmp_path: Path) -> None:
    """A stat per module: a new mtime or size is a new version; bytecode and other files are not."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "a.py").write_text("A = 1\n")
    (package / "sub" / "b.py").write_text("B = 1\n")
    version = catalog.rules_version.__wrapped__  # the digest itself, not the process's cache
    before = version(package)
    assert version(package) == before
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    (package / "notes.txt").write_text("not a module")
    assert version(package) == before
    os.utime(package / "sub" / "b.py", ns=(1, 1))
    touched = version(package)
    assert touched != before
    (package / "a.py").write_text("A = 10\n")
    assert version(package) not in (before, touched)


def test_an_unwritable_record_folder_costs_the_rules_never_the_cases(
    tmp_path: Path, counted: list[int]
) -> None:
    """A file where the record folder should be: the cases all the same, the rules every time."""
    path = tmp_path / "cases.jsonl"
    path.write_text(_line())
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, not a folder")
    assert catalog.load_valid_once(path, blocked / "validated") == [ROW]
    assert catalog.load_valid_once(path, blocked / "validated") == [ROW]
    assert len(counted) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocked", "cases.jsonl"]


def test_a_record_that_is_not_a_file_is_no_record(tmp_path: Path, records: Path, counted: list[int]) -> None:
    """A folder at the record's name (nothing a run writes): validated, and nothing served."""
    path = tmp_path / "cases.jsonl"
    path.write_text(_line())
    catalog.load_valid_once(path, records)
    (record,) = records.glob("*.valid")
    record.unlink()
    record.mkdir()
    assert catalog.load_valid_once(path, records) == [ROW]
    assert len(counted) == 2


def test_the_rules_reading_stands_where_the_plain_parse_cannot_read(
    tmp_path: Path, records: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should the plain parse ever fail on a catalog the rules pass, load_valid's cases stand
    (read by load_valid itself) and no record is written."""
    path = tmp_path / "cases.jsonl"
    path.write_text(_line())
    monkeypatch.setattr(catalog, "_parsed", lambda data: None)
    assert catalog.load_valid_once(path, records) == [ROW]
    assert not records.exists()


def test_a_missing_or_unreadable_catalog_is_said_as_load_valid_says_it(tmp_path: Path, records: Path) -> None:
    with pytest.raises(UsageError, match=r"cases.jsonl: no such catalog \(pass --cases\)$"):
        catalog.load_valid_once(tmp_path / "cases.jsonl", records)
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    with pytest.raises(
        UsageError, match=r"folder.jsonl: cannot be read: it is a directory, not a regular file"
    ):
        catalog.load_valid_once(folder, records)


def test_parsed_reads_lines_as_the_rules_do() -> None:
    """Blank lines skipped (ASCII and Unicode's: a line of U+00A0 and one of U+3000); a CR
    inside a line does not split it; a line that is not one JSON object is None."""
    data = b'{"a": 1}\r\n\n   \n\xc2\xa0\n\xe3\x80\x80\n{"b": "x\\ry"}\n{"c": 2}'
    assert catalog._parsed(data) == [{"a": 1}, {"b": "x\ry"}, {"c": 2}]
    assert catalog._parsed(b'{"a": 1}\n[1]\n') is None
    assert catalog._parsed(b'{"a": 1}\n{"b"\n') is None
    assert catalog._parsed(b"\xff\n") is None


def _refusal(path: Path) -> list[str]:
    with pytest.raises(InputInvalid) as refused:
        catalog.load_valid(path)
    return list(refused.value.problems)


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6)
_VALUE = st.one_of(_TEXT, st.integers(-3, 3), st.none(), st.lists(_TEXT, max_size=2))
_FIELD = st.sampled_from(["id", "category", "prompt", "risk", "criteria", "extra"])
_ROW = st.dictionaries(_FIELD, _VALUE, max_size=6) | st.builds(
    lambda case_id, risk, criteria: {**ROW, "id": case_id, "risk": risk, "criteria": criteria},
    _TEXT,
    st.sampled_from(["low", "medium", "high", "LOW"]),
    st.lists(_TEXT, max_size=2),
)
_LINE = st.one_of(
    _ROW.map(lambda row: json.dumps(row, ensure_ascii=False)),
    _ROW.map(json.dumps),
    st.sampled_from(["", "   ", "\u00a0", "[1]", '{"id": ', '{"id": "a", "id": "a"}', "\ufeff{}"]),
)


@pytest.mark.long
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_LINE, max_size=5), ending=st.sampled_from(["\n", "\r\n"]))
def test_cases_and_refusals_are_load_valid_s(tmp_path: Path, lines: list[str], ending: str) -> None:
    """Over catalogs valid and not: the same cases on the first load (the rules run) and the
    second (a record, where there is one), or the same refusal, line for line."""
    path = tmp_path / "cases.jsonl"
    path.write_bytes(ending.join(lines).encode("utf-8"))
    records = tmp_path / f"validated-{os.urandom(4).hex()}"
    try:
        expected: list[CaseRow] | list[str] = catalog.load_valid(path)
    except InputInvalid as exc:
        expected = list(exc.problems)
    for _ in range(2):
        try:
            got: list[CaseRow] | list[str] = catalog.load_valid_once(path, records)
        except InputInvalid as exc:
            got = list(exc.problems)
        assert got == expected


def test_a_run_of_an_edited_catalog_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Through the CLI: a run records the catalog; after an edit that breaks a rule, the next
    run is refused (exit 4) with load_valid's words, and writes no row."""
    path = tmp_path / "cases.jsonl"
    path.write_text(_line(id="a"))
    out = tmp_path / "out.jsonl"
    argv = ["run", "--runner", "stub", "--condition", "baseline", "--cases", str(path), "--trials", "1"]
    assert main([*argv, "--output", str(out)]) == exitcodes.OK
    assert list((Path(os.environ["XDG_CACHE_HOME"]) / "adhd-evals" / "validated").glob("*.valid"))
    path.write_text(_line(id="a") + _line(id="a"))
    capsys.readouterr()
    assert main([*argv, "--output", str(tmp_path / "again.jsonl")]) == exitcodes.INPUT
    assert "duplicate" in capsys.readouterr().err
    assert not (tmp_path / "again.jsonl").exists() or (tmp_path / "again.jsonl").read_text() == ""
