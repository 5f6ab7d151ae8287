"""Re-importing into a check module a person has edited: before/after, inline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from adhd_evals.entry import main
from adhd_evals.importing.importer import import_source


def _source(tmp_path: Path, evals: list[dict[str, Any]]) -> Path:
    path = tmp_path / "evals.json"
    path.write_text(json.dumps({"skill_name": "notes", "evals": evals}))
    return path


BASE: list[dict[str, Any]] = [  # evals.json cases: JSON, as _source writes them
    {
        "id": 1,
        "prompt": "Write notes for 2.4",
        "assertions": [
            "Groups changes under Features and Fixes",
            {"text": "Names the flag", "kind": "content_contains_any", "needles": ["--legacy"]},
        ],
    },
    {"id": 2, "prompt": "Write notes for 2.5", "assertions": ["Mentions dark mode"]},
]


def _import(tmp_path: Path, evals: list[dict[str, Any]], **kwargs: Any) -> str:
    out = tmp_path / "evals"
    import_source("evals-json", _source(tmp_path, evals), out=out, **kwargs)
    return (out / "checks.py").read_text()


def _edit(tmp_path: Path, old: str, new: str) -> str:
    module = tmp_path / "evals" / "checks.py"
    text = module.read_text()
    assert old in text
    module.write_text(text.replace(old, new, 1))
    return module.read_text()


def _run(module: str, case_id: str, answer: str) -> list[bool]:
    namespace: dict[str, Any] = {}
    exec(compile(module, "checks.py", "exec"), namespace)
    return [function(answer) for _, function in namespace["CHECKS"][case_id]]


def test_edited_check_survives_a_source_change(tmp_path: Path) -> None:
    _import(tmp_path, BASE)
    _edit(
        tmp_path,
        'return unwritten("Groups changes under Features and Fixes")',
        "return 'features' in answer.lower() and 'fixes' in answer.lower()",
    )
    changed = [dict(BASE[0], prompt="Write notes for 2.4.1"), BASE[1]]
    after = _import(tmp_path, changed)
    assert "return 'features' in answer.lower() and 'fixes' in answer.lower()" in after
    assert _run(after, "notes-1", "Features: x. Fixes: y. --legacy") == [True, True]


def test_hand_added_import_helper_and_comment_are_kept(tmp_path: Path) -> None:
    _import(tmp_path, BASE)
    _edit(tmp_path, "import re\n", "import re\nimport textwrap  # added by hand\n")
    module = tmp_path / "evals" / "checks.py"
    module.write_text(
        module.read_text()
        + "\n\ndef short(answer: str) -> bool:\n    # my helper\n    return len(answer) < 500\n"
    )
    _edit(
        tmp_path,
        'return unwritten("Mentions dark mode")',
        "# checked by hand\n    return short(answer) and 'dark mode' in answer",
    )
    after = _import(tmp_path, BASE + [{"id": 3, "prompt": "p3", "assertions": ["New"]}])
    assert "import textwrap  # added by hand" in after
    assert after.rstrip().endswith("return len(answer) < 500")
    assert "# checked by hand" in after and '@check("notes-3", "New")' in after
    assert _run(after, "notes-2", "dark mode") == [True]


def test_untouched_generated_check_follows_the_source(tmp_path: Path) -> None:
    before = _import(tmp_path, BASE)
    assert 'contains_any(answer, ["--legacy"])' in before
    changed = [
        dict(
            BASE[0],
            assertions=[
                BASE[0]["assertions"][0],
                {"text": "Names the flag", "kind": "content_contains_any", "needles": ["--legacy", "--old"]},
            ],
        ),
        BASE[1],
    ]
    after = _import(tmp_path, changed)
    assert 'contains_any(answer, ["--legacy", "--old"])' in after
    assert 'contains_any(answer, ["--legacy"])' not in after


def test_untouched_check_of_a_removed_criterion_goes_an_edited_one_stays(tmp_path: Path) -> None:
    _import(tmp_path, BASE)
    _edit(tmp_path, 'return contains_any(answer, ["--legacy"])', "return '--legacy' in answer")
    changed = [dict(BASE[0], assertions=["Something else entirely"]), BASE[1]]
    out = tmp_path / "evals"
    outcome = import_source("evals-json", _source(tmp_path, changed), out=out)
    after = (out / "checks.py").read_text()
    assert "Groups changes under Features and Fixes" not in after  # untouched: regenerated away
    assert "return '--legacy' in answer" in after  # edited: kept
    assert outcome.merge_report is not None and len(outcome.merge_report.kept_orphans) == 1


def test_vanished_case_is_kept_and_reported_then_pruned_on_request(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _import(tmp_path, BASE)
    source = _source(tmp_path, [BASE[0]])
    out = tmp_path / "evals"
    assert main(["import", "--format", "evals-json", str(source), "--out", str(out)]) == 0
    assert "gone from the source but kept in the check module: notes-2" in capsys.readouterr().err
    assert '@check("notes-2", "Mentions dark mode")' in (out / "checks.py").read_text()
    assert main(["import", "--format", "evals-json", str(source), "--out", str(out), "--prune"]) == 0
    assert "Removed 1 vanished case from" in capsys.readouterr().err
    assert "notes-2" not in (out / "checks.py").read_text()


def test_new_case_is_added_in_source_order(tmp_path: Path) -> None:
    _import(tmp_path, [BASE[1]])
    after = _import(tmp_path, BASE)
    assert after.index('@check("notes-1"') < after.index('@check("notes-2"')


def test_reimport_with_edits_is_idempotent(tmp_path: Path) -> None:
    _import(tmp_path, BASE)
    _edit(tmp_path, 'return unwritten("Mentions dark mode")', "return 'dark' in answer")
    once = _import(tmp_path, [BASE[1]])  # case 1 vanished: kept
    twice = _import(tmp_path, [BASE[1]])
    assert once == twice
    assert _import(tmp_path, [BASE[1]]) == twice


def test_fresh_module_reimported_unchanged_is_byte_identical(tmp_path: Path) -> None:
    assert _import(tmp_path, BASE) == _import(tmp_path, BASE)


def test_module_that_no_longer_compiles_is_not_overwritten(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _import(tmp_path, BASE)
    broken = _edit(tmp_path, 'return unwritten("Mentions dark mode")', "return (")
    source = _source(tmp_path, BASE)
    assert main(["import", "--format", "evals-json", str(source), "--out", str(tmp_path / "evals")]) == 3
    assert "would not compile" in capsys.readouterr().err
    assert (tmp_path / "evals" / "checks.py").read_text() == broken
