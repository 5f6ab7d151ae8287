"""Issue 38 item 2 (perf-checkgen): a re-import keeps the marker of a region generated again
exactly as it was, instead of hashing its text a second time, and only then.

What a re-import writes must not change: a region regenerated as it was, a region a formatter
only reformatted (its marker carries the fingerprint of an older layout), and a marker whose kind
a person changed are all written as a fresh import writes them. The expected module is a fresh
import's into another folder; the older layout's fingerprint is worked from its definition
(blake2s, 8 bytes, of the text as that layout wrote it).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from adhd_evals.importing.importer import Request, import_sources

CHECK_MARKER = re.compile(r"^# adhd-evals: check (\S+) ([0-9a-f]{16})$", re.MULTILINE)


def _source(tmp_path: Path) -> Path:
    path = tmp_path / "evals.json"
    evals = [
        {"id": 1, "prompt": "Write notes", "assertions": ["Says hi", "Names the flag"]},
        {"id": 2, "prompt": "Explain it", "assertions": ["Says hi"]},
    ]
    path.write_text(json.dumps({"skill_name": "notes", "evals": evals}), encoding="utf-8")
    return path


def _imported(tmp_path: Path, folder: str) -> Path:
    import_sources("evals-json", [_source(tmp_path)], Request(out=tmp_path / folder))
    return tmp_path / folder / "checks.py"


def test_an_unchanged_module_is_written_again_byte_for_byte(tmp_path: Path) -> None:
    """Every region is generated again as it was: the file is the same bytes."""
    module = _imported(tmp_path, "evals")
    first = module.read_bytes()
    assert _imported(tmp_path, "evals").read_bytes() == first


def test_a_reformatted_check_gets_todays_fingerprint_back(tmp_path: Path) -> None:
    """A check whose text is today's layout but whose marker holds the fingerprint of the layout
    before (repr quotes: a formatter turned that layout into today's) is regenerated with today's
    fingerprint, as a fresh import writes it; its old marker is not kept."""
    module = _imported(tmp_path, "evals")
    text = module.read_text(encoding="utf-8")
    today = '@check("notes-1", "Says hi")\ndef check_notes_1_'
    start = text.index(today)
    end = text.index("\n\n\n# adhd-evals: check", start)
    written = text[start:end]  # the decorator, the def and the return of one check
    before = written.replace('"', "'")
    older = hashlib.blake2s(before.encode("utf-8"), digest_size=8).hexdigest()
    marker = CHECK_MARKER.search(text, end)
    assert marker is not None
    aged = text[: marker.start(2)] + older + text[marker.end(2) :]
    module.write_text(aged, encoding="utf-8")
    assert _imported(tmp_path, "evals").read_bytes() == _imported(tmp_path, "fresh").read_bytes()


def test_a_check_marker_renamed_case_is_written_as_a_check_again(tmp_path: Path) -> None:
    """A person changed a check's marker to say `case`: its text still hashes to the fingerprint,
    but the marker is not the one the import writes, so the fresh marker replaces it."""
    module = _imported(tmp_path, "evals")
    text = module.read_text(encoding="utf-8")
    marker = CHECK_MARKER.search(text)
    assert marker is not None
    module.write_text(
        text[: marker.start()] + marker.group(0).replace(" check ", " case ", 1) + text[marker.end() :]
    )
    assert _imported(tmp_path, "evals").read_bytes() == _imported(tmp_path, "fresh").read_bytes()
