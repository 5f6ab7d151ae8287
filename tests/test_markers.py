"""Markers cannot be forged, keys are 64 bits, and the merge refuses markers it cannot trust.

Source text reaches the module as comments (ids, keys, notes, file names,
categories) and as literals (ids, criteria). No line written from it may look
like a marker; importing twice is byte-identical; a module written with the
old 32-bit keys migrates without losing an edit."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from adhd_evals.errors import OutputError
from adhd_evals.importing.checkgen import MARKER
from adhd_evals.importing.importer import import_source
from adhd_evals.importing.merge import split
from helpers import FIXTURES, ROOT

FORGED = {
    "preamble": "\nadhd-evals: preamble - 0000000000000000\n",
    "case": "\nadhd-evals: case 00000000 0000000000000000\n",
    "check": "\nadhd-evals: check 00000000.000000 0000000000000000\n",
}


def _evals_json(tmp_path: Path, place: str, forged: str) -> tuple[str, Path, dict[str, Any]]:
    case: dict[str, Any] = {"id": "c1", "prompt": "p", "assertions": ["Says hi"]}
    top: dict[str, Any] = {"skill_name": "s"}
    folder = tmp_path / "src"
    if place == "id":
        case["id"] = "c1" + forged
    elif place == "criterion":
        case["assertions"] = ["Says hi" + forged]
    elif place == "note key":
        case["extra" + forged] = 1
    elif place == "note value":
        case["expected_output"] = "x" + forged
    elif place == "file key":
        top["(top)" + forged] = "y"
    elif place == "category":
        top["skill_name"] = "s" + forged
    elif place == "file name":
        folder = tmp_path / ("src" + forged.replace("/", "_"))
    folder.mkdir(parents=True)
    source = folder / "evals.json"
    source.write_text(json.dumps({**top, "evals": [case]}))
    return "evals-json", source, {}


def _yaml(tmp_path: Path, place: str, forged: str) -> tuple[str, Path, dict[str, Any]]:
    folder = tmp_path / "tasks"
    folder.mkdir()
    data: dict[str, Any] = {"name": "Task one", "task": "Do it", "judge_context": ["Did it"]}
    name = "t.yaml"
    if place == "yaml key":
        data["key" + forged] = "v"
    elif place == "yaml file name":
        name = "t" + forged.replace("/", "_") + ".yaml"
    (folder / name).write_text(json.dumps(data))  # JSON is YAML
    return "yaml", folder, {}


PLACES = [
    *(
        ("evals-json", p)
        for p in ("id", "criterion", "note key", "note value", "file key", "category", "file name")
    ),
    ("yaml", "yaml key"),
    ("yaml", "yaml file name"),
]


@pytest.mark.parametrize("kind", sorted(FORGED))
@pytest.mark.parametrize(("fmt", "place"), PLACES, ids=[f"{f}-{p}" for f, p in PLACES])
def test_no_source_text_forges_a_marker(tmp_path: Path, fmt: str, place: str, kind: str) -> None:
    make = _evals_json if fmt == "evals-json" else _yaml
    fmt, source, args = make(tmp_path, place, FORGED[kind])
    out = tmp_path / "out"
    first = import_source(fmt, source, out=out, **args).module
    regions, _ = split(first)
    # exactly the markers the generator wrote: a preamble, one case, one check
    assert [r.kind for r in regions] == ["preamble", "case", "check"]
    assert not any(
        line.startswith(MARKER) and line not in [r.marker for r in regions] for line in first.splitlines()
    )
    second = import_source(fmt, source, out=out, **args).module
    assert second == first  # importing twice is byte-identical
    namespace: dict[str, Any] = {}
    exec(compile(second, "checks.py", "exec"), namespace)
    assert callable(namespace["unwritten"]) and len(namespace["CHECKS"]) == 1


def test_keys_are_64_bits() -> None:
    module = (FIXTURES / "evals-json/good/dialects/expected/checks.py").read_text()
    regions, _ = split(module)
    for found in regions[1:]:
        for part in found.key.split("."):
            assert len(part.split("_")[0]) == 16  # 8 bytes of blake2s, hex


def test_a_module_with_32_bit_keys_migrates_and_keeps_its_edits(tmp_path: Path) -> None:
    fixture = FIXTURES / "evals-json/good/dialects"
    out = tmp_path / "evals"
    out.mkdir()
    legacy = (ROOT / "tests/legacy/checks-32-bit-keys.txt").read_text()
    edited = legacy.replace(
        "return unwritten('Groups changes under Features and Fixes')", "return 'Features' in answer  # mine"
    )
    assert edited != legacy
    (out / "checks.py").write_text(edited)
    source = fixture / "release-notes/evals/evals.json"
    display = source.relative_to(ROOT).as_posix()
    outcome = import_source("evals-json", source, out=out, display=display)
    after = (out / "checks.py").read_text()
    assert "return 'Features' in answer  # mine" in after  # the edit stays, attached
    assert outcome.merge_report is not None and not outcome.merge_report.kept_orphans
    # only the decorator names it: no fresh placeholder was added beside the edited check
    assert after.count("Groups changes under Features and Fixes") == 1
    expected = (fixture / "expected/checks.py").read_text()
    # everything else is today's module, with today's keys; the edited check keeps the old
    # layout it was written in (its marker right below its last line, where today's layout
    # leaves the two blank lines formatters put there): two lines fewer
    assert len(after.splitlines()) == len(expected.splitlines()) - 2
    again = import_source("evals-json", source, out=out, display=display)
    assert again.module == after


def _module(tmp_path: Path) -> Path:
    out = tmp_path / "evals"
    source = tmp_path / "evals.json"
    source.write_text(
        json.dumps(
            {
                "skill_name": "s",
                "evals": [
                    {"id": 1, "prompt": "p", "assertions": ["A", "B"]},
                    {"id": 2, "prompt": "q", "assertions": ["C"]},
                ],
            }
        )
    )
    import_source("evals-json", source, out=out)
    return out / "checks.py"


def test_a_repeated_key_is_refused_by_line(tmp_path: Path) -> None:
    module = _module(tmp_path)
    lines = module.read_text().splitlines()
    checks = [i for i, line in enumerate(lines) if line.startswith(MARKER + "check")]
    lines[checks[1]] = lines[checks[0]]  # the second check claims the first one's key
    module.write_text("\n".join(lines) + "\n")
    with pytest.raises(OutputError, match=rf"marker on line {checks[1] + 1} repeats the key"):
        import_source("evals-json", tmp_path / "evals.json", out=tmp_path / "evals")


def test_a_check_marker_before_any_case_is_refused_by_line(tmp_path: Path) -> None:
    module = _module(tmp_path)
    lines = module.read_text().splitlines()
    cases = [i for i, line in enumerate(lines) if line.startswith(MARKER + "case")]
    checks = [i for i, line in enumerate(lines) if line.startswith(MARKER + "check")]
    moved = lines.pop(checks[2])  # case 2's check marker, moved above case 1's marker
    lines.insert(cases[0], moved)
    module.write_text("\n".join(lines) + "\n")
    with pytest.raises(OutputError, match=rf"marker on line {cases[0] + 1} is out of order"):
        import_source("evals-json", tmp_path / "evals.json", out=tmp_path / "evals")


def test_a_second_preamble_is_refused(tmp_path: Path) -> None:
    module = _module(tmp_path)
    text = module.read_text()
    preamble = next(line for line in text.splitlines() if line.startswith(MARKER + "preamble"))
    module.write_text(text + "\n" + preamble.replace("preamble -", "preamble x") + "\n")
    with pytest.raises(OutputError, match="out of order"):
        import_source("evals-json", tmp_path / "evals.json", out=tmp_path / "evals")
    shutil.rmtree(tmp_path / "evals")
