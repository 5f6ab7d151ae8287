"""A file's format told by its name without compiling a glob (issue 38's start-up): the catalogue's
`name_matches` answers as `fnmatch.fnmatchcase` does, and every glob a format matches names with
is of the two shapes it answers without fnmatch."""

from __future__ import annotations

import fnmatch

from hypothesis import given
from hypothesis import strategies as st

from adhd_evals.importing.catalogue import formats
from adhd_evals.importing.catalogue.declare import _MAGIC, name_matches

# a small alphabet holding every character fnmatch reads, so the cases meet each branch often
WORDS = st.text(alphabet="ab.*?[]!-", max_size=8)


@given(name=WORDS, glob=WORDS)
def test_name_matches_is_fnmatchcase(name: str, glob: str) -> None:
    assert name_matches(name, glob) == fnmatch.fnmatchcase(name, glob)


def test_each_shape_by_hand() -> None:
    """A plain name is equality; `*` then a plain ending is endswith (the ending alone too:
    `*` matches nothing); anything else is fnmatch's (`[`, `?`, a `*` inside)."""
    assert name_matches("evals.json", "evals.json") and not name_matches("xevals.json", "evals.json")
    assert name_matches("a.jsonl", "*.jsonl") and name_matches(".jsonl", "*.jsonl")
    assert not name_matches("a.jsonl.bak", "*.jsonl")
    assert (
        name_matches("a1.py", "a?.py")
        and name_matches("b.py", "[ab].py")
        and not name_matches("c.py", "[ab].py")
    )
    assert name_matches("promptfooconfig.x.yaml", "promptfooconfig*.yaml")


def test_every_format_names_files_with_plain_globs() -> None:
    """So no glob is compiled on the hook's path: each is a plain name or `*` before a plain
    ending (the hook's own path globs, `hook`, are pre-commit's and not matched here)."""
    globs = {
        glob
        for fmt in formats()
        for glob in (*fmt.by_name, *fmt.by_shape, *fmt.by_shape_if_named, *fmt.if_named)
    }
    assert globs
    assert [g for g in sorted(globs) if _MAGIC.intersection(g.removeprefix("*"))] == []
