"""The hook reads each check module once a run (issue 38's start-up): pre-commit passes a catalog
and the checks.py beside it, and both the catalog's folder rules and the module's own rules read
that module. Parsing it is the largest part of a hook run's own work after its imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from adhd_evals.entry import main
from adhd_evals.lint import lint_paths

EVALS_JSON = '{"skill_name": "s", "evals": [{"id": 1, "prompt": "p", "assertions": ["Answers 4."]}]}'


def _imported(tmp: Path) -> Path:
    """evals/cases.jsonl and its checks.py, as `import --out` writes them."""
    source = tmp / "evals.json"
    source.write_text(EVALS_JSON, encoding="utf-8")
    assert main(["import", "--format", "evals-json", str(source), "--out", str(tmp / "evals")]) == 0
    return tmp / "evals" / "cases.jsonl"


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The file names ast.parse is called with from now on."""
    seen: list[str] = []
    parse = ast.parse

    def counted(source: str, filename: str = "<unknown>", *args: object, **kwargs: object) -> ast.Module:
        seen.append(filename)
        return parse(source, filename)

    monkeypatch.setattr(ast, "parse", counted)
    return seen


def test_the_hooks_checks_py_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The catalog first (its folder rules ask which ids checks.py registers), then checks.py
    itself (its module rules): one parse between them. Worked by hand: the import wrote one
    case with a prose assertion, so checks.py holds one unwritten placeholder (W203) and
    registers the catalog's one case (no W-orphan, no E-unchecked)."""
    catalog = _imported(tmp_path)
    module = catalog.parent / "checks.py"
    seen = _parses(monkeypatch)
    report = lint_paths([catalog, module])
    assert seen == [str(module)]
    assert [p.code for p in report.problems] == ["W203"]


def test_two_runs_read_the_module_afresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reads are a run's, not the process's: a module edited between two runs is read again
    (an unclosed parenthesis appended: the second run reports the module's syntax error)."""
    catalog = _imported(tmp_path)
    module = catalog.parent / "checks.py"
    seen = _parses(monkeypatch)
    lint_paths([module])
    module.write_text(module.read_text(encoding="utf-8") + "\nx = (\n", encoding="utf-8")
    second = lint_paths([module])
    assert seen == [str(module), str(module)]
    assert [p.code for p in second.problems] == ["E111"]  # module-syntax (rules/module_syntax.py)
