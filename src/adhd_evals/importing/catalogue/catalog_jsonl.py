"""The five-field catalog (`cases.jsonl`): what `import` writes and every later command reads.
Linted, never imported (`import` refuses it: it is adhd-evals' own output)."""

from __future__ import annotations

from ...schema import DEFAULT_CATALOG
from .declare import Format

FORMAT = Format(
    name="catalog",
    description="a five-field catalog (JSONL)",
    reader=None,
    refusal=None,
    by_name=("*.jsonl",),
    hook=(f"{DEFAULT_CATALOG.parent.as_posix()}/*.jsonl",),  # evals/*.jsonl: the catalog's folder
)
