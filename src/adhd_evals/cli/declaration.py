"""What the fast path knows of a command: its parameters as typer declares them, as data. Its own
module so that the generated declarations (`_declared`) and the parser reading them (`fast`)
both import it and neither imports the other."""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled
# one by one (every fast-path command's start-up: see problem.py).
from typing import NamedTuple


class Param(NamedTuple):
    """One parameter of a command as typer declares it; `flags` is empty for an argument."""

    name: str  # the body's keyword
    flags: tuple[str, ...]
    kind: str  # "str", "path", "int", "float", "choice" or "flag"
    choices: tuple[str, ...] = ()
    many: bool = False  # a repeatable option, or an argument taking every word left
    default: object = None
    required: bool = False
    low: float | None = None
    high: float | None = None
    nargs: int = 1  # an option taking a fixed number of words (a pair: 2), passed as a tuple
    # "module:function" giving the choices where they have a home elsewhere (the catalogue's
    # formats): read when a value is parsed, so a format registered at run time counts as typer's
    choices_from: str = ""


class Command(NamedTuple):
    """A command's body ("module:function") and its parameters in typer's order."""

    body: str
    params: tuple[Param, ...]
