"""Hand-written checks survive every re-import: the attack's reproducers (issue 21).

Each test below failed on the main branch before this work: a person's own @check
renamed under a reworded criterion, --prune deleting a helper (NameError), a dialect
arriving over an edited preamble (NameError), a stale manifest blamed on an edit.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from adhd_evals.entry import main
from adhd_evals.errors import OutputError
from adhd_evals.importing.dialect import load
from adhd_evals.importing.importer import Request, import_sources
from adhd_evals.output import MANIFEST
from helpers import FIXTURES


def _write_source(tmp_path: Path, evals: list[dict[str, Any]]) -> Path:
    path = tmp_path / "evals.json"
    path.write_text(json.dumps({"skill_name": "notes", "evals": evals}))
    return path


def _import(tmp_path: Path, evals: list[dict[str, Any]], **request: Any) -> tuple[str, Any]:
    out = tmp_path / "evals"
    outcome = import_sources("evals-json", [_write_source(tmp_path, evals)], Request(out=out, **request))
    return (out / "checks.py").read_text(), outcome


def _edit(tmp_path: Path, old: str, new: str) -> None:
    """Replace generated text (as this version quotes it, or as versions before it did)."""
    module = tmp_path / "evals" / "checks.py"
    text = module.read_text()
    if old not in text:  # the single quotes of modules written before formatters were matched
        old, new = old.replace('"', "'"), new.replace(old, old.replace('"', "'"))
    assert text.count(old) == 1, old
    module.write_text(text.replace(old, new))


def _registered(module: str) -> dict[str, list[tuple[str, str]]]:
    """case id -> (criterion, function name), by running the module as `check` does."""
    namespace: dict[str, Any] = {}
    exec(compile(module, "checks.py", "exec"), namespace)
    return {
        case: [(criterion, fn.__name__) for criterion, fn in checks]
        for case, checks in namespace["CHECKS"].items()
    }


def _run_all(module: str, answer: str) -> None:
    """Every registered check runs on `answer` without raising (a NameError would)."""
    namespace: dict[str, Any] = {}
    exec(compile(module, "checks.py", "exec"), namespace)
    for checks in namespace["CHECKS"].values():
        for _, function in checks:
            function(answer)


MINE = """@check("notes-1", "Mine: stays short")
def my_short_answer(answer: str) -> bool:
    return len(answer) < 400


"""


def test_a_hand_added_check_keeps_its_name_registration_and_criterion_when_its_neighbour_is_reworded(
    tmp_path: Path,
) -> None:
    """By hand: case notes-1 has "Names the version" and "Mentions dark mode". A person
    adds their own @check (name my_short_answer, criterion "Mine: stays short") in the
    region of "Names the version", above the generated function. The source rewords
    that criterion to "Names the release version". Only the generated function follows
    it; the person's check is registered as before, under its own criterion."""
    before = [{"id": 1, "prompt": "p", "assertions": ["Names the version", "Mentions dark mode"]}]
    module, _ = _import(tmp_path, before)
    generated = module[module.index("Names the version") :].split("\n")[1]  # its def line
    _edit(tmp_path, '@check("notes-1", "Names the version")', MINE + '@check("notes-1", "Names the version")')
    after = [{"id": 1, "prompt": "p", "assertions": ["Names the release version", "Mentions dark mode"]}]
    module, outcome = _import(tmp_path, after)
    checks = _registered(module)["notes-1"]
    assert ("Mine: stays short", "my_short_answer") in checks
    assert [criterion for criterion, _ in checks] == [
        "Mine: stays short",
        "Names the release version",
        "Mentions dark mode",
    ]
    assert MINE in module  # byte for byte
    assert "Names the version" not in module  # the old criterion left with the generated check
    assert generated not in module  # the generated function took the reworded criterion's name
    assert outcome.merge_report.retargeted  # reported as retargeted


def test_an_edited_generated_check_beside_a_hand_added_one_is_renamed_alone(tmp_path: Path) -> None:
    """By hand: as above, but the person also edited the generated function's body; the
    libcst codemod renames that function (and rewrites its decorator) and no other."""
    before = [{"id": 1, "prompt": "p", "assertions": ["Names the version", "Mentions dark mode"]}]
    _import(tmp_path, before)
    _edit(tmp_path, '@check("notes-1", "Names the version")', MINE + '@check("notes-1", "Names the version")')
    _edit(tmp_path, 'return unwritten("Names the version")', "return '2.0' in answer  # mine")
    after = [{"id": 1, "prompt": "p", "assertions": ["Names the release version", "Mentions dark mode"]}]
    module, _ = _import(tmp_path, after)
    checks = _registered(module)["notes-1"]
    assert checks[0] == ("Mine: stays short", "my_short_answer")
    assert checks[1][0] == "Names the release version" and checks[1][1] != "my_short_answer"
    assert MINE in module and "return '2.0' in answer  # mine" in module


HELPER = """def mentions_version(answer: str) -> bool:
    # a helper a person wrote beside case 2's check
    return "2." in answer


"""


def test_prune_moves_a_helper_from_a_vanished_case_and_the_checks_using_it_still_run(tmp_path: Path) -> None:
    """By hand: a person writes a helper in case notes-2's region and uses it in case
    notes-1's check, and adds their own check for notes-2. Case 2 leaves the source;
    --prune removes its generated check only. The helper and the hand-added check move
    to the end of the module under a comment; the summary lists 6 moved lines (3 of
    the helper, 3 of the check: non-blank lines)."""
    before = [
        {"id": 1, "prompt": "p1", "assertions": ["Names the version"]},
        {"id": 2, "prompt": "p2", "assertions": ["Mentions dark mode"]},
    ]
    _import(tmp_path, before)
    own = '@check("notes-2", "Mine: dark")\ndef my_dark(answer: str) -> bool:\n    return "dark" in answer\n\n\n'
    _edit(
        tmp_path,
        '@check("notes-2", "Mentions dark mode")',
        HELPER + own + '@check("notes-2", "Mentions dark mode")',
    )
    _edit(tmp_path, 'return unwritten("Names the version")', "return mentions_version(answer)")
    module, outcome = _import(tmp_path, before[:1], prune=True)
    assert module.count(HELPER.rstrip("\n")) == 1 and module.count(own.rstrip("\n")) == 1
    assert "Mentions dark mode" not in module  # the generated check is gone
    namespace: dict[str, Any] = {}
    exec(compile(module, "checks.py", "exec"), namespace)
    assert [fn("release 2.1") for _, fn in namespace["CHECKS"]["notes-1"]] == [True]  # no NameError
    assert [criterion for criterion, _ in namespace["CHECKS"]["notes-2"]] == ["Mine: dark"]
    report = outcome.merge_report
    assert report.pruned_cases == ["notes-2"] and report.moved == [("notes-2", 6)]
    assert "Kept by adhd-evals from pruned case notes-2 (--prune)" in module
    assert any("Moved 6 lines a person wrote" in line for line in report.lines())
    again, _ = _import(tmp_path, before[:1], prune=True)
    assert again == module  # the moved lines are the person's now: the next import leaves them


TYPED = FIXTURES / "evals-json/good/dialect-typed"


def _typed_source(tmp_path: Path) -> Path:
    source = tmp_path / "skill" / "evals.json"
    source.parent.mkdir(exist_ok=True)
    source.write_text((TYPED / "skill/evals/evals.json").read_text())
    return source


def test_a_dialect_arriving_over_an_edited_preamble_updates_it_and_keeps_the_persons_lines(
    tmp_path: Path,
) -> None:
    """By hand: imported without a dialect, the typed assertions are placeholders and the
    preamble holds the plain helpers. A person adds an import and a helper to the
    preamble. Re-imported with the dialect, the checks call contains, regex, min_chars,
    in_order and is_json: the preamble's generated part becomes the vocabulary (so every
    check runs), and the person's two additions are there once each."""
    source, out = _typed_source(tmp_path), tmp_path / "evals"
    import_sources("evals-json", [source], Request(out=out))
    module = (out / "checks.py").read_text()
    mine_import, mine_helper = (
        "import textwrap  # mine",
        'def shout(text: str) -> str:\n    return text.upper() + "!"',
    )
    module = module.replace("import re\n", f"import re\n{mine_import}\n", 1)
    module = module.replace("\n\ndef unwritten(", f"\n\n{mine_helper}\n\n\ndef unwritten(", 1)
    (out / "checks.py").write_text(module)
    dialect = load(TYPED / "dialect.yaml", "dialect.yaml")
    import_sources("evals-json", [source], Request(out=out), dialect=dialect)
    after = (out / "checks.py").read_text()
    assert after.count(mine_import) == 1 and after.count(mine_helper) == 1
    assert "def regex(" in after and "def in_order(" in after  # the vocabulary arrived
    assert "dialect.yaml" in after.split('"""')[1]  # the header names the dialect
    _run_all(after, "## 2.0\nAdded. Fixed. Breaking. new")  # no NameError from any check


def test_a_dialect_over_a_preamble_edited_where_the_helpers_change_is_refused_naming_the_lines(
    tmp_path: Path,
) -> None:
    """By hand: the person rewrote the return line of contains_any, a line the dialect's
    vocabulary rewrites too (its contains_any is written `for n in _texts(needles)`), so
    the edit cannot be carried over: refused, naming the person's line (where it is in
    checks.py), and nothing is written."""
    source, out = _typed_source(tmp_path), tmp_path / "evals"
    import_sources("evals-json", [source], Request(out=out))
    module = (out / "checks.py").read_text()
    old = "    return any(_fold(needle, ignore_case) in text for needle in _needles(needles))\n"
    assert module.count(old) == 1
    line = module[: module.index(old)].count("\n") + 1
    edited = module.replace(old, "    return any(n.casefold() in text for n in needles)  # mine\n")
    (out / "checks.py").write_text(edited)
    dialect = load(TYPED / "dialect.yaml", "dialect.yaml")
    with pytest.raises(OutputError) as refused:
        import_sources("evals-json", [source], Request(out=out), dialect=dialect)
    assert f"line {line}" in str(refused.value) and "preamble" in str(refused.value)
    assert (out / "checks.py").read_text() == edited


def _killed_import(source: Path, out: Path, step: str) -> None:
    env = {**os.environ, "ADHD_EVALS_TEST_KILL_AT": step}
    code = "import sys; from adhd_evals.entry import main; sys.exit(main(sys.argv[1:]))"
    argv = [sys.executable, "-c", code, "import", "--format", "evals-json", str(source), "--out", str(out)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == -signal.SIGKILL


@pytest.mark.long
@pytest.mark.parametrize("step", ["manifest", "renamed-3"])
def test_a_stale_manifest_is_not_blamed_on_the_persons_edit(
    tmp_path: Path, step: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """By hand: a kill right after the manifest is written leaves both files old; a kill
    after the last rename leaves both new. Either way the write is over, and a person
    then edits checks.py (later than the manifest). `check` runs, and the manifest is
    cleared as stale."""
    source, out = (
        _write_source(tmp_path, [{"id": 1, "prompt": "p", "assertions": ["Old"]}]),
        tmp_path / "evals",
    )
    assert main(["import", "--format", "evals-json", str(source), "--out", str(out)]) == 0
    source.write_text(
        json.dumps({"skill_name": "notes", "evals": [{"id": 1, "prompt": "p", "assertions": ["New"]}]})
    )
    _killed_import(source, out, step)
    assert (out / MANIFEST).exists()
    module = out / "checks.py"
    written = (out / MANIFEST).stat().st_mtime_ns
    module.write_text(module.read_text() + "\n\ndef mine(answer: str) -> bool:\n    return True\n")
    os.utime(module, ns=(written + 10**9, written + 10**9))  # edited a second after the kill
    responses = tmp_path / "responses.jsonl"
    responses.write_text(
        '{"case_id": "notes-1", "trial": 1, "condition": "baseline", "runner": "stub", "response": "x"}\n'
    )
    capsys.readouterr()
    code = main(["check", str(responses), "--cases", str(out / "cases.jsonl"), "--suite", str(module)])
    assert "not from one import" not in capsys.readouterr().err
    assert code != 4
    assert not (out / MANIFEST).exists()


@pytest.mark.long
def test_a_manifest_whose_pair_matches_is_cleared_by_the_next_reader(tmp_path: Path) -> None:
    """By hand: after a kill following the last rename, the pair matches the manifest's
    new hashes; the next command that looks (lint here) clears it, so a later edit is
    never blamed on an interrupted write."""
    source, out = (
        _write_source(tmp_path, [{"id": 1, "prompt": "p", "assertions": ["Old"]}]),
        tmp_path / "evals",
    )
    assert main(["import", "--format", "evals-json", str(source), "--out", str(out)]) == 0
    _killed_import(source, out, "renamed-3")
    assert (out / MANIFEST).exists()
    main(["lint", str(out)])
    assert not (out / MANIFEST).exists()


def test_prune_removes_an_edited_generated_check_and_names_it(tmp_path: Path) -> None:
    """By hand: --prune removes a vanished case's generated checks, a person's edit to one
    included (that is what was asked), and the summary names the function it removed."""
    before = [
        {"id": 1, "prompt": "p1", "assertions": ["Names the version"]},
        {"id": 2, "prompt": "p2", "assertions": ["Mentions dark mode"]},
    ]
    module, _ = _import(tmp_path, before)
    name = module[module.index("Mentions dark mode") :].split("def ", 1)[1].split("(", 1)[0]
    _edit(tmp_path, 'return unwritten("Mentions dark mode")', "return 'dark' in answer  # mine")
    module, outcome = _import(tmp_path, before[:1], prune=True)
    assert "# mine" not in module and outcome.merge_report.moved == []
    assert outcome.merge_report.pruned_edited == [name]
    assert any(
        f"a person had edited, with their pruned cases: {name}." in line
        for line in outcome.merge_report.lines()
    )


def test_a_check_kept_from_before_a_dialect_still_runs_after_it_arrives(tmp_path: Path) -> None:
    """By hand: case notes-2's check calls contains_any(answer, ["--legacy"]) (the plain
    helpers ignore case). The case leaves the source and is kept (no --prune); the
    re-import brings a dialect, whose vocabulary's contains_any takes ignore_case: its
    default (ignoring case) keeps the kept call meaning what it meant: "--LEGACY" passes."""
    flag = {"text": "Names the flag", "kind": "content_contains_any", "needles": ["--legacy"]}
    before = [
        {"id": 1, "prompt": "p1", "assertions": ["Names the version"]},
        {"id": 2, "prompt": "p2", "assertions": [flag]},
    ]
    _import(tmp_path, before)
    source = _write_source(tmp_path, before[:1])
    dialect = load(TYPED / "dialect.yaml", "dialect.yaml")
    import_sources("evals-json", [source], Request(out=tmp_path / "evals"), dialect=dialect)
    module = (tmp_path / "evals" / "checks.py").read_text()
    namespace: dict[str, Any] = {}
    exec(compile(module, "checks.py", "exec"), namespace)
    assert [fn("use --LEGACY") for _, fn in namespace["CHECKS"]["notes-2"]] == [True]


def test_checks_kept_calling_helpers_a_new_preamble_lacks_are_refused(tmp_path: Path) -> None:
    """By hand: imported with the dialect, a check calls regex(...); a person edits it (so
    it is kept). Re-imported without the dialect, the preamble's helpers are the plain
    ones, which have no regex: the kept check would fail with NameError, so the import is
    refused, naming regex, and nothing is written."""
    source, out = _typed_source(tmp_path), tmp_path / "evals"
    dialect = load(TYPED / "dialect.yaml", "dialect.yaml")
    import_sources("evals-json", [source], Request(out=out), dialect=dialect)
    module = (out / "checks.py").read_text()
    old = next(line for line in module.split("\n") if line.startswith("    return regex(answer, "))
    edited = module.replace(old, '    return regex(answer, "^#+ ", ignore_case=False)  # mine')
    (out / "checks.py").write_text(edited)
    with pytest.raises(OutputError) as refused:
        import_sources("evals-json", [source], Request(out=out))
    assert "call regex, which the helpers this import generates do not define" in str(refused.value)
    assert (out / "checks.py").read_text() == edited
