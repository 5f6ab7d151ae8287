"""Reading JSON text strictly, as every reader and lint need it: duplicate keys refused, and
numbers past Python's digit limit reported where they are.

In the core so that the catalog (core), lint and the importers share one implementation;
`importing.sourcetext` keeps importing these names for its own readers.
"""

from __future__ import annotations

import re
import sys


class DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def unique_pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """json.loads' object_pairs_hook: an object, or DuplicateKey for its first repeated key."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return obj


# ---- numbers past Python's digit limit ---------------------------------------
#
# Python refuses to turn a string of more than 4,300 digits into an int (a
# guard against quadratic time): json.loads and PyYAML then raise a bare
# ValueError. Readers turn it into a refusal that says where the number is.

LONG_NUMBER = re.compile(r"-?\d{4301,}")


def long_number_column(line: str) -> int:
    """1-based column of the first over-long number in one line (1 if none)."""
    found = LONG_NUMBER.search(line)
    return found.start() + 1 if found else 1


def too_long_number(text: str, exc: ValueError) -> str:
    """The message for a ValueError from decoding `text` (a long number, usually)."""
    found = LONG_NUMBER.search(text)
    if found is None:
        return str(exc)
    return (
        f"a number of {len(found.group().lstrip('-')):,} digits "
        f"(Python reads whole numbers of up to {sys.get_int_max_str_digits():,})"
    )
