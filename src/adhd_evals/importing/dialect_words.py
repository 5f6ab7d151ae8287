"""A dialect's words and its case shape: what the readers need whether or not a dialect is used.

Split from dialect.py so that reading case files without a dialect (every lint, most imports)
does not load the dialect reader, its dataclasses (and the inspect module they import) or its
schema (docs/startup.md): dialect.py builds dialects from these; the readers only name them.
"""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled one by
# one at import, on every lint and import (see model.py), and a process's first compilation sets
# up the compiler (about 1 ms): the names only type checkers import are quoted inside `tuple[]`.
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from .dialect import Place, Skip

NUMBERED = "#"  # `id: "#"`: number cases 1, 2, ... in file order


WHOLE_FILE = "."  # `at: "."`: the file itself is the case list


# The vocabulary, by what a rule's needle must be. Text checks compare text,
# so the dialect must say whether letter case matters.
ONE_TEXT = ("contains", "starts_with", "equals", "matches_exactly", "regex", "not_regex")


TEXTS = ("contains_any", "contains_all", "contains_none", "in_order")


COUNTS = ("min_chars", "max_chars", "min_words", "max_words")


NO_NEEDLE = ("is_json", "unwritten")


# Checks over the run's trace (tracehelpers.py): the needle is the tool's name or the glob, and
# `options` names the keys holding their keyword arguments (plugin eval's min, max, input_match).
TRACED = ("tool_used", "file_created")


TRACE_OPTIONS = {"tool_used": ("input_match", "min", "max"), "file_created": ("exists",)}


VOCABULARY = (*ONE_TEXT, *TEXTS, *COUNTS, *NO_NEEDLE, *TRACED)


CASE_FREE = ("matches_exactly", *COUNTS, *NO_NEEDLE, *TRACED)  # checks that never compare letter case


PATTERNS = ("regex", "not_regex")


MAX_COUNT = 10**9  # a count past this is a typo, not a length anyone means


SKIP = "skip"  # `missing: skip`: a place holding nothing (or what the path cannot walk) gives no criterion


REFUSE = "refuse"


# Checks whose needle list is one check's argument (contains_none stays one check per
# needle, as it always was: splitting it does not change what passes).
ONE_CHECK_LISTS = ("contains_any", "contains_all", "in_order")


class CaseShape(NamedTuple):  # not a dataclass: the readers build the empty one without a dialect
    """Where a case's parts live. Empty tuples mean "the format's own keys"."""

    at: tuple[str, ...] = ()
    prompt: tuple[str, ...] = ()
    id: tuple[str, ...] = ()
    criteria: tuple["Place", ...] = ()  # quoted inside: no ForwardRef to compile (see above)
    category: tuple[str, ...] = ()
    skip: tuple["Skip", ...] = ()


NO_SHAPE = CaseShape()  # the format's own keys everywhere: the shape of a read without a dialect
