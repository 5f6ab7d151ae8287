"""A check module whose trace checks an earlier text wrote is re-imported onto today's.

`_js_regex` was split under complexity 10 (issue 36), which changed the trace checks every
module with a trace check carries; their text before that is kept in importing/released/ so
a re-import still tells the old block as generated when a person edited it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from adhd_evals.importing import checkgen
from adhd_evals.importing.importer import Request, import_sources
from helpers import ROOT

RELEASED = ROOT / "src" / "adhd_evals" / "importing" / "released"
OLD_TRACES = RELEASED / "0.3.0.dev0-tracehelpers.txt"
FIXTURE = ROOT / "fixtures" / "trigger-list" / "good" / "two-lists" / "triggers.json"

# A person's line in the trace checks, at a place today's text leaves as it was.
ANCHOR = "TRACE: Any = None  # the trace of the response being checked; `check` sets it per row\n"
MINE = "SEEN: list[str] = []  # mine: the tools a debugging session looked at\n"


def _import(source: Path, out: Path | None) -> str:
    return import_sources("trigger-list", [source], Request(out=out)).module


def test_an_edited_old_trace_block_is_carried_onto_today_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By hand: the module on disk holds the old trace checks (one `_js_regex` loop, no
    `_js_piece`) with the person's line after TRACE. Its preamble's fingerprint no longer
    holds, so the import rebuilds what it generated (helpers plus the released trace text),
    merges the person's line onto today's text, and writes today's marker: the result is
    exactly today's fresh module with that one line added after TRACE."""
    source = tmp_path / "triggers.json"
    shutil.copyfile(FIXTURE, source)
    out = tmp_path / "evals"
    old = OLD_TRACES.read_text(encoding="utf-8")
    with monkeypatch.context() as earlier:
        earlier.setattr(checkgen, "trace_helpers", lambda: old)
        _import(source, out)
    module = out / "checks.py"
    text = module.read_text(encoding="utf-8")
    assert old.rstrip("\n") + "\n\n\n# adhd-evals: preamble" in text and "_js_piece" not in text
    assert text.count(ANCHOR) == 1
    module.write_text(text.replace(ANCHOR, ANCHOR + MINE), encoding="utf-8")

    _import(source, out)

    fresh = _import(source, None)
    assert "def _js_piece(" in fresh
    assert module.read_text(encoding="utf-8") == fresh.replace(ANCHOR, ANCHOR + MINE)
