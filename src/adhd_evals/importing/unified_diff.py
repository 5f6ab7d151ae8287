"""The unified diffs an import's dry run prints (`import --dry-run`), the size `diff -u` prints.

Apart from the importer so that difflib loads for a dry run alone, not on every import's start-up.
"""

from __future__ import annotations

import difflib
from typing import Literal


def unified(a: list[str], b: list[str], fromfile: str, tofile: str, context: int = 3) -> str:
    """A unified diff the size `diff -u` prints.

    difflib.unified_diff's matcher treats lines found in over 1% of a long file
    as junk (blank lines, `return unwritten(...)`, the markers): a check module
    then matches almost nothing, and one changed criterion printed a diff of the
    whole file (28,751 lines where `diff -u` prints 95). Lines are matched here by
    patience diff instead (lines that occur once on each side anchor the match;
    O(n log n)), as git's --patience does.
    """
    out: list[str] = []
    for group in _Opcodes(_opcodes(a, b)).get_grouped_opcodes(context):
        if not out:
            out += [f"--- {fromfile}\n", f"+++ {tofile}\n"]
        first, last = group[0], group[-1]
        out.append(f"@@ -{_span(first[1], last[2])} +{_span(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + _line(line) for line in a[i1:i2]]
                continue
            out += ["-" + _line(line) for line in a[i1:i2]]
            out += ["+" + _line(line) for line in b[j1:j2]]
    return "".join(out)


Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]


class _Opcodes(difflib.SequenceMatcher[str]):
    """difflib's hunk grouping over opcodes computed elsewhere."""

    def __init__(self, opcodes: list[Opcode]) -> None:
        super().__init__(None, [], [])
        self._found = opcodes

    def get_opcodes(self) -> list[Opcode]:
        return self._found


def _opcodes(a: list[str], b: list[str]) -> list[Opcode]:
    pairs: list[tuple[int, int]] = []
    _patience(a, b, 0, len(a), 0, len(b), pairs)
    codes: list[Opcode] = []
    i = j = 0
    for x, y in [*pairs, (len(a), len(b))]:
        if x > i or y > j:
            tag: Literal["replace", "delete", "insert"] = (
                "replace" if x > i and y > j else "delete" if x > i else "insert"
            )
            codes.append((tag, i, x, j, y))
        if x < len(a) or y < len(b):
            if codes and codes[-1][0] == "equal" and codes[-1][2] == x:
                codes[-1] = ("equal", codes[-1][1], x + 1, codes[-1][3], y + 1)
            else:
                codes.append(("equal", x, x + 1, y, y + 1))
        i, j = x + 1, y + 1
    return codes


def _patience(
    a: list[str], b: list[str], alo: int, ahi: int, blo: int, bhi: int, pairs: list[tuple[int, int]]
) -> None:
    """Append to `pairs` the matched (i, j) lines of a[alo:ahi] and b[blo:bhi], in order."""
    while alo < ahi and blo < bhi and a[alo] == b[blo]:
        pairs.append((alo, blo))
        alo, blo = alo + 1, blo + 1
    tail: list[tuple[int, int]] = []
    while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
        ahi, bhi = ahi - 1, bhi - 1
        tail.append((ahi, bhi))
    if alo < ahi and blo < bhi:
        anchors = _unique_anchors(a, b, alo, ahi, blo, bhi)
        if anchors:
            i, j = alo, blo
            for x, y in anchors:
                _patience(a, b, i, x, j, y, pairs)
                pairs.append((x, y))
                i, j = x + 1, y + 1
            _patience(a, b, i, ahi, j, bhi, pairs)
        else:  # no line occurs once on each side: difflib on this stretch alone
            matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            for block in matcher.get_matching_blocks():
                pairs += [(alo + block.a + k, blo + block.b + k) for k in range(block.size)]
    pairs += reversed(tail)


def _unique_anchors(
    a: list[str], b: list[str], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """Lines occurring once in each range, matched, longest increasing run by position in b."""
    from bisect import bisect_left
    from collections import Counter

    in_a, in_b = Counter(a[alo:ahi]), Counter(b[blo:bhi])
    where = {b[j]: j for j in range(blo, bhi) if in_b[b[j]] == 1}
    candidates = [(i, where[a[i]]) for i in range(alo, ahi) if in_a[a[i]] == 1 and a[i] in where]
    tops: list[int] = []  # patience sorting: the smallest j ending a run of each length
    ends: list[int] = []  # index into candidates of that run's last pair
    back: list[int] = []
    for index, (_, j) in enumerate(candidates):
        k = bisect_left(tops, j)
        back.append(ends[k - 1] if k else -1)
        if k == len(tops):
            tops.append(j)
            ends.append(index)
        else:
            tops[k], ends[k] = j, index
    run: list[tuple[int, int]] = []
    at = ends[-1] if ends else -1
    while at >= 0:
        run.append(candidates[at])
        at = back[at]
    return run[::-1]


def _span(begin: int, end: int) -> str:
    """A hunk's line range as diff -u writes it (1-based; an empty range names the line before)."""
    length = end - begin
    if length == 1:
        return str(begin + 1)
    return f"{begin + 1 if length else begin},{length}"


def _line(line: str) -> str:
    return line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
