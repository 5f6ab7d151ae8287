"""Which edited check follows which reworded criterion: the pairing half of retargeting.

A re-import pairs each check a person edited whose criterion is gone with a fresh criterion of
the same case, only where the match is unambiguous (retarget.py says which matches count). The
pairing is plain text work, so it lives apart from the codemod: a re-import that pairs nothing
never imports libcst (about 0.2 s), which only the rewrite of a paired check needs.
"""

import re
import string
from typing import NamedTuple

_PUNCTUATION = re.compile(f"[{re.escape(string.punctuation)}]")
_SPACE = re.compile(r"\s+")


def normalized(text: str) -> str:
    return _SPACE.sub(" ", _PUNCTUATION.sub("", text.casefold())).strip()


class Old(NamedTuple):
    """A check region of the existing module: where it sits in its case, and what it says."""

    key: str
    case_id: str | None
    criterion: str | None
    position: int


def pair(
    orphans: list[Old], fresh: list[tuple[str, str, int]], old_count: int, new_count: int
) -> dict[str, str]:
    """Orphan keys -> fresh unit keys, only where the match is unambiguous.

    `fresh` holds (unit key, criterion, position) of criteria with no region yet.
    """
    pairs: dict[str, str] = {}
    by_text: dict[str, list[str]] = {}
    for key, criterion, _ in fresh:
        by_text.setdefault(normalized(criterion), []).append(key)
    orphan_texts: dict[str, list[str]] = {}
    for old in orphans:
        if old.criterion is not None:
            orphan_texts.setdefault(normalized(old.criterion), []).append(old.key)
    for text, keys in orphan_texts.items():
        if len(keys) == 1 and len(by_text.get(text, [])) == 1:
            pairs[keys[0]] = by_text[text][0]
    left = [o for o in orphans if o.key not in pairs]
    open_fresh = [f for f in fresh if f[0] not in pairs.values()]
    in_place = len(left) == 1 and len(open_fresh) == 1 and old_count == new_count
    if in_place and left[0].position == open_fresh[0][2]:
        pairs[left[0].key] = open_fresh[0][0]
    return pairs
