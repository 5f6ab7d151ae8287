"""Every real-world file in ../shared/corpus imports or is refused precisely; none crashes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from adhd_evals.catalog import validate_lines
from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import Refusal
from helpers import CORPUS

pytestmark = pytest.mark.corpus
FORMATS = {"evals-json": "evals-json", "yaml": "yaml", "evalflow": "evalflow"}


def _sources() -> list[tuple[str, Path]]:
    found: list[tuple[str, Path]] = []
    for folder, fmt in FORMATS.items():
        base = CORPUS / folder
        if not base.is_dir():
            continue
        for entry in sorted(base.iterdir()):
            if entry.name == "MANIFEST.tsv":
                continue
            found.append((fmt, entry))  # a folder is a directory import
    return found


SOURCES = _sources()
if not SOURCES:
    pytest.skip("../shared/corpus is not here (a user's clone has none)", allow_module_level=True)


@pytest.mark.parametrize(("fmt", "source"), [pytest.param(f, s, id=f"{f}/{s.name}") for f, s in SOURCES])
def test_corpus_file_imports_or_is_refused_precisely(fmt: str, source: Path) -> None:
    try:
        outcome = import_source(fmt, source)
    except Refusal as refusal:
        assert source.name in refusal.message
        # precise: it says which field, and what was expected or found
        assert refusal.field_path or refusal.actual
        return
    count, problems = validate_lines(outcome.catalog.splitlines())
    assert problems == [] and count == len(outcome.result.cases) > 0
    compile(outcome.module, str(source), "exec")


def test_evalflow_lookalike_is_refused_by_name() -> None:
    lookalike = next(CORPUS.glob("evalflow/Emart29__llm-quality-gate*.json"), None)
    if lookalike is None:
        pytest.skip("look-alike not in this corpus")
    with pytest.raises(Refusal) as caught:
        import_source("evalflow", lookalike)
    assert "another tool's dataset" in (caught.value.hint or "")


def test_merge_conflict_file_is_refused_by_line() -> None:
    conflicted = next(CORPUS.glob("yaml/comptergeeks__*captcha*.yaml"), None)
    if conflicted is None:
        pytest.skip("conflicted file not in this corpus")
    with pytest.raises(Refusal) as caught:
        import_source("yaml", conflicted)
    assert caught.value.line == 2 and "merge-conflict" in caught.value.message


def corpus_report() -> Counter[str]:
    """How many of each format imported, and which codes refused the rest (for notes)."""
    tally: Counter[str] = Counter()
    for fmt, source in SOURCES:
        try:
            import_source(fmt, source)
            tally[f"{fmt}: imported"] += 1
        except Refusal as refusal:
            tally[f"{fmt}: {refusal.code.value}"] += 1
    return tally
