"""lint --dialect and import --dialect agree on every dialect fixture (good and bad), so
the hook says what the import would: the same cases, the same refusal in the same words."""

from __future__ import annotations

import pytest

from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import Refusal, RefusalCode
from adhd_evals.lint import lint_paths
from helpers import Fixture, fixtures


def _with_dialect(kind: str) -> list[Fixture]:
    found = [f for f in fixtures(kind) if "dialect" in f.meta and f.format == "evals-json"]
    return [f for f in found if f.meta.get("code") != RefusalCode.DIALECT_INVALID.value]


@pytest.mark.parametrize("fixture", [pytest.param(f, id=f.name) for f in _with_dialect("good")])
def test_lint_reads_a_good_fixture_as_the_import_does(fixture: Fixture) -> None:
    result = import_source("evals-json", fixture.source, dialect=fixture.dialect()).result
    report = lint_paths([fixture.source], forced="evals-json", dialect=fixture.dialect())
    assert report.problems == []
    assert report.cases == len(result.cases)


@pytest.mark.parametrize("fixture", [pytest.param(f, id=f.name) for f in _with_dialect("bad")])
def test_lint_refuses_a_bad_fixture_in_the_import_words(fixture: Fixture) -> None:
    name = fixture.source.name
    with pytest.raises(Refusal) as refused:
        import_source("evals-json", fixture.source, display=name, dialect=fixture.dialect())
    report = lint_paths([fixture.source], forced="evals-json", dialect=fixture.dialect())
    first = report.problems[0]
    assert first.message.startswith(refused.value.body)
    assert (first.line, first.column) == (refused.value.line, refused.value.column)
