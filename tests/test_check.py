"""`adhd-evals check` against real response files and real modules on disk."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.files import DEFAULT_MAX_BYTES, set_max_bytes
from adhd_evals.importing.importer import import_source

CASES: list[dict[str, Any]] = [  # evals.json cases: JSON, as the fixture writes them
    {
        "id": 1,
        "prompt": "Name the removed flag.",
        "assertions": [
            {"text": "Names --legacy", "kind": "content_contains_any", "needles": ["--legacy"]},
            {"text": "No placeholder text", "kind": "content_contains_none", "needles": ["TODO"]},
        ],
    },
    {"id": 2, "prompt": "Explain the release.", "assertions": ["Reads like a changelog"]},
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    source = tmp_path / "evals.json"
    source.write_text(json.dumps({"skill_name": "rel", "evals": CASES}))
    import_source("evals-json", source, out=tmp_path / "evals")
    return tmp_path


def _responses(folder: Path, rows: list[dict[str, Any]]) -> Path:
    path = folder / "responses.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _row(case_id: str, response: str, condition: str = "baseline", trial: int = 1) -> dict[str, Any]:
    return {
        "case_id": case_id,
        "trial": trial,
        "condition": condition,
        "runner": "stub",
        "response": response,
    }


def _check(project: Path, rows: list[dict[str, Any]], *extra: str) -> int:
    return main(
        [
            "check",
            str(_responses(project, rows)),
            "--cases",
            str(project / "evals/cases.jsonl"),
            "--suite",
            str(project / "evals/checks.py"),
            *extra,
        ]
    )


def _results(project: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (project / "results.jsonl").read_text().splitlines()]


def test_mechanical_pass_fail_and_unwritten(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        _row("rel-1", "The --legacy flag is gone."),
        _row("rel-1", "TODO", "candidate"),
        _row("rel-2", "anything"),
    ]
    code = _check(project, rows, "--output", str(project / "results.jsonl"))
    assert code == exitcodes.FAILED  # an unwritten check keeps the suite red
    statuses = [(r["case_id"], r["condition"], r["status"]) for r in _results(project)]
    assert statuses == [
        ("rel-1", "baseline", "pass"),
        ("rel-1", "baseline", "pass"),
        ("rel-1", "candidate", "fail"),
        ("rel-1", "candidate", "fail"),
        ("rel-2", "baseline", "unwritten"),
    ]
    table = capsys.readouterr().out
    assert "baseline" in table and "1 of 2" in table and "0 of 1" in table


def test_all_written_and_passing_exits_zero(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = project / "evals/checks.py"
    module.write_text(
        module.read_text().replace(
            'return unwritten("Reads like a changelog")', "return answer.startswith('##')"
        )
    )
    rows = [_row("rel-1", "--legacy removed"), _row("rel-2", "## 2.4")]
    assert _check(project, rows, "--json") == exitcodes.OK
    summary = json.loads(capsys.readouterr().out)
    assert summary["passed"] is True
    assert summary["conditions"]["baseline"] == {
        "pass": 3,
        "fail": 0,
        "unwritten": 0,
        "error": 0,
        "orphan": 0,
        "rows": 2,
        "rows_fully_passing": 2,
    }


def test_a_check_that_raises_is_an_error_and_the_rest_still_run(project: Path) -> None:
    module = project / "evals/checks.py"
    module.write_text(
        module.read_text().replace(
            'return contains_any(answer, ["--legacy"])', "return answer.index('zzz') > 0"
        )
    )
    code = _check(
        project, [_row("rel-1", "--legacy, no TODO here")], "--output", str(project / "results.jsonl")
    )
    assert code == exitcodes.FAILED
    results = _results(project)
    assert results[0]["status"] == "error" and results[0]["error"].startswith("ValueError")
    assert results[1]["status"] == "fail"  # the next check of the same row still ran


def test_a_check_returning_a_non_bool_is_an_error(project: Path) -> None:
    module = project / "evals/checks.py"
    module.write_text(module.read_text().replace('return unwritten("Reads like a changelog")', "return None"))
    _check(project, [_row("rel-2", "x")], "--output", str(project / "results.jsonl"))
    assert _results(project)[0]["status"] == "error"


def test_missing_cases_are_reported_not_skipped(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = project / "evals/checks.py"
    text = module.read_text()
    start = text.index("# case rel-2")
    module.write_text(text[:start])  # the module lost case rel-2
    code = _check(project, [_row("rel-1", "--legacy"), _row("rel-2", "x"), _row("ghost", "y")])
    out = capsys.readouterr().out
    assert code == exitcodes.FAILED
    assert "No checks in the module for case rel-2 (1 response row not checked)" in out
    assert "Case ghost is not in the catalog" in out
    assert "Catalog cases with no checks in the module: rel-2." in out


def test_module_with_a_syntax_error_is_named_by_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = project / "evals/checks.py"
    lines = module.read_text().splitlines()
    lines[20] = "def broken(:"
    module.write_text("\n".join(lines) + "\n")
    assert _check(project, [_row("rel-1", "x")]) == exitcodes.SUITE
    assert f"{module}:21:" in capsys.readouterr().err


def test_module_raising_at_import_is_named_by_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = project / "evals/checks.py"
    module.write_text(module.read_text() + "\nraise RuntimeError('boom')\n")
    assert _check(project, [_row("rel-1", "x")]) == exitcodes.SUITE
    err = capsys.readouterr().err
    assert "RuntimeError while importing: boom" in err and f"{module}:" in err


def test_invalid_response_rows_are_all_named(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [_row("rel-1", "x"), {"case_id": "rel-1", "trial": "1", "condition": "baseline", "runner": "s"}]
    path = _responses(project, rows)
    path.write_text(path.read_text() + "not json\n")
    code = main(
        [
            "check",
            str(path),
            "--cases",
            str(project / "evals/cases.jsonl"),
            "--suite",
            str(project / "evals/checks.py"),
        ]
    )
    err = capsys.readouterr().err
    assert code == exitcodes.INPUT
    assert ":2: trial must be an integer" in err and ":2: response must be a string (missing)" in err
    assert ":3:1: invalid JSON" in err


def test_the_default_suite_is_not_run_from_outside_the_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "checks.py").write_text("raise SystemExit('this code must not run')\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "evals").symlink_to(elsewhere)  # evals/checks.py leads out of the project
    (project / "responses.jsonl").write_text("")
    monkeypatch.chdir(project)
    assert main(["check", "responses.jsonl", "--cases", str(elsewhere / "none.jsonl")]) == 2
    err = capsys.readouterr().err
    assert f"resolves to {elsewhere / 'checks.py'}, outside this project" in err
    assert f"--suite {elsewhere / 'checks.py'}" in err


def test_check_help_says_it_runs_the_modules_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.replace("│", " ").split())  # rich draws boxes around help
    assert "check RUNS ITS PYTHON CODE" in text and "check imports it and runs its code" in text


def test_the_compiled_module_is_cached_in_the_users_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adhd_evals.runs.judging import check as checking

    folder = tmp_path / "evals"
    folder.mkdir()
    module = folder / "checks.py"
    module.write_text("CHECKS = {}\n")
    folder.chmod(0o555)  # a read-only checkout: no __pycache__ beside it
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("ADHD_EVALS_CACHE", str(tmp_path / "cache"))
    compiles: list[str] = []
    real = compile

    def counting(*args: Any, **kwargs: Any) -> Any:
        compiles.append(str(args[1]))
        return real(*args, **kwargs)

    monkeypatch.setattr(checking, "compile", counting, raising=False)
    try:
        checking.load_suite(module)
        checking.load_suite(module)  # the same bytes: from the cache
        assert compiles == [str(module)]
        module.chmod(0o644)
        folder.chmod(0o755)
        module.write_text("CHECKS = {'a': []}\n")  # new bytes: compiled again
        assert checking.load_suite(module).registry == {"a": []}
        assert compiles == [str(module), str(module)]
        assert len(list((tmp_path / "cache").iterdir())) == 2
    finally:
        folder.chmod(0o755)


def test_junit_counts_match_check_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import xml.etree.ElementTree as ET

    rows = [
        _row("rel-1", "The --legacy flag is gone."),
        _row("rel-1", "TODO <b>&</b>\x01", "candidate"),
        _row("rel-2", "anything"),
    ]
    junit = project / "junit.xml"
    assert _check(project, rows, "--junit", str(junit), "--json") == exitcodes.FAILED
    summary = json.loads(capsys.readouterr().out)["conditions"]
    root = ET.parse(junit).getroot()  # parses: the response's markup and control byte were escaped
    cases = root.findall("./testsuite/testcase")
    # By hand, as in the test above: 2 pass, 2 fail (candidate), 1 unwritten.
    assert (
        len(cases) == sum(c["pass"] + c["fail"] + c["unwritten"] + c["error"] for c in summary.values()) == 5
    )
    failures = [f.get("type", "") for f in root.iter("failure")]
    assert sorted(failures) == ["fail", "fail", "unwritten"]
    assert sum(c["fail"] + c["unwritten"] for c in summary.values()) == len(failures)
    suites = root.findall("./testsuite")
    totals = [sum(int(s.get(key, "")) for s in suites) for key in ("tests", "failures", "errors")]
    assert totals == [5, 3, 0]  # on the suites: Ant's schema allows no attribute on testsuites
    assert [s.get("name") for s in root.findall("./testsuite")] == ["rel-1", "rel-2"]


RUNAWAY = """import re


def runaway(answer):
    return re.search(r"(a+)+$", answer) is not None  # exponential on "aaa...ab"


def swallowing(answer):
    try:
        while True:
            pass
    except Exception:  # a check that swallows every error must still be stopped
        return True


CHECKS = {"c1": [("runaway", runaway), ("swallow", swallowing), ("quick", lambda answer: True)]}
"""


def test_a_runaway_check_times_out_as_an_error(tmp_path: Path) -> None:
    """A catastrophic regex from a case file kept `check` busy for minutes. With
    --check-timeout 0.3 each of the two runaway checks is stopped after 0.3 s and recorded
    as `error` ("timed out"); the quick check after them still runs and passes; the suite
    is red (exit 1). The swallowing check's `except Exception` cannot catch the stop."""
    (tmp_path / "cases.jsonl").write_text(
        '{"id": "c1", "category": "c", "prompt": "p", "risk": "low", "criteria": ["runaway", "swallow", "quick"]}\n'
    )
    (tmp_path / "suite.py").write_text(RUNAWAY)
    responses = _responses(tmp_path, [_row("c1", "a" * 40 + "b")])
    argv = [
        "check",
        str(responses),
        "--cases",
        str(tmp_path / "cases.jsonl"),
        "--suite",
        str(tmp_path / "suite.py"),
    ]
    code = main([*argv, "--check-timeout", "0.3", "--output", str(tmp_path / "results.jsonl")])
    assert code == exitcodes.FAILED
    statuses = [(r["criterion"], r["status"], r.get("error")) for r in _results(tmp_path)]
    assert statuses == [
        ("runaway", "error", "timed out after 0.3 s (--check-timeout)"),
        ("swallow", "error", "timed out after 0.3 s (--check-timeout)"),
        ("quick", "pass", None),
    ]


def test_a_kept_check_whose_case_or_criterion_left_the_catalog_is_an_orphan(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A person wrote rel-2's check and rel-1's second one; the source then dropped case 2 and
    reworded nothing but removed rel-1's "No placeholder text". The re-import keeps both
    hand-written checks; check must not count them as passes. By hand: rel-1 baseline runs
    its one catalog criterion (pass) and its kept one is an orphan; rel-2's is an orphan."""
    module = project / "evals/checks.py"
    generated = module.read_text()
    text = re.sub(r"return unwritten\(.Reads like a changelog.\)", "return True", generated)
    text = re.sub(r"return contains_none\(answer, \[.TODO.\][^)]*\)", "return True  # a person's", text)
    assert text.count("return True") == generated.count("return True") + 2  # both written by a person
    module.write_text(text)
    source = project / "evals.json"
    source.write_text(
        json.dumps({"skill_name": "rel", "evals": [{**CASES[0], "assertions": CASES[0]["assertions"][:1]}]})
    )
    import_source("evals-json", source, out=project / "evals")
    assert "rel-2" in module.read_text()  # kept: a person wrote it
    rows = [_row("rel-1", "--legacy"), _row("rel-2", "## 2.4")]
    junit = project / "junit.xml"
    code = _check(project, rows, "--output", str(project / "results.jsonl"), "--junit", str(junit))
    assert code == exitcodes.FAILED
    assert [(r["case_id"], r["status"]) for r in _results(project)] == [
        ("rel-1", "pass"),
        ("rel-1", "orphan"),
        ("rel-2", "orphan"),
    ]
    out = capsys.readouterr().out
    assert "2 kept checks have no case or criterion in the catalog any more" in out
    assert "orphan" in out.splitlines()[0]  # a column of the table
    assert junit.read_text().count('type="orphan"') == 2


def test_a_module_without_a_checks_registry_is_named(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Python file that is not a check module (no CHECKS dict) is refused before any row is
    checked, naming the file and the likely cause."""
    module = project / "evals/checks.py"
    module.write_text("def helper(answer):\n    return True\n")
    assert _check(project, [_row("rel-1", "x")]) == exitcodes.SUITE
    err = capsys.readouterr().err
    assert f"{module}: defines no CHECKS registry (is it a module adhd-evals generated?)" in err


def test_a_module_with_no_checks_for_the_rows_says_no_check_ran(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CHECKS is empty: the one row of rel-1 is named unchecked, both catalog cases are named
    as having no checks, "No check ran." closes the report, and the exit is a failure (a
    check that never ran is never a pass)."""
    (project / "evals/checks.py").write_text("CHECKS = {}\n")
    assert _check(project, [_row("rel-1", "x")]) == exitcodes.FAILED
    out = capsys.readouterr().out
    assert "No checks in the module for case rel-1 (1 response row not checked)." in out
    assert "Catalog cases with no checks in the module: rel-1, rel-2." in out
    assert out.rstrip().endswith("No check ran.")


def test_a_module_past_max_bytes_is_refused_unread(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--max-bytes at the larger of the responses and the catalog (both may be read) is still
    below the generated module's size: the module is refused, by size, before it runs."""
    module = project / "evals/checks.py"
    responses = _responses(project, [_row("rel-1", "x")])
    limit = max(responses.stat().st_size, (project / "evals/cases.jsonl").stat().st_size)
    size = module.stat().st_size
    assert size > limit
    try:
        assert _check(project, [_row("rel-1", "x")], "--max-bytes", str(limit)) == exitcodes.USAGE
    finally:  # the limit is the process's: the next test in this worker reads with the default
        set_max_bytes(DEFAULT_MAX_BYTES)
    assert (
        f"{module}: cannot be read: it is {size:,} bytes, past the limit of {limit:,} (--max-bytes)"
        in capsys.readouterr().err
    )


def test_without_an_override_compiled_modules_go_under_xdg_cache_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No ADHD_EVALS_CACHE: the compiled module is kept where the user's cache is,
    $XDG_CACHE_HOME/adhd-evals/compiled (as pre-commit keeps its own), one file per module."""
    from adhd_evals.runs.judging import check as checking

    module = tmp_path / "checks.py"
    module.write_text("CHECKS = {}\n")
    monkeypatch.delenv("ADHD_EVALS_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert checking.load_suite(module).registry == {}
    assert len(list((tmp_path / "xdg" / "adhd-evals" / "compiled").iterdir())) == 1
