"""The hook's start-up, guarded by what each lint path imports (not by a clock).

pre-commit starts `adhd-evals lint` on every commit, so what a lint run imports is its
start-up cost: typer alone costs more than linting a catalog, dataclasses pulls in inspect
(about 7 ms), shutil pulls in bz2 and lzma. Each path runs in a fresh interpreter (nothing
another test imported can hide an import), lints a real input, and lists `sys.modules` at
exit. The figures themselves are in `tests/bench/run.py --only startup`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from adhd_evals.entry import main
from helpers import FORWARD_REF_PROBE, string_annotations_made, unmeasured_environment

GOOD = '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["Answers 102."]}\n'
EVALS_JSON = '{"skill_name": "s", "evals": [{"id": 1, "prompt": "p", "assertions": ["Answers 4."]}]}'

# Never on any lint path: the CLI framework, the codemod and schema libraries, the YAML
# round-tripper, numerics. (typer is the main CLI's; lint's own parser is argparse.)
NEVER = ("typer", "click", "rich", "pydantic", "libcst", "jsonschema", "ruamel", "numpy")
# Not where nothing needs them: PyYAML outside a YAML case; dataclasses (and so inspect),
# shutil (bz2, lzma), hashlib and the import's source scanner on a catalog or check module;
# ast (a module's parser) on a catalog with no module beside it; nor the catalog reader's module
# (validate's and the runs', whose TypedDict and NamedTuple cost the hook a millisecond): lint
# streams a catalog with catalogrules.stream alone.
YAML = ("yaml", "_yaml")
CATALOG_NEVER = (
    "dataclasses",
    "inspect",
    "shutil",
    "hashlib",
    "adhd_evals.importing.sourcetext",
    "adhd_evals.catalog",
)
# Not where a source file (an evals.json, a YAML folder) is linted without a dialect: the dialect
# reader and its dataclasses (with inspect), the catalog's and the module's rules (lint's rule
# modules, catalogrules, the catalog reader), the merge and the check generator. Each of these was
# imported there before issue 38's start-up work (docs/startup.md).
SOURCE_NEVER = (
    "dataclasses",
    "inspect",
    "hashlib",
    "adhd_evals.importing.dialect",
    "adhd_evals.importing.dialect_schema",
    "adhd_evals.catalog",
    "adhd_evals.catalogrules",
    "adhd_evals.lint.rules",
    "adhd_evals.lint.engine",
    "adhd_evals.importing.merge",
    "adhd_evals.importing.checkgen",
)
# Not on a clean command line (tests/test_lint_fast_argv.py): argparse and the locale lookup its
# parser makes, nor the SARIF and step-summary writer (only for sarif or under Actions).
CLEAN_LINE_NEVER = ("argparse", "gettext", "locale", "adhd_evals.lint.usage", "adhd_evals.lint.sarif")
PROBE = (
    "import json, sys\n"
    "from adhd_evals.entry import main\n"
    "code = main(['lint', *sys.argv[1:]])\n"
    "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}))\n"
)


def _catalog_alone(tmp: Path) -> list[Path]:
    path = tmp / "evals" / "cases.jsonl"
    path.parent.mkdir()
    path.write_text(GOOD, encoding="utf-8")
    return [path]


def _imported(tmp: Path) -> Path:
    """A catalog as `import --out` writes it, its checks.py and its sources record beside it."""
    source = tmp / "evals.json"
    source.write_text(EVALS_JSON, encoding="utf-8")
    assert main(["import", "--format", "evals-json", str(source), "--out", str(tmp / "evals")]) == 0
    catalog = tmp / "evals" / "cases.jsonl"
    assert (catalog.parent / "checks.py").is_file() and (
        catalog.parent / ".adhd-evals-sources.json"
    ).is_file()
    return catalog


def _catalog_with_checks(tmp: Path) -> list[Path]:
    return [_imported(tmp)]


def _check_module(tmp: Path) -> list[Path]:
    return [_imported(tmp).parent / "checks.py"]


def _hook(tmp: Path) -> list[Path]:
    """What pre-commit passes when both files changed: the catalog and its checks.py."""
    catalog = _imported(tmp)
    return [catalog, catalog.parent / "checks.py"]


def _evals_json(tmp: Path) -> list[Path]:
    path = tmp / "skill" / "evals" / "evals.json"
    path.parent.mkdir(parents=True)
    path.write_text(EVALS_JSON, encoding="utf-8")
    return [path]


def _yaml_folder(tmp: Path) -> Path:
    folder = tmp / "tasks"
    folder.mkdir()
    (folder / "a.yaml").write_text("name: a\ntask: Say hello.\n", encoding="utf-8")
    (folder / "b.yaml").write_text(
        "name: b\ntask: Say bye.\njudge_context:\n  - Is polite\n", encoding="utf-8"
    )
    return folder


PATHS: list[tuple[str, Callable[[Path], list[Path]], tuple[str, ...]]] = [
    ("catalog alone", _catalog_alone, NEVER + YAML + CATALOG_NEVER + CLEAN_LINE_NEVER + ("ast",)),
    ("catalog with checks.py", _catalog_with_checks, NEVER + YAML + CATALOG_NEVER + CLEAN_LINE_NEVER),
    ("check module", _check_module, NEVER + YAML + CATALOG_NEVER + CLEAN_LINE_NEVER),
    ("catalog and checks.py", _hook, NEVER + YAML + CATALOG_NEVER + CLEAN_LINE_NEVER),
    ("evals.json", _evals_json, NEVER + YAML + CLEAN_LINE_NEVER + SOURCE_NEVER),
    ("YAML folder", lambda tmp: [_yaml_folder(tmp)], NEVER + CLEAN_LINE_NEVER + SOURCE_NEVER),
]


def _modules_after_lint(paths: list[Path], *options: str) -> tuple[int, set[str]]:
    argv = [sys.executable, "-c", PROBE, *options, *map(str, paths)]
    # unmeasured: under .ci/run's coverage a measured process holds coverage's own imports
    done = subprocess.run(argv, capture_output=True, text=True, check=True, env=unmeasured_environment())
    last = json.loads(done.stdout.splitlines()[-1])
    assert done.stdout.splitlines()[-2].startswith("Checked "), done.stdout  # it linted
    return last["code"], set(last["modules"])


@pytest.mark.parametrize(("make", "heavy"), [pytest.param(m, h, id=name) for name, m, h in PATHS])
def test_each_lint_path_imports_nothing_heavy(
    tmp_path: Path, make: Callable[[Path], list[Path]], heavy: tuple[str, ...]
) -> None:
    code, modules = _modules_after_lint(make(tmp_path))
    assert code == 0
    assert sorted(m for m in modules if m.split(".")[0] in heavy or m in heavy) == []


def test_the_probe_sees_what_a_path_imports(tmp_path: Path) -> None:
    """The guard can fail: a YAML folder does import PyYAML, a module the lint run itself
    imported (not the probe), and the import's readers."""
    _, modules = _modules_after_lint([_yaml_folder(tmp_path)])
    assert {"yaml", "adhd_evals.lint.lookalike", "adhd_evals.importing.formats.yaml_cases"} <= modules


def test_a_catalog_beside_its_module_loads_the_rules_a_source_does_not(tmp_path: Path) -> None:
    """SOURCE_NEVER can fail: the hook's input (a catalog and its checks.py) loads lint's rule
    modules and the catalog's rules, which a source file's lint leaves out."""
    _, modules = _modules_after_lint(_hook(tmp_path))
    assert {"adhd_evals.lint.rules", "adhd_evals.lint.engine", "adhd_evals.catalogrules"} <= modules


def test_a_dialect_loads_the_dialect_reader(tmp_path: Path) -> None:
    """SOURCE_NEVER's dialect entries can fail: with --dialect the reader (and its dataclasses)
    is imported, and the evals.json is linted as the dialect says."""
    dialect = tmp_path / "dialect.yaml"
    dialect.write_text("adhd-evals-dialect: 1\nformat: evals-json\n", encoding="utf-8")
    code, modules = _modules_after_lint(_evals_json(tmp_path), "--dialect", str(dialect))
    assert code == 0
    assert {"adhd_evals.importing.dialect", "dataclasses"} <= modules


def test_a_line_the_fast_reading_defers_loads_argparse(tmp_path: Path) -> None:
    """The clean-line guard can fail: `--stric` is an abbreviation only argparse reads (lint/argv.py
    defers it), and the run then imports argparse and lint's parser module."""
    code, modules = _modules_after_lint(_catalog_alone(tmp_path), "--stric")
    assert code == 0
    assert {"argparse", "adhd_evals.lint.usage"} <= modules


# The one string annotation left on the hook's path: ast is imported only once a module is read.
FORWARD_REFS_ALLOWED = ["ast.Module | None"]


def test_the_hook_compiles_no_string_annotation(tmp_path: Path) -> None:
    """typing.NamedTuple (and TypedDict) turn each string annotation into a ForwardRef, compiling
    it: about 1 ms over the hook's NamedTuples, so their modules do without `from __future__
    import annotations`. On the hook's input (a catalog and its checks.py) the only one made is
    ModuleRead's tree, whose type (ast's) is not imported until a module is read."""
    assert string_annotations_made(tmp_path, "lint", *map(str, _hook(tmp_path))) == (0, FORWARD_REFS_ALLOWED)


def test_the_forward_ref_count_sees_a_string_annotation(tmp_path: Path) -> None:
    """The count can fail: a NamedTuple made after the probe's patch, with `from __future__ import
    annotations`, makes one ForwardRef a field (worked by hand: two fields, two)."""
    late = (
        "typing.ForwardRef.__init__ = counted\n"
        "exec('from __future__ import annotations\\n"
        "class Late(typing.NamedTuple):\\n    a: int\\n    b: str\\n', {'typing': typing, '__name__': 'm'})\n"
    )
    probe = (
        FORWARD_REF_PROBE.replace("from adhd_evals.entry import main\n", "")
        .replace("code = main(sys.argv[2:])\n", "code = 0\n")
        .replace("typing.ForwardRef.__init__ = counted\n", late)
    )
    assert probe.count("Late") == 1 and "main" not in probe  # every replacement took
    assert string_annotations_made(tmp_path, probe=probe) == (0, ["int", "str"])
