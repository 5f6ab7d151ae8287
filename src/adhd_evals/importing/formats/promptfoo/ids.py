"""Case ids for a promptfoo config's tests, and the refusal of two cases with one id."""

from __future__ import annotations

from pathlib import Path

from ...model import Case
from .._common import (
    slug,
)
from .config import Source, Test


def _test_ids(tests: list[Test], source: Path) -> list[str]:
    descriptions = [_description(t) for t in tests]
    counts: dict[str, int] = {}
    for text in descriptions:
        if text and slug(text):
            counts[slug(text)] = counts.get(slug(text), 0) + 1
    stem = slug(source.stem) or "promptfoo"
    return [
        slug(d) if d and slug(d) and counts[slug(d)] == 1 else f"{stem}-{t.number}"
        for d, t in zip(descriptions, tests, strict=True)
    ]


def _description(test: Test) -> str | None:
    description = test.data.get("description")
    return description if isinstance(description, str) else None


def _refuse_duplicates(cases: list[Case], source: Source) -> None:
    seen: dict[str, str] = {}
    for case in cases:
        if case.id in seen:
            raise source.refuse(
                case=case.origin,
                field_path="description",
                expected="an id no other test has",
                actual=f'"{case.id}", which {seen[case.id]} has too',
                hint="give the tests distinct descriptions",
            )
        seen[case.id] = case.origin
