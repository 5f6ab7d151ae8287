"""A generated check a person rewrote into any shape is theirs: a re-import of the same source
keeps it verbatim (the importer must not mistake it for its own and regenerate it), and a
star import added to the preamble is kept without a guess at what it defines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adhd_evals.entry import main

SOURCE = {
    "skill_name": "s",
    "evals": [
        {
            "id": 1,
            "prompt": "p",
            "assertions": [{"text": "Names it", "kind": "content_contains_any", "needles": ["it"]}],
        }
    ],
}
GENERATED = '    return contains_any(answer, ["it"])'


def _import(tmp_path: Path) -> Path:
    source = tmp_path / "evals.json"
    source.write_text(json.dumps(SOURCE))
    out = tmp_path / "evals"
    assert main(["import", "--format", "evals-json", str(source), "--out", str(out)]) == 0
    return out / "checks.py"


@pytest.mark.parametrize(
    "body",
    [
        pytest.param('    found = "it" in answer\n    return found', id="two statements"),
        pytest.param("    return True  # mine", id="a return that is no call"),
        pytest.param('    return answer.startswith("it")', id="a method call"),
        pytest.param("    return contains_any(answer, NEEDLES)", id="an argument that is a name"),
        pytest.param(
            '    return contains_any(answer, ["it"], ignore_case=CASE)', id="an option that is a name"
        ),
    ],
)
def test_a_check_rewritten_into_any_shape_survives_a_reimport(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str
) -> None:
    module = _import(tmp_path)
    text = module.read_text()
    assert text.count(GENERATED) == 1
    module.write_text(text.replace(GENERATED, body))
    _import(tmp_path)
    after = module.read_text()
    assert after.count(body) == 1 and GENERATED not in after


def test_a_star_import_added_to_the_preamble_is_kept(tmp_path: Path) -> None:
    """`from string import *` makes what the preamble defines untellable: the re-import does
    not refuse on a guess, and the line stays where the person put it."""
    module = _import(tmp_path)
    text = module.read_text()
    marker = text.index("# adhd-evals: preamble")
    edited = text[:marker] + "from string import *  # mine\n" + text[marker:]
    module.write_text(edited)
    _import(tmp_path)
    assert module.read_text().count("from string import *  # mine\n") == 1
