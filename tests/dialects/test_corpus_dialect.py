"""The corpus dialect (tests/corpus/evals-json.dialect.yaml, written with survey and
judgment) imports every real evals.json whose cases are a list of objects with a
prompt-like string; the rest are refused, each for the reason written here."""

from __future__ import annotations

from pathlib import Path

import pytest

from adhd_evals.catalog import validate_lines
from adhd_evals.importing import dialect
from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import Refusal
from conftest import CORPUS

DIALECT = Path(__file__).resolve().parent.parent / "corpus" / "evals-json.dialect.yaml"
FOLDER = CORPUS / "evals-json"
# Files that are not cases with string prompts, and what each holds instead.
NOT_CASES = {
    "182311729zhouyicheng__paper-style-deconstruct__evals_evals.json": "prompt",  # papers to read, no prompt
    "1997nanana__nana-prd-writing__evals_evals.json": "at least one case",  # an empty case list
    "STZ5353__glm-vision__evals.json": "a case list",  # a results file
    "UrsaMU__ursamu-dev-skill__skill_evals_evals.json": "a case list",  # trigger phrases
    "fulloa-01__github-skill__evals.json": "prompt",  # case 4 has a prompt_sequence list
}

pytestmark = [pytest.mark.corpus,
              pytest.mark.skipif(not FOLDER.is_dir(), reason="../shared/corpus is not beside this checkout")]


def _files() -> list[Path]:
    return sorted(FOLDER.glob("*.json")) if FOLDER.is_dir() else []


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name[:50])
def test_corpus_file_imports_with_the_dialect_or_is_not_cases(path: Path) -> None:
    loaded = dialect.load(DIALECT)
    if path.name in NOT_CASES:
        with pytest.raises(Refusal) as refused:
            import_source("evals-json", path, dialect=loaded)
        assert NOT_CASES[path.name] in str(refused.value)
        return
    outcome = import_source("evals-json", path, dialect=loaded)
    count, problems = validate_lines(outcome.catalog.splitlines())
    assert problems == [] and count == len(outcome.result.cases)
    compile(outcome.module, path.name, "exec")


def test_corpus_dialect_converts_typed_assertions() -> None:
    if not _files():
        pytest.skip("no corpus")
    loaded = dialect.load(DIALECT)
    converted = 0
    for path in _files():
        if path.name not in NOT_CASES:
            result = import_source("evals-json", path, dialect=loaded).result
            converted += sum(check.mechanical for case in result.cases for check in case.checks)
    assert converted > 0
