"""A source file's read refuses as it always did, now that the per-file work is cut (issue 38).

`read_bytes` no longer stats every file before reading it: it asks whether the path is a folder
once the read failed, so each refusal is checked here with the words it always had. `load_json`
parses with one decoder made once: a text still starting with a byte-order mark (a second one,
after decode_utf8 dropped the first) is refused with json.loads' own words.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adhd_evals.importing.model import Refusal, RefusalCode
from adhd_evals.importing.sourcetext import load_json, read_bytes


def _refused(path: Path) -> Refusal:
    with pytest.raises(Refusal) as caught:
        read_bytes(path, "shown.json")
    assert caught.value.code is RefusalCode.FILE_UNREADABLE
    assert caught.value.reason == "cannot be read"
    return caught.value


def test_a_file_is_read_whole(tmp_path: Path) -> None:
    """The bytes written are the bytes read (a BOM included: decoding is decode_utf8's)."""
    path = tmp_path / "evals.json"
    path.write_bytes(b'\xef\xbb\xbf{"evals": []}')
    assert read_bytes(path, "evals.json") == b'\xef\xbb\xbf{"evals": []}'


def test_a_folder_is_refused_as_a_folder(tmp_path: Path) -> None:
    """A folder opens on Linux and fails the regular-file check; the refusal names the folder as
    the is_dir question before the read did."""
    assert _refused(tmp_path).actual == "it is a directory, and this format reads one file"


def test_a_missing_file_is_refused_as_missing(tmp_path: Path) -> None:
    assert _refused(tmp_path / "gone.json").actual == "no such file"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_unread(tmp_path: Path) -> None:
    """files.py's words for what must not be read: the FIFO is never opened for a blocking read."""
    fifo = tmp_path / "evals.json"
    os.mkfifo(fifo)
    assert _refused(fifo).actual == "it is a FIFO (named pipe), not a regular file"


def test_another_os_error_is_refused_with_its_reason(tmp_path: Path) -> None:
    """A path through a regular file (`file/x`): open fails with ENOTDIR, "Not a directory", and
    the path is no folder, so the refusal carries the system's reason."""
    file = tmp_path / "file"
    file.write_text("{}", encoding="utf-8")
    refusal = _refused(file / "x")
    assert refusal.actual == "Not a directory"
    assert isinstance(refusal.__cause__, NotADirectoryError)


def test_a_text_left_with_a_byte_order_mark_is_refused_as_json_loads_refuses_it() -> None:
    """json.loads refuses a str starting with U+FEFF as "Unexpected UTF-8 BOM (decode using
    utf-8-sig)" at position 0, line 1 column 1 (where a decoder's decode would say "Expecting
    value")."""
    with pytest.raises(Refusal) as caught:
        load_json('\ufeff{"evals": []}', "evals.json")
    assert caught.value.actual == "Unexpected UTF-8 BOM (decode using utf-8-sig)"
    assert (caught.value.line, caught.value.column) == (1, 1)


def test_one_decoder_reads_file_after_file() -> None:
    """The decoder made once holds nothing between files: each text gives its own objects, and a
    duplicate key in the second is still refused after a clean first."""
    assert load_json('{"a": 1}', "one.json") == {"a": 1}
    assert load_json('{"a": [2, {"b": 3}]}', "two.json") == {"a": [2, {"b": 3}]}
    with pytest.raises(Refusal) as caught:
        load_json('{"a": 1, "a": 2}', "three.json")
    assert caught.value.actual == 'duplicate key "a" in one object (which one wins is undefined)'
