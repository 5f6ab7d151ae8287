"""catalog.sha256_hex: the SHA-256 the validated catalogs' records are named by, from hashlib
(OpenSSL) where hashlib is loaded or the data is large, else from CPython's builtin SHA-256,
which spares a small call loading OpenSSL. The digest is SHA-256's whichever computes it: the
expected values are the standard's published test vectors (FIPS 180-2's "abc" and one million
"a", and the empty message's), not what the code under test says."""

from __future__ import annotations

import sys

import pytest

from adhd_evals import catalog

EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
MILLION_A = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"


@pytest.fixture
def unloaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that has not loaded hashlib yet (it is put back after the test)."""
    monkeypatch.delitem(sys.modules, "hashlib", raising=False)


@pytest.mark.usefixtures("unloaded")
@pytest.mark.parametrize(("data", "expected"), [(b"", EMPTY), (b"abc", ABC)])
def test_small_data_is_hashed_without_loading_hashlib(data: bytes, expected: str) -> None:
    assert catalog.sha256_hex(data) == expected
    assert "hashlib" not in sys.modules


@pytest.mark.usefixtures("unloaded")
def test_large_data_is_hashed_by_hashlib() -> None:
    """One million bytes, past SMALL (256 KiB): OpenSSL's, loaded for it."""
    assert catalog.sha256_hex(b"a" * 1_000_000) == MILLION_A
    assert "hashlib" in sys.modules


def test_where_hashlib_is_loaded_it_hashes_small_data_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """hashlib is loaded in this process (pytest's own imports): the builtin is never looked for."""

    def looked_for() -> None:
        raise AssertionError("the builtin SHA-256 was looked for")

    monkeypatch.setattr(catalog, "_builtin_sha256", looked_for)
    assert "hashlib" in sys.modules
    assert catalog.sha256_hex(b"abc") == ABC


@pytest.mark.usefixtures("unloaded")
def test_a_python_built_without_its_own_sha256_uses_hashlib(monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither `_sha256` (to 3.11) nor `_sha2` (from 3.12) importable (None in sys.modules makes
    an import fail): hashlib's digest, the same."""
    monkeypatch.setitem(sys.modules, "_sha256", None)
    monkeypatch.setitem(sys.modules, "_sha2", None)
    assert catalog.sha256_hex(b"abc") == ABC
    assert "hashlib" in sys.modules
