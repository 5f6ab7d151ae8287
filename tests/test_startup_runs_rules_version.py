"""Issue 38 item 1: the rules' version, which names a validated catalog's record, is a scandir walk
carrying each module's path from the package (no os.walk, no os.path.relpath per module): the same
bytes digested as before, so a record written before stays a record and an edited rule still
retires every record.

The expected digests are written out by hand from the rule in catalog.rules_version: the package's
version and Python's, then per module `path NUL size NUL mtime_ns` and a newline, a folder's modules
by name before its folders by name, never __pycache__, a linked folder or a file that is no module.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from adhd_evals import __version__, catalog
from adhd_evals.problem import Problem

ROW = '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}\n'


def _module(path: Path, text: str, mtime_ns: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(mtime_ns, mtime_ns))


def _expected(*lines: str) -> str:
    digest = hashlib.sha256(f"{__version__}\0{sys.version}\n".encode())
    for line in lines:
        digest.update(line.encode())
    return digest.hexdigest()


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """z.py and a.py (2 and 3 bytes), sub/b.py and sub/deep/c.py, b_dir/d.py; a module's bytecode,
    a text file, a link to sub and a link to itself, none of which is a module to digest."""
    root = tmp_path / "pkg"
    _module(root / "z.py", "Z\n", 5_000)
    _module(root / "a.py", "AA\n", 1_000)
    _module(root / "sub" / "b.py", "B\n", 2_000)
    _module(root / "sub" / "deep" / "c.py", "C = 1\n", 3_000)
    _module(root / "b_dir" / "d.py", "", 4_000)
    _module(root / "__pycache__" / "a.py", "not walked\n", 9)
    (root / "notes.txt").write_text("not a module")
    (root / "linked").symlink_to(root / "sub", target_is_directory=True)
    (root / "loop").symlink_to(root / "loop")  # os.walk counts it a file (is_dir fails): no module
    return root


def test_the_digest_is_each_module_in_os_walk_s_order(package: Path) -> None:
    """a.py before z.py (by name), then b_dir before sub, sub's module before sub/deep's; linked
    (a link to sub) not walked into, loop not a folder and no module."""
    version = catalog.rules_version.__wrapped__  # the digest itself, not the process's cache
    assert version(package) == _expected(
        "a.py\x003\x001000\n",
        "z.py\x002\x005000\n",
        f"b_dir{os.sep}d.py\x000\x004000\n",
        f"sub{os.sep}b.py\x002\x002000\n",
        f"sub{os.sep}deep{os.sep}c.py\x006\x003000\n",
    )


def test_a_folder_that_cannot_be_listed_adds_nothing(tmp_path: Path) -> None:
    """As os.walk skips a folder it cannot list: the version of a missing package is the header's."""
    assert catalog.rules_version.__wrapped__(tmp_path / "missing") == _expected()


def test_an_edited_rule_retires_the_record(
    package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same catalog, its record written under the rules as they were: after a rule module is
    rewritten (same size, new time) and after one is added, the rules run again each time (three
    runs, three records), and with nothing changed they do not (still three)."""
    version = catalog.rules_version.__wrapped__  # uncached: each load stats the package again
    monkeypatch.setattr(catalog, "rules_version", lambda: version(package))
    runs: list[int] = []
    real = catalog.validate_lines

    def counting(lines: Iterable[bytes | str]) -> tuple[int, list[Problem]]:
        runs.append(1)
        return real(lines)

    monkeypatch.setattr(catalog, "validate_lines", counting)
    cases, records = tmp_path / "cases.jsonl", tmp_path / "validated"
    cases.write_text(ROW, encoding="utf-8")
    catalog.load_valid_once(cases, records)
    _module(package / "sub" / "deep" / "c.py", "C = 2\n", 3_001)
    catalog.load_valid_once(cases, records)
    _module(package / "sub" / "e.py", "E\n", 6_000)
    catalog.load_valid_once(cases, records)
    catalog.load_valid_once(cases, records)
    assert (len(runs), len(list(records.glob("*.valid")))) == (3, 3)
