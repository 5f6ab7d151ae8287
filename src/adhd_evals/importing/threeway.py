"""A line-based three-way merge: a person's changes to a generated text, carried onto
the text generated anew (as `diff3` does, refusing where both changed the same lines)."""

from __future__ import annotations

import difflib

Edit = tuple[int, int, list[str]]  # base lines [start, end) become these lines


class Conflict(Exception):
    """A person's change touches lines the new generation changes too."""

    def __init__(self, lines: list[int]) -> None:
        self.lines = lines
        shown = ", ".join(map(str, lines[:10])) + (", ..." if len(lines) > 10 else "")
        self.where = f"line{'s' if len(lines) > 1 else ''} {shown}" if lines else "a deleted line"
        super().__init__(self.where)


def _edits(base: list[str], other: list[str]) -> list[tuple[int, int, int, int]]:
    matcher = difflib.SequenceMatcher(None, base, other, autojunk=False)
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Two edits of base ranges collide: they share a line, or one inserts inside the other."""
    (a1, a2), (b1, b2) = a, b
    if a1 == a2 and b1 == b2:
        return False  # two insertions at one place: the new generation's first, then the person's
    if a1 == a2:
        return b1 < a1 < b2
    if b1 == b2:
        return a1 < b1 < a2
    return a1 < b2 and b1 < a2


def three_way(base: str, mine: str, theirs: str) -> str:
    """`theirs` with the changes that turned `base` into `mine`; raises Conflict naming
    the lines of `mine` (1-based) that cannot be carried over."""
    base_lines, my_lines, their_lines = base.split("\n"), mine.split("\n"), theirs.split("\n")
    mine_edits, their_edits = _edits(base_lines, my_lines), _edits(base_lines, their_lines)
    clashing = [
        (j1, j2)
        for i1, i2, j1, j2 in mine_edits
        if any(_overlap((i1, i2), (k1, k2)) for k1, k2, _, _ in their_edits)
    ]
    if clashing:
        raise Conflict([line + 1 for j1, j2 in clashing for line in range(j1, j2)])
    edits: list[tuple[int, int, int, list[str]]] = [
        (i1, i2, 0, their_lines[j1:j2]) for i1, i2, j1, j2 in their_edits
    ]
    edits += [(i1, i2, 1, my_lines[j1:j2]) for i1, i2, j1, j2 in mine_edits]
    out: list[str] = []
    position = 0
    for start, end, _, lines in sorted(edits, key=lambda edit: (edit[0], edit[1] != edit[0], edit[2])):
        out += base_lines[position:start] + lines
        position = max(position, end)
    return "\n".join(out + base_lines[position:])
