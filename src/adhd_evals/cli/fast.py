"""The fast path: a command line that parses cleanly under its command's declaration calls the
command's plain body without importing typer (nor the click, pydantic and rich it brings).

The declarations (`_declared`) are generated from the typer app (`python -m
adhd_evals.cli.declare`), so they name the same options, types, limits and defaults typer
reads. This parser takes only what it is sure typer would take the same way, and defers
(returns None) on anything else: an unknown or repeated option, a value that starts with a
dash, a number with a sign or a leading zero, a value out of its limits or choices, a missing
argument, --help. Typer then parses the line as it always did, so every usage error and help
text is typer's own (tests/test_cli_fast.py compares the two parsers' calls).
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

from .declaration import Command, Param

# Set, it asks click's shell completion for candidates instead of running anything: typer's job
COMPLETION = "_ADHD_EVALS_COMPLETE"


def run(argv: list[str]) -> int | None:
    """Run `argv` through its command's plain body, or None when typer must parse it."""
    if not argv or os.environ.get(COMPLETION):
        return None
    from ._declared import COMMANDS

    command = COMMANDS.get(argv[0])
    if command is None:
        return None
    keywords = parse(command, argv[1:])
    if keywords is None:
        return None
    module, _, function = command.body.partition(":")
    result: int = getattr(importlib.import_module(module), function)(**keywords)
    return result


def parse(command: Command, words: list[str]) -> dict[str, object] | None:
    """The body's keyword arguments for `words`, or None when they do not parse cleanly."""
    given = _split(command, words)
    if given is None:
        return None
    keywords: dict[str, object] = {}
    for param in command.params:
        value = _value(param, given.get(param.name, []))
        if value is _DEFER:
            return None
        keywords[param.name] = value
    return keywords


def _split(command: Command, words: list[str]) -> dict[str, list[str]] | None:
    """Each parameter's words, options by their flags and arguments by position."""
    flags = {flag: param for param in command.params for flag in param.flags}
    given: dict[str, list[str]] = {}
    positional: list[str] = []
    at = 0
    while at < len(words):
        word = words[at]
        at += 1
        if not word.startswith("-"):
            positional.append(word)
            continue
        name, equals, value = word.partition("=")
        param = flags.get(name)
        if param is None or (equals and (param.kind == "flag" or not name.startswith("--"))):
            return None  # unknown, --help, "--", "-", "-f=x" (click reads "=x"), "--flag=x"
        if param.kind == "flag":
            taken = [""]
        elif equals:
            if param.nargs > 1:
                return None  # "--pair=a b": click reads it so, but it is not how anyone writes it
            taken = [value]
        else:
            taken, at = words[at : at + param.nargs], at + param.nargs
            if len(taken) < param.nargs or any(word.startswith("-") for word in taken):
                return None
        given.setdefault(param.name, []).extend(taken)
    return _place(command, positional, given)


def _place(
    command: Command, positional: list[str], given: dict[str, list[str]]
) -> dict[str, list[str]] | None:
    """The positional words given to the arguments in order (one taking all that are left)."""
    for param in command.params:
        if param.flags:
            continue
        if param.many:
            given[param.name], positional = positional, []
        elif positional:
            given[param.name], positional = positional[:1], positional[1:]
    return None if positional else given


class _Defer:
    """The marker of a value this parser leaves to typer."""


_DEFER = _Defer()


def _value(param: Param, words: list[str]) -> object:
    """The value typer would pass for `words`, or _DEFER."""
    if not words:
        if param.required:
            return _DEFER
        # a fresh copy of a list default, as typer makes one per call
        return list(param.default) if isinstance(param.default, list) else param.default
    if param.kind == "flag":
        return True if len(words) == 1 else _DEFER  # a flag twice: typer's to judge
    if not param.many and len(words) > param.nargs:
        return _DEFER  # given twice
    values = [_convert(param, word) for word in words]
    if any(value is _DEFER for value in values):
        return _DEFER
    if param.nargs > 1:
        return tuple(values)
    return values if param.many else values[0]


def _convert(param: Param, word: str) -> object:
    """One word as `param`'s type, or _DEFER."""
    if param.kind == "str":
        return word
    if param.kind == "path":
        return Path(word) if word else _DEFER
    if param.kind == "choice":
        return word if word in choices(param) else _DEFER
    if not _plain_number(word, fraction=param.kind == "float"):
        return _DEFER
    value = int(word) if param.kind == "int" else float(word)
    if (param.low is not None and value < param.low) or (param.high is not None and value > param.high):
        return _DEFER
    return value


def choices(param: Param) -> tuple[str, ...]:
    """A choice parameter's values: declared, or from their home (`choices_from`)."""
    if not param.choices_from:
        return param.choices
    module, _, function = param.choices_from.partition(":")
    found: tuple[str, ...] = getattr(importlib.import_module(module), function)()
    return found


def _plain_number(word: str, *, fraction: bool) -> bool:
    """A number as click and pydantic read it alike: ASCII digits, no sign, no leading zero, no
    underscore, no exponent; a float may have one point with digits on both sides."""
    whole, point, part = word.partition(".")
    if not (whole.isascii() and whole.isdigit()) or (len(whole) > 1 and whole[0] == "0"):
        return False
    return not point or (fraction and part.isascii() and part.isdigit())
