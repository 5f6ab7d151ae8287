"""The check module (`checks.py`) `import` writes beside a catalog. Linted, never imported.
In a folder, a `.py` file is one only when it carries the generator's marker lines."""

from __future__ import annotations

from ...schema import DEFAULT_MODULE
from .declare import Format, Head


def _marked(head: Head) -> bool:
    from ..checkgen import MARKER  # checkgen (and hashlib) only when a .py file is met

    return MARKER.encode() in head.bytes


FORMAT = Format(
    name="module",
    description="a check module",
    reader=None,
    refusal=None,
    by_shape=("*.py",),
    if_named=("*.py",),
    looks_like=_marked,
    hook=(DEFAULT_MODULE.as_posix(),),  # evals/checks.py
)
