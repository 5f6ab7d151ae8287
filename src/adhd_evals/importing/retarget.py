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

import libcst as cst

from .checkgen import literal
from .registrations import DECORATOR


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
