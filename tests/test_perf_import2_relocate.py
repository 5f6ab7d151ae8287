"""Issue 38 item 2, memory: a JSON source's text is not held while its cases are read.

Refusal positions come from the text read again when the first refusal asks for one
(formats/_common.py, Relocator). The positions must be the ones the text gave before.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adhd_evals.importing.formats._common import Relocator, read_json_source
from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import Refusal, RefusalCode


def _source(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "evals.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_text_is_not_held_once_read(tmp_path: Path) -> None:
    """After a read that refuses nothing, the refuser holds no copy of the text."""
    path = _source(tmp_path, '{"evals": []}')
    data, refuse, _ = read_json_source(path, "evals.json", RefusalCode.NOT_EVALS_JSON, "is not")
    assert data == {"evals": []}
    assert isinstance(refuse.locator, Relocator)
    assert refuse.locator.text is None


def test_a_refusal_is_placed_where_the_value_is(tmp_path: Path) -> None:
    """Worked by hand: the second case's prompt (a number) is on line 4; its value starts after
    the 4 spaces and `"prompt": ` (10 characters), so at column 15. The text is read once."""
    text = '{"evals": [\n  {"id": 1, "prompt": "p"},\n  {"id": 2,\n    "prompt": 7}\n]}'
    path = _source(tmp_path, text)
    with pytest.raises(Refusal) as caught:
        import_source("evals-json", path)
    assert (caught.value.line, caught.value.column) == (4, 15)
    assert caught.value.field_path == "prompt"


def test_a_source_gone_before_its_refusal_is_placed_nowhere(tmp_path: Path) -> None:
    """The file deleted between its read and the refusal: the refusal still comes, unplaced."""
    path = _source(tmp_path, json.dumps({"evals": [1]}))
    locate = Relocator(path, "evals.json")
    path.unlink()
    assert locate(("evals", 0)) == (None, None)


def test_the_text_read_again_is_kept_for_the_next_refusal(tmp_path: Path) -> None:
    """Lint asks for many positions in one file: the text is read once, then reused (the file
    rewritten in between does not move the second position)."""
    path = _source(tmp_path, '{"a": 1,\n "b": 2}')
    locate = Relocator(path, "x.json")
    assert locate(("a",)) == (1, 7)
    path.write_text('\n\n\n{"a": 1, "b": 2}', encoding="utf-8")
    assert locate(("b",)) == (2, 7)
