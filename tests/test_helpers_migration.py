"""A check module written before today's helpers is re-imported onto them, losing nothing.

The helpers of a module imported without a dialect changed (checkhelpers.py: a single string
is one needle; contains_* take ignore_case). A module on disk holds the block an earlier
version wrote; a re-import recognises it (as written, or edited by a person: the earlier
texts are kept in importing/released/) and writes today's, and every line a person wrote
stays byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adhd_evals.entry import main
from adhd_evals.importing import checkgen
from adhd_evals.importing.importer import Request, import_sources
from helpers import ROOT

RELEASED = ROOT / "src" / "adhd_evals" / "importing" / "released"
# The plain helpers as 0.2.0 wrote them, and as every version since until this change.
OLD_HELPERS = [
    pytest.param(RELEASED / name, id=name) for name in ("0.2.0-helpers.txt", "0.3.0.dev0-helpers.txt")
]

REFUNDS = {"text": "Mentions refunds", "kind": "content_contains_any", "needles": ["refund", "money back"]}
BEFORE = [
    {"id": 1, "prompt": "Summarise the refund policy", "assertions": [REFUNDS]},
    {"id": 2, "prompt": "Write release notes", "assertions": ["Names the version"]},
]

# A person's work on the module: an edited generated check, a check of their own beside a
# generated one, and a helper after the last marker.
EDITED = ('    return unwritten("Names the version")\n', '    return "2." in answer  # mine: a version\n')
ADDED_AFTER = '    return contains_any(answer, ["refund", "money back"])\n'
MINE = """

@check("notes-1", "Mine: names the window in days")
def mine_names_the_window(answer: str) -> bool:
    return contains_any(answer, "days") and says_refund(answer)
"""
TRAILING = """

def says_refund(answer: str) -> bool:
    return contains_all(answer, ("refund",))  # mine, after the last marker
"""


def _source(tmp_path: Path, evals: list[dict[str, Any]]) -> Path:
    path = tmp_path / "evals.json"
    path.write_text(json.dumps({"skill_name": "notes", "evals": evals}), encoding="utf-8")
    return path


def _import(tmp_path: Path, evals: list[dict[str, Any]], out: Path | None) -> Any:
    """Import `evals` (from one source path, so every module's header names the same source);
    with `out` None, the module is made and nothing is written."""
    return import_sources("evals-json", [_source(tmp_path, evals)], Request(out=out))


def _by_a_person(module: str) -> str:
    """The person's three changes, each at a place that exists once."""
    assert module.count(EDITED[0]) == 1 and module.count(ADDED_AFTER) == 1
    module = module.replace(EDITED[0], EDITED[1]).replace(ADDED_AFTER, ADDED_AFTER + MINE)
    return module + TRAILING


def _old_module(tmp_path: Path, helpers: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The module an earlier version wrote (its helpers the kept text), then edited by a person."""
    out = tmp_path / "evals"
    with monkeypatch.context() as earlier:
        earlier.setattr(checkgen, "HELPERS", helpers.read_text(encoding="utf-8"))
        _import(tmp_path, BEFORE, out)
    module = out / "checks.py"
    text = module.read_text(encoding="utf-8")
    assert helpers.read_text(encoding="utf-8").rstrip("\n") + "\n\n\n# adhd-evals: preamble" in text
    module.write_text(_by_a_person(text), encoding="utf-8")
    return module


def _registered(text: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(text, "checks.py", "exec"), namespace)
    return {fn.__name__: fn for checks in namespace["CHECKS"].values() for _, fn in checks}


@pytest.mark.parametrize("helpers", OLD_HELPERS)
def test_the_old_helper_block_is_replaced_and_every_hand_written_line_stays(
    tmp_path: Path, helpers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By hand: the old preamble is untouched (its fingerprint holds), so it is regenerated as
    today's; the region where the person added a check beside the untouched generated one has
    the generated function regenerated (the same text) and the person's lines kept; the edited
    check is kept with its marker; the trailing helper stays at the end. So the result is
    exactly today's fresh module with the same three changes made to it."""
    module = _old_module(tmp_path, helpers, monkeypatch)
    outcome = _import(tmp_path, BEFORE, module.parent)
    fresh = _import(tmp_path, BEFORE, None).module
    after = module.read_text(encoding="utf-8")
    assert after == _by_a_person(fresh)
    assert checkgen.HELPERS.rstrip("\n") + "\n\n\n# adhd-evals: preamble" in after
    assert outcome.merge_report.regenerated >= 1  # the preamble among them
    again = _import(tmp_path, BEFORE, module.parent)  # and it is stable from then on
    assert again.module == after


@pytest.mark.parametrize("helpers", OLD_HELPERS)
def test_a_hand_added_check_means_one_needle_once_migrated(
    tmp_path: Path, helpers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By hand: the person's check calls contains_any(answer, "days"). Under the old helpers
    "days" was its letters d, a, y, s, so "Refund: a day" passed; under today's it is one
    needle, and "a day" does not contain "days": it fails; "refund within 30 days" passes."""
    module = _old_module(tmp_path, helpers, monkeypatch)
    before = _registered(module.read_text(encoding="utf-8"))["mine_names_the_window"]
    assert before("Refund: a day") is True
    _import(tmp_path, BEFORE, module.parent)
    after = _registered(module.read_text(encoding="utf-8"))["mine_names_the_window"]
    assert after("Refund: a day") is False
    assert after("A refund within 30 days.") is True


@pytest.mark.parametrize("helpers", OLD_HELPERS)
def test_the_migrated_module_lints_clean(
    tmp_path: Path, helpers: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """By hand: every criterion has a written check (the one unwritten check was edited), so
    lint finds nothing: no error, no warning, exit 0."""
    module = _old_module(tmp_path, helpers, monkeypatch)
    _import(tmp_path, BEFORE, module.parent)
    capsys.readouterr()
    assert main(["lint", str(module.parent)]) == 0
    assert "0 errors, 0 warnings" in capsys.readouterr().out


@pytest.mark.parametrize("helpers", OLD_HELPERS)
def test_a_reworded_criterion_follows_while_the_helpers_migrate(
    tmp_path: Path, helpers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By hand: the source rewords "Names the version" to "Names the Version." (the same
    once letter case and punctuation are set aside), so the person's edited check follows it:
    its @check names the new criterion, its body stays byte for byte; the preamble becomes
    today's in the same import, and the person's other lines stay once each."""
    module = _old_module(tmp_path, helpers, monkeypatch)
    reworded = [BEFORE[0], {**BEFORE[1], "assertions": ["Names the Version."]}]
    outcome = _import(tmp_path, reworded, module.parent)
    after = module.read_text(encoding="utf-8")
    assert len(outcome.merge_report.retargeted) == 1
    assert '@check("notes-2", "Names the Version.")' in after and '"Names the version"' not in after
    assert after.count(EDITED[1]) == after.count(MINE) == after.count(TRAILING) == 1
    assert after.endswith(TRAILING)
    assert checkgen.HELPERS.rstrip("\n") + "\n\n\n# adhd-evals: preamble" in after


@pytest.mark.parametrize("helpers", OLD_HELPERS)
def test_an_edited_old_preamble_takes_today_s_helpers_and_keeps_the_person_s_lines(
    tmp_path: Path, helpers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By hand: the person added an import and a helper inside the old preamble, on lines
    the new helpers leave alone (after `import string`; before `def unwritten`). The
    re-import finds what it generated (the kept old text), merges three ways: today's
    helpers, the person's two additions once each, and the old contains_any gone."""
    module = _old_module(tmp_path, helpers, monkeypatch)
    mine_import = "import textwrap  # mine"
    mine_helper = 'def shout(text: str) -> str:\n    return text.upper() + "!"'
    text = module.read_text(encoding="utf-8")
    text = text.replace("import string\n", f"import string\n{mine_import}\n", 1)
    text = text.replace("\n\ndef unwritten(", f"\n\n{mine_helper}\n\n\ndef unwritten(", 1)
    module.write_text(text, encoding="utf-8")
    _import(tmp_path, BEFORE, module.parent)
    after = module.read_text(encoding="utf-8")
    assert after.count(mine_import) == 1 and after.count(mine_helper) == 1
    assert "def contains_any(answer: str, needles: list[str])" not in after
    preamble = after.split("\n# adhd-evals: preamble ", 1)[0]
    for line in checkgen.HELPERS.splitlines():
        assert line in preamble.splitlines()
    assert after.count(MINE) == after.count(TRAILING) == 1
    assert _registered(after)["mine_names_the_window"]("Refund: a day") is False
