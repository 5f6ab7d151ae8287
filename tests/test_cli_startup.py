"""Start-up budgets as module sets: each typer command, asked for its help or run on a tiny input in a
fresh process, imports none of the heavy modules it does not need.

The cli package imports at module top; a command is imported with its stage's module alone
(cli._registry), so what a command pays for is its stage's imports. The few imports still made
inside a command are the ones these tests need lazy (promptfoo's jinja2 and PyYAML for survey and
export, XML for check --junit, runs.calling.shard for --shard). The hook's path (`lint`, no typer at all)
is tests/lint/test_lint_cli.py's; score's numpy is tests/test_decision.py's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import adhd_evals
from adhd_evals import cli, exitcodes
from adhd_evals.cli import _declared
from adhd_evals.entry import main
from helpers import modules_after

# The heavy modules, and who needs them.
HEAVY = {
    "libcst": "merging a person's edits into an existing check module (import --out)",
    "ruamel": "reading and drafting dialects (import --dialect, survey --out)",
    "jsonschema": "checking a dialect against its schema",
    "yaml": "YAML case files, promptfoo configs, export",
    "jinja2": "promptfoo's templates (import, survey and export of promptfoo)",
    "numpy": "score's intervals on many cases",
    "xml": "check --junit",
    "concurrent.futures": "the pool of model calls (run, judge)",
    "ctypes": "each call's process group (run, judge)",
    "adhd_evals.runs.running.execute": "the model calls (run, judge)",
    "adhd_evals.runs.judging.judge": "judge",
    "adhd_evals.importing.importer": "import",
    "adhd_evals.lint.cli": "lint's own parser",
}
CALLS = {"concurrent.futures", "ctypes", "adhd_evals.runs.running.execute", "adhd_evals.runs.judging.judge"}
# What each command's --help may import of HEAVY: its stage module's imports (cli/running.py
# holds run and judge, cli/importing.py import and survey); every other command, none of them.
HELP_MAY = {
    "import": {"adhd_evals.importing.importer"},
    "survey": {"adhd_evals.importing.importer"},
    "run": CALLS,
    "judge": CALLS,
    "lint": {"adhd_evals.lint.cli"},
}
STAGES = {f"adhd_evals.cli.{stage}" for stage in cli.COMMANDS.values()}
# rich's width from the environment: help is typer's to render, not the pre-rendered text
TYPER_RENDERS = {"COLUMNS": "80"}


def _imported(
    tmp_path: Path, *argv: str, code: int = exitcodes.OK, extra: dict[str, str] | None = None
) -> set[str]:
    """The modules a fresh `adhd-evals ARGV...` has imported when it ends with `code` (a real
    process, so nothing another test imported can hide or add one), `extra` in its environment."""
    return modules_after(tmp_path, *argv, code=code, extra=extra)[1]


def _heavy(modules: set[str]) -> set[str]:
    """The HEAVY entries present: a package counts when it or any module under it is imported."""
    return {name for name in HEAVY if any(m == name or m.startswith(f"{name}.") for m in modules)}


@pytest.mark.long
@pytest.mark.parametrize("name", [name for name in cli.COMMANDS if name != "lint"])
def test_each_commands_help_imports_only_its_stage(tmp_path: Path, name: str) -> None:
    """`<command> --help` imports its own stage's module and no other stage's, and of the heavy
    modules only those its stage needs (HELP_MAY: none but for import/survey and run/judge). With
    COLUMNS set typer renders it (where nothing changes the rendering, the text is pre-rendered and
    no stage is imported at all: tests/test_cli_fast_help.py)."""
    modules = _imported(tmp_path, name, "--help", extra=TYPER_RENDERS)
    assert _heavy(modules) <= HELP_MAY.get(name, set())
    assert modules & STAGES == {f"adhd_evals.cli.{cli.COMMANDS[name]}"}


def test_the_version_imports_no_stage(tmp_path: Path) -> None:
    """--version prints one line: no command's stage, nothing heavy, and (dispatched before the
    parser, as lint is) not typer, nor the pydantic and rich typer 0.29 brings."""
    modules = _imported(tmp_path, "--version")
    assert not _heavy(modules) and not modules & STAGES
    assert not {m.partition(".")[0] for m in modules} & {"typer", "click", "pydantic", "rich"}


def test_the_version_beside_a_command_is_typers_eager_option(capsys: pytest.CaptureFixture[str]) -> None:
    """`--version import`: not the bare call entry answers, so typer's eager --version prints the
    same one line and nothing of the command runs."""
    assert main(["--version", "import"]) == exitcodes.OK
    assert capsys.readouterr().out == f"adhd-evals {adhd_evals.__version__}\n"


@pytest.mark.long
def test_the_listing_imports_no_heavy_library(tmp_path: Path) -> None:
    """The whole app's --help imports every stage (it lists every command), so the call machinery
    and the importer come with them; no third-party library beyond typer's own does."""
    modules = _imported(tmp_path, "--help", extra=TYPER_RENDERS)
    assert modules >= STAGES
    assert _heavy(modules) <= CALLS | {"adhd_evals.importing.importer", "adhd_evals.lint.cli"}


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    """evals/cases.jsonl and evals/checks.py of a three-case evals.json (made in this process:
    only the command under test runs in a fresh one)."""
    source = tmp_path / "evals.json"
    cases = [{"id": n, "prompt": f"Question {n}?", "assertions": ["Answers it."]} for n in (1, 2, 3)]
    source.write_text(json.dumps({"skill_name": "s", "evals": cases}), encoding="utf-8")
    assert main(["import", "--format", "evals-json", str(source), "--out", str(tmp_path / "evals")]) == 0
    return tmp_path / "evals" / "cases.jsonl"


@pytest.mark.long
def test_import_of_an_evals_json_imports_no_yaml_nor_runs(tmp_path: Path) -> None:
    """An evals.json into a new folder: JSON alone, a new module (nothing to merge, so no libcst),
    no dialect, and nothing from runs."""
    source = tmp_path / "evals.json"
    source.write_text('{"skill_name": "s", "evals": [{"id": 1, "prompt": "p", "assertions": ["x"]}]}')
    modules = _imported(
        tmp_path, "import", "--format", "evals-json", str(source), "--out", str(tmp_path / "out")
    )
    assert (tmp_path / "out" / "cases.jsonl").is_file()
    assert _heavy(modules) == {"adhd_evals.importing.importer"}
    assert not [m for m in modules if m.startswith("adhd_evals.runs")]


@pytest.mark.long
def test_validate_imports_nothing_heavy(tmp_path: Path, catalog: Path) -> None:
    modules = _imported(tmp_path, "validate", str(catalog))
    assert not _heavy(modules)
    assert not [m for m in modules if m.startswith(("adhd_evals.runs", "adhd_evals.importing.formats"))]


@pytest.mark.long
def test_plan_starts_no_call_machinery(tmp_path: Path, catalog: Path) -> None:
    """Planning starts no thread nor process: no pool, no execute, no importer."""
    modules = _imported(tmp_path, "plan", "--cases", str(catalog), "--trials", "1")
    assert not _heavy(modules)


@pytest.mark.long
def test_check_without_junit_imports_no_xml(tmp_path: Path, catalog: Path) -> None:
    """Each case's one criterion is prose, so its check is an unwritten placeholder: check fails
    (exit FAILED), having run every response through the module, with no XML imported."""
    rows = [json.loads(line) for line in catalog.read_text(encoding="utf-8").splitlines()]
    responses = tmp_path / "responses.jsonl"
    answer = {"trial": 1, "condition": "baseline", "runner": "r", "response": "An answer."}
    responses.write_text("".join(json.dumps({"case_id": r["id"], **answer}) + "\n" for r in rows))
    suite = catalog.parent / "checks.py"
    argv = ["check", str(responses), "--cases", str(catalog), "--suite", str(suite)]
    modules = _imported(tmp_path, *argv, code=exitcodes.FAILED)
    assert not _heavy(modules)


@pytest.mark.long
def test_score_imports_no_importer_nor_calls(tmp_path: Path) -> None:
    """One case, two conditions, every metric 3: the candidate's weighted score is not above the
    baseline's, so the reference gate fails (exit GATE), decided with the standard library alone."""
    scores = tmp_path / "scores.jsonl"
    metrics = dict.fromkeys(("correctness", "autonomy", "actionability", "safety", "concision"), 3)
    rows = [
        {"case_id": "c1", "trial": 1, "condition": c, **metrics, "blocker": False, "notes": ""}
        for c in ("baseline", "candidate")
    ]
    scores.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    modules = _imported(tmp_path, "score", str(scores), code=exitcodes.GATE)
    assert not _heavy(modules)


# The parser typer brings, and what typer 0.29 brings with it: none is on a fast path.
PARSER = {"typer", "click", "pydantic", "rich"}
# A trivial call of each declared command (cli/_declared.py), and the exit code it ends with;
# {cases}, {suite} and {tmp} are the catalog fixture's files and a scratch folder.
FAST_CALLS = {
    "validate": (["validate", "{cases}"], exitcodes.OK),
    "plan": (["plan", "--cases", "{cases}", "--trials", "1"], exitcodes.OK),
    "merge": (["merge", "{tmp}/missing.jsonl", "--output", "{tmp}/merged.jsonl"], exitcodes.SHARD_FOREIGN),
    "cache": (["cache", "stats", "--cache", "{tmp}/cache"], exitcodes.OK),
    "export": (
        ["export", "--to", "evals-json", "--cases", "{cases}", "--suite", "{suite}", "--out", "{tmp}/e.json"],
        exitcodes.OK,
    ),
    # one case, every metric 3 in both conditions: no better, so the reference gate fails
    "score": (["score", "{tmp}/scores.jsonl"], exitcodes.GATE),
    "report": (
        ["report", "--cases", "{cases}", "--responses", "{tmp}/responses.jsonl", "--out", "{tmp}/r.md"],
        exitcodes.OK,
    ),
    # each case's one criterion is prose: an unwritten check, so check fails
    "check": (
        ["check", "{tmp}/responses.jsonl", "--cases", "{cases}", "--suite", "{suite}"],
        exitcodes.FAILED,
    ),
    "blind": (
        [
            "blind",
            "{tmp}/responses.jsonl",
            "--sheet",
            "{tmp}/s.jsonl",
            "--key",
            "{tmp}/k.jsonl",
            "--cases",
            "{cases}",
        ],
        exitcodes.OK,
    ),
    "run": (
        [
            "run",
            "--runner",
            "stub",
            "--condition",
            "baseline",
            "--cases",
            "{cases}",
            "--output",
            "{tmp}/o.jsonl",
        ],
        exitcodes.OK,
    ),
    # no such sheet: said by the judge, after the body's imports
    "judge": (
        [
            "judge",
            "{tmp}/no-sheet.jsonl",
            "--runner",
            "stub",
            "--cases",
            "{cases}",
            "--output",
            "{tmp}/j.jsonl",
        ],
        exitcodes.USAGE,
    ),
    "audit": (["audit", "--prompt-only", "--cases", "{cases}", "--suite", "{suite}"], exitcodes.OK),
    # nothing to merge: refused in the body, after its imports
    "verdicts": (["verdicts", "--cases", "{cases}", "--out", "{tmp}/v.jsonl"], exitcodes.USAGE),
    # the catalog fixture's evals.json (three cases) into a new folder
    "import": (["import", "--format", "evals-json", "{tmp}/evals.json", "--out", "{tmp}/new"], exitcodes.OK),
    "survey": (["survey", "--format", "evals-json", "{tmp}/evals.json"], exitcodes.OK),
    # no such person's sheet: refused by agree's reader (a usage error), after the body's imports
    "agree": (["agree", "{tmp}/no-judged.jsonl", "{tmp}/no-human.jsonl"], exitcodes.USAGE),
}


def _fast_inputs(folder: Path, catalog: Path) -> None:
    """scores.jsonl (case c1, both conditions, every metric 3) and responses.jsonl (one baseline
    answer per case of the catalog) in `folder`."""
    metrics = dict.fromkeys(("correctness", "autonomy", "actionability", "safety", "concision"), 3)
    rows = [
        {"case_id": "c1", "trial": 1, "condition": c, **metrics, "blocker": False, "notes": ""}
        for c in ("baseline", "candidate")
    ]
    (folder / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    ids = [json.loads(line)["id"] for line in catalog.read_text(encoding="utf-8").splitlines()]
    answer = {"trial": 1, "condition": "baseline", "runner": "r", "response": "An answer."}
    lines = "".join(json.dumps({"case_id": i, **answer}) + "\n" for i in ids)
    (folder / "responses.jsonl").write_text(lines, encoding="utf-8")


def test_every_declared_command_has_a_fast_call() -> None:
    """A command added to the fast path gets its module-set test below."""
    assert set(FAST_CALLS) == set(_declared.COMMANDS)


@pytest.mark.long
@pytest.mark.parametrize("name", sorted(FAST_CALLS))
def test_a_declared_commands_trivial_call_imports_no_parser(tmp_path: Path, catalog: Path, name: str) -> None:
    """The trivial call of a command on the fast path runs its body without typer, click,
    pydantic or rich, and without any command's typer stage module."""
    argv, code = FAST_CALLS[name]
    _fast_inputs(tmp_path, catalog)
    fill = {"cases": str(catalog), "suite": str(catalog.parent / "checks.py"), "tmp": str(tmp_path)}
    modules = _imported(tmp_path, *(word.format(**fill) for word in argv), code=code)
    assert not {m.partition(".")[0] for m in modules} & PARSER
    assert not modules & STAGES
    if name == "check":  # unsharded: the shard parser is --shard's alone
        assert "adhd_evals.runs.calling.shard" not in modules
    assert not {
        m
        for m in modules
        for k in NOT_ON_THE_TRIVIAL_CALL.get(name, set())
        if m.startswith(k + ".") or m == k
    }


# What a command's trivial call does without (issue 38's start-up), beyond the parser. validate and
# plan read a catalog with the core alone: no dataclasses (with inspect, about 7 ms), no module
# parser, no hashing, no importing, lint or runs package, no argparse, no importlib.metadata (the
# pre-rendered help reads versions from dist-info folders), no thread. import reads and writes with
# the importer: nothing of lint's or runs', no thread nor process. survey reads and tries the
# readers, never the importer's writing side (the catalog reader and its rules, the merge, the
# check generator, difflib) nor hashlib (a dialect's digest, checkgen's ids). export to an
# evals.json reads the catalog and the check module: nothing of promptfoo's.
_CATALOG_ONLY = {
    "dataclasses",
    "inspect",
    "ast",
    "hashlib",
    "difflib",
    "adhd_evals.importing",
    "adhd_evals.lint",
    "adhd_evals.runs",
    "argparse",
    "importlib.metadata",
    "threading",
    "subprocess",
}
NOT_ON_THE_TRIVIAL_CALL = {
    "validate": _CATALOG_ONLY,
    "plan": _CATALOG_ONLY,
    "import": {
        "adhd_evals.lint",
        "adhd_evals.runs",
        "argparse",
        "importlib.metadata",
        "threading",
        "subprocess",
        # no dialect given: not the dialect reader, nor dataclasses (with inspect); a fresh
        # folder: nothing to merge; the catalog is written, never checked by its rules
        "adhd_evals.importing.dialect",
        "adhd_evals.importing.dialect_schema",
        "dataclasses",
        "inspect",
        "adhd_evals.importing.merge",
        "adhd_evals.catalogrules",
        "difflib",  # a dry run's diffs
    },
    # to an evals.json: promptfoo's package (its PyYAML and jinja2) is `--to promptfoo`'s alone
    "export": {"adhd_evals.importing.formats.promptfoo", "yaml", "jinja2", "dataclasses"},
    "survey": {
        "adhd_evals.importing.importer",
        "adhd_evals.catalog",
        "adhd_evals.catalogrules",
        "adhd_evals.importing.merge",
        "adhd_evals.importing.checkgen",
        "difflib",
        "hashlib",
        "adhd_evals.importing.dialect",
        "dataclasses",
        "inspect",
    },
}
