"""Hand-written checks follow their criteria when the source rewords them.

When a re-import finds a check a person edited whose criterion is gone, and
a fresh criterion of the same case that is recognisably the same one, the
edited check is retargeted: a libcst codemod rewrites its `@check(...)`
arguments and its function name and leaves the body, its comments and its
formatting byte for byte. Recognisably the same means one of, and only
unambiguously (one candidate each way; else the check stays an orphan, kept
and reported, as before):
- the same text once whitespace, letter case and punctuation are normalised;
- the only reworded criterion of a case whose other criteria kept their
  places (one edited orphan, one fresh criterion, at the same position, in
  a case with as many criteria as before).
A case whose id changed but whose prompt did not (in the catalog beside the
module) is the same case: its edited checks move to the new id the same way.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

import libcst as cst

from .checkgen import literal
from .registrations import DECORATOR

_PUNCTUATION = re.compile(f"[{re.escape(string.punctuation)}]")
_SPACE = re.compile(r"\s+")


def normalized(text: str) -> str:
    return _SPACE.sub(" ", _PUNCTUATION.sub("", text.casefold())).strip()


@dataclass(frozen=True)
class Old:
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


class _Retarget(cst.CSTTransformer):
    """Rewrites the one function the import wrote (`target`); every other function,
    a person's own @check included, is left as written."""

    def __init__(self, target: str, case_id: str, criterion: str, name: str) -> None:
        self.target, self.case_id, self.criterion, self.name = target, case_id, criterion, name
        self.done = False

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        if self.done or original.name.value != self.target:
            return updated
        decorators = []
        found = False
        for decorator in updated.decorators:
            call = decorator.decorator
            if (
                not found
                and isinstance(call, cst.Call)
                and isinstance(call.func, cst.Name)
                and call.func.value == DECORATOR
                and len(call.args) >= 2
            ):
                args = [
                    call.args[0].with_changes(value=cst.SimpleString(literal(self.case_id))),
                    call.args[1].with_changes(value=cst.SimpleString(literal(self.criterion))),
                    *call.args[2:],
                ]
                decorator = decorator.with_changes(decorator=call.with_changes(args=args))
                found = True
            decorators.append(decorator)
        if not found:
            return updated
        self.done = True
        return updated.with_changes(decorators=decorators, name=cst.Name(self.name))


def retarget(text: str, target: str, case_id: str, criterion: str, name: str) -> str | None:
    """The region with the @check arguments and the name of its function `target` (the one
    the import wrote) rewritten; None if it cannot be."""
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        return None
    changer = _Retarget(target, case_id, criterion, name)
    rewritten = module.visit(changer)
    return rewritten.code if changer.done else None
