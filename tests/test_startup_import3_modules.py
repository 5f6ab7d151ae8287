"""An import to stdout starts with what reading needs, and nothing of writing (issue 38).

`import` without --out reads the sources and prints the catalog: the dialect reader (with its
dataclasses and their inspect), the merge, the check generator (with hashlib) and the catalog's
rules are --dialect's, a re-import's, --out's and validate's. Each call runs in a fresh process
(nothing another test imported can hide an import) and lists `sys.modules` when it ends. The
trivial call with --out is tests/test_cli_startup.py's; the lint paths are tests/lint/test_startup.py's.
"""

from __future__ import annotations

import json
from pathlib import Path

from adhd_evals import exitcodes
from helpers import modules_after, string_annotations_made

EVALS_JSON = {"skill_name": "s", "evals": [{"id": 1, "prompt": "Say hi.", "assertions": ["Says hi."]}]}
# What an import to stdout with no dialect must not load; each of these was loaded by it before
# this change (the dialect reader and dataclasses by the CLI body and the readers, the merge, the
# check generator, a dry run's difflib and the catalog's rules by the importer's imports).
NOT_TO_STDOUT = (
    "dataclasses",
    "inspect",
    "hashlib",
    "difflib",
    "adhd_evals.importing.dialect",
    "adhd_evals.importing.dialect_schema",
    "adhd_evals.importing.merge",
    "adhd_evals.importing.checkgen",
    "adhd_evals.catalogrules",
    "adhd_evals.lint",
    "adhd_evals.runs",
)


def _source(tmp_path: Path) -> Path:
    source = tmp_path / "evals.json"
    source.write_text(json.dumps(EVALS_JSON), encoding="utf-8")
    return source


def _run(tmp_path: Path, *argv: str) -> tuple[str, set[str]]:
    """What a fresh `adhd-evals ARGV...` printed, and the modules it had imported at its end."""
    return modules_after(tmp_path, *argv)


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """The names present: a package counts when it or any module under it is imported."""
    return sorted(n for n in names if any(m == n or m.startswith(f"{n}.") for m in modules))


def test_an_import_to_stdout_loads_nothing_of_writing(tmp_path: Path) -> None:
    """The one case is printed as a catalog line (it imported), and none of NOT_TO_STDOUT loaded."""
    printed, modules = _run(tmp_path, "import", "--format", "evals-json", str(_source(tmp_path)))
    assert json.loads(printed)["prompt"] == "Say hi."
    assert _loaded(modules, NOT_TO_STDOUT) == []


def test_the_guard_sees_a_dialect_a_merge_and_the_generator(tmp_path: Path) -> None:
    """The guard can fail: a dry run of a re-import into a folder holding a check module, with a
    dialect, loads the dialect reader (and dataclasses), the merge, the check generator (and
    hashlib) and difflib for its diffs."""
    source = _source(tmp_path)
    out = tmp_path / "evals"
    dialect = tmp_path / "dialect.yaml"
    dialect.write_text("adhd-evals-dialect: 1\nformat: evals-json\n", encoding="utf-8")
    _run(tmp_path, "import", "--format", "evals-json", str(source), "--out", str(out))
    _, modules = _run(
        tmp_path,
        "import",
        "--format",
        "evals-json",
        str(source),
        "--out",
        str(out),
        "--dialect",
        str(dialect),
        "--dry-run",
    )
    assert _loaded(modules, NOT_TO_STDOUT) == [
        "adhd_evals.importing.checkgen",
        "adhd_evals.importing.dialect",
        "adhd_evals.importing.dialect_schema",
        "adhd_evals.importing.merge",
        "dataclasses",
        "difflib",
        "hashlib",
        "inspect",
    ]


def test_an_import_and_a_source_lint_compile_no_string_annotation(tmp_path: Path) -> None:
    """typing.NamedTuple compiles each string field annotation, and a process's first compile sets
    up the compiler (about 1 ms): an import to stdout and the lint of an evals.json and of a YAML
    folder make none (the readers' NamedTuples are annotated without `from __future__`)."""
    source = _source(tmp_path)
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "a.yaml").write_text("name: a\ntask: Say hello.\n", encoding="utf-8")
    ok = exitcodes.OK
    assert string_annotations_made(tmp_path, "import", "--format", "evals-json", str(source)) == (ok, [])
    assert string_annotations_made(tmp_path, "lint", str(source)) == (ok, [])
    assert string_annotations_made(tmp_path, "lint", str(folder)) == (ok, [])
