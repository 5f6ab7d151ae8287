"""Many sources, one catalog; hand-written checks follow their criteria.

Re-import tests are written before/after, inline, in the style of LibCST's codemod tests."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.errors import OutputError
from adhd_evals.importing.importer import Request, import_sources
from adhd_evals.importing.model import Refusal
from helpers import FIXTURES

TREE = FIXTURES / "trees" / "three-skills"


def _catalog(out: Path) -> list[tuple[str, str]]:
    return [
        (row["id"], row["category"])
        for row in map(json.loads, (out / "cases.jsonl").read_text().splitlines())
    ]


def test_three_skills_in_one_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "evals"
    assert main(["import", "--format", "evals-json", str(TREE / "skills"), "--out", str(out)]) == 0
    # By hand: integer ids take the skill's slug; "intro" stays; the digit string "7" is
    # prefixed like an integer; gamma has no skill_name, so its folder names it.
    assert _catalog(out) == [
        ("alpha-1", "alpha"),
        ("alpha-2", "alpha"),
        ("intro", "beta"),
        ("beta-7", "beta"),
        ("gamma-1", "gamma"),
    ]
    err = capsys.readouterr().err
    assert "Read 5 cases from 3 sources (evals-json)" in err
    for skill in ("alpha", "beta", "gamma"):
        assert f"skills/{skill}/evals/evals.json" in err
    module = (out / "checks.py").read_text()
    assert "Imported from 3 sources (evals-json):" in module


def test_ids_colliding_across_sources_are_refused_naming_both(tmp_path: Path) -> None:
    one, two = tmp_path / "one" / "evals.json", tmp_path / "two" / "evals.json"
    for path in (one, two):
        path.parent.mkdir()
        path.write_text(json.dumps({"skill_name": "same", "evals": [{"id": 1, "prompt": str(path)}]}))
    with pytest.raises(Refusal) as refused:
        import_sources("evals-json", [one, two], Request(out=tmp_path / "out"))
    message = str(refused.value)
    assert f"{two} cannot join the catalog: {two}, case 1, id" in message
    assert f'"same-1", which {one}, case 1 has too' in message
    assert not (tmp_path / "out").exists()


def _skill(root: Path, name: str, evals: list[dict[str, Any]]) -> Path:
    path = root / name / "evals" / "evals.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"skill_name": name, "evals": evals}))
    return path


def test_a_subset_of_the_recorded_sources_is_refused(tmp_path: Path) -> None:
    a = _skill(tmp_path, "a", [{"id": 1, "prompt": "p"}])
    b = _skill(tmp_path, "b", [{"id": 1, "prompt": "q"}])
    out = tmp_path / "evals"
    import_sources("evals-json", [a, b], Request(out=out))
    before = (out / "cases.jsonl").read_bytes()
    with pytest.raises(OutputError) as refused:
        import_sources("evals-json", [a], Request(out=out))
    assert f"was built from {a}, {b}; this import names none of {b}" in str(refused.value)
    assert (out / "cases.jsonl").read_bytes() == before


@pytest.mark.long
def test_replace_reports_each_dropped_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _skill(tmp_path, "a", [{"id": 1, "prompt": "p"}, {"id": 2, "prompt": "p2"}])
    b = _skill(tmp_path, "b", [{"id": 1, "prompt": "q"}])
    out = tmp_path / "evals"
    assert main(["import", "--format", "evals-json", str(a), str(b), "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["import", "--format", "evals-json", str(b), "--out", str(out), "--replace"]) == 0
    assert "2 cases left the catalog: a-1, a-2." in capsys.readouterr().err
    assert _catalog(out) == [("b-1", "b")]


def test_dry_run_changes_no_byte_and_no_mtime(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _skill(tmp_path, "a", [{"id": 1, "prompt": "p", "assertions": ["Old"]}])
    out = tmp_path / "evals"
    assert main(["import", "--format", "evals-json", str(a), "--out", str(out)]) == 0
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.iterdir()}
    _skill(tmp_path, "a", [{"id": 1, "prompt": "p", "assertions": ["New"]}, {"id": 2, "prompt": "q"}])
    capsys.readouterr()
    assert main(["import", "--format", "evals-json", str(a), "--out", str(out), "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.iterdir()} == before
    assert (
        '-{"id": "a-1", "category": "a", "prompt": "p", "risk": "medium", "criteria": ["Old"]}'
        in captured.out
    )
    assert '+{"id": "a-2", "category": "a", "prompt": "q"' in captured.out
    assert "Dry run: nothing was written." in captured.err


# ---- hand-written checks follow their criteria: before / after ----------------------------

BODY = "    # mine: the answer must name the version\n    return '2.4' in answer"


def _reimport(
    tmp_path: Path, before: list[dict[str, Any]], edit: tuple[str, str], after: list[dict[str, Any]]
) -> tuple[str, Any]:
    source = _skill(tmp_path, "notes", before)
    out = tmp_path / "evals"
    import_sources("evals-json", [source], Request(out=out))
    module = out / "checks.py"
    old, new = edit
    text = module.read_text()
    assert old in text
    module.write_text(text.replace(old, new, 1))
    _skill(tmp_path, "notes", after)
    outcome = import_sources("evals-json", [source], Request(out=out))
    return module.read_text(), outcome.merge_report


def test_a_reworded_criterion_takes_its_edited_check_along(tmp_path: Path) -> None:
    before = [{"id": 1, "prompt": "Write notes for 2.4", "assertions": ["Names the verison", "Is short"]}]
    after = [{"id": 1, "prompt": "Write notes for 2.4", "assertions": ["Names the version", "Is short"]}]
    text, report = _reimport(tmp_path, before, ('    return unwritten("Names the verison")', BODY), after)
    assert '@check("notes-1", "Names the version")\ndef check_notes_1_' in text  # retargeted
    assert BODY in text  # the body, byte for byte
    assert "Names the verison" not in text  # no orphan left behind
    assert text.count('unwritten("Names the version")') == 0  # and no fresh placeholder beside it
    assert report.retargeted and not report.kept_orphans


def test_the_same_text_once_normalised_is_the_same_criterion(tmp_path: Path) -> None:
    before = [{"id": 1, "prompt": "p", "assertions": ["Names the version.", "Is short", "Is kind"]}]
    after = [
        {"id": 1, "prompt": "p", "assertions": ["Is kind", "names  the VERSION", "Is short"]}
    ]  # moved too
    text, report = _reimport(tmp_path, before, ('    return unwritten("Names the version.")', BODY), after)
    assert '@check("notes-1", "names  the VERSION")' in text and BODY in text
    assert len(report.retargeted) == 1


def test_reordered_and_reworded_criteria_stay_orphans_and_are_reported(tmp_path: Path) -> None:
    before = [{"id": 1, "prompt": "p", "assertions": ["First thing", "Second thing"]}]
    after = [{"id": 1, "prompt": "p", "assertions": ["Second item", "First item"]}]
    edits = ('    return unwritten("First thing")', BODY)
    text, report = _reimport(tmp_path, before, edits, after)
    assert BODY in text  # kept: nothing lost
    assert '@check("notes-1", "First thing")' in text  # under its old criterion: never guessed
    assert len(report.kept_orphans) == 1 and not report.retargeted


def test_a_renamed_case_with_the_same_prompt_takes_its_checks(tmp_path: Path) -> None:
    before = [{"id": 1, "prompt": "Write notes for 2.4", "assertions": ["Names the version"]}]
    after = [{"id": "release-notes", "prompt": "Write notes for 2.4", "assertions": ["Names the version"]}]
    text, report = _reimport(tmp_path, before, ('    return unwritten("Names the version")', BODY), after)
    assert '@check("release-notes", "Names the version")\ndef check_release_notes_' in text and BODY in text
    assert "notes-1" not in text.split('"""', 2)[2]  # the old id is gone from the checks
    assert report.retargeted


# ---- property: no function body a person wrote is ever lost -------------------------------

criteria = st.sampled_from(["Alpha", "alpha.", "Beta", "Gamma", "Delta", "Beta!"])
cases = st.lists(
    st.tuples(
        st.sampled_from([1, 2, 3, "x"]),
        st.sampled_from(["p", "q"]),
        st.lists(criteria, min_size=1, max_size=3, unique=True),
    ),
    min_size=1,
    max_size=3,
    unique_by=lambda c: c[0],
)


def _evals(spec: list[tuple[Any, str, list[str]]]) -> list[dict[str, Any]]:
    return [{"id": i, "prompt": p, "assertions": c} for i, p, c in spec]


@pytest.mark.long
@settings(
    max_examples=int(os.environ.get("ADHD_EVALS_FUZZ", "60")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(steps=st.lists(cases, min_size=2, max_size=4), edit_at=st.integers(0, 50))
def test_no_edited_body_is_ever_lost(
    tmp_path_factory: pytest.TempPathFactory, steps: list[Any], edit_at: int
) -> None:
    root = tmp_path_factory.mktemp("prop")
    source = _skill(root, "s", _evals(steps[0]))
    out = root / "evals"
    import_sources("evals-json", [source], Request(out=out))
    bodies: set[str] = set()
    for number, spec in enumerate(steps[1:], start=1):
        module = out / "checks.py"
        text = module.read_text()
        placeholders = [line for line in text.splitlines() if line.startswith("    return unwritten(")]
        if placeholders:  # a person writes one check by hand
            body = f"    return 'mark-{number}' in answer  # hand-written {number}"
            module.write_text(text.replace(placeholders[edit_at % len(placeholders)], body, 1))
            bodies.add(body)
        _skill(root, "s", _evals(spec))
        import_sources("evals-json", [source], Request(out=out))
        after = module.read_text()
        assert all(body in after for body in bodies), "a hand-written body was lost"
    shutil.rmtree(root)


def test_lint_checks_that_catalog_module_and_sources_agree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _skill(tmp_path, "a", [{"id": 1, "prompt": "p", "assertions": ["x"]}])
    b = _skill(tmp_path, "b", [{"id": 1, "prompt": "q", "assertions": ["y"]}])
    out = tmp_path / "evals"
    import_sources("evals-json", [a, b], Request(out=out))
    module = out / "checks.py"
    module.write_text(
        module.read_text() + "\n\n@check('ghost', 'y')\ndef ghost(answer: str) -> bool:\n    return True\n"
    )
    ghost_line = len(module.read_text().splitlines()) - 2  # the decorator's line
    shutil.rmtree(tmp_path / "b")
    assert main(["lint", str(out / "cases.jsonl")]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert (
        f'{module}:{ghost_line}:1: W204 case "ghost" has checks here but is not in the catalog beside it'
        in lines
    )
    record = out / ".adhd-evals-sources.json"
    # the record is indented JSON: the second source's "path" value sits on line 9, column 15
    assert f"{record}:9:15: E114 the recorded source {b} is gone" in lines
    assert exitcodes.FAILED == 1


def test_a_large_tree_lists_twenty_sources_then_a_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for n in range(23):
        folder = tmp_path / "skills" / f"s{n:02d}" / "evals"
        folder.mkdir(parents=True)
        (folder / "evals.json").write_text(
            json.dumps({"skill_name": f"s{n:02d}", "evals": [{"id": 1, "prompt": "p", "assertions": ["a"]}]}),
            encoding="utf-8",
        )
    assert main(["import", "--format", "evals-json", str(tmp_path / "skills")]) == 0
    err = capsys.readouterr().err
    assert "Read 23 cases from 23 sources" in err
    assert "s19/evals/evals.json" in err and "s20/evals/evals.json" not in err
    assert "  ... and 3 more" in err
