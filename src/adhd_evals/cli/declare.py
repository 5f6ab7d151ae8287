"""Write cli/_declared.py, the fast path's declarations, from the typer app, and cli/_help.py and
cli/_help_terminal.py, the pre-rendered help (cli.declare_help): `python -m adhd_evals.cli.declare`
(tests/test_cli_fast.py, tests/test_cli_fast_help.py and tests/test_help_terminal_served.py fail
when a file is stale).

A command is declared when its stage has a plain body for it (cli/plain/<stage>.py, the typer
function's name without `_command`, with a trailing `_` where that is a keyword) taking exactly
the typer function's parameters, and every parameter is one this reads the same way typer does:
an option with explicit names (no `--x/--no-x`), or an argument, of type str, Path, int, float,
a Literal of strings, a bool flag, a list of one of those (default None or a list of them) or a
tuple of one of them (an option of fixed arity), with no envvar, callback, prompt or custom
type. Anything else keeps the whole command on typer.
"""

from __future__ import annotations

import importlib
import inspect
import json
import keyword
import sys
from enum import Enum
from pathlib import Path
from typing import Literal, get_args, get_origin

from typer.models import ArgumentInfo, OptionInfo, ParameterInfo
from typer.utils import get_params_from_function

from .. import exitcodes
from ..importing.catalogue import source_names
from ..schema import CONDITIONS, DEFAULT_CATALOG, DEFAULT_MODULE, RISKS
from . import COMMANDS
from .declaration import Command, Param

TARGET = Path(__file__).with_name("_declared.py")
# Settings whose every other value changes how typer reads a value: a parameter that sets one
# stays on typer.
PLAIN_SETTINGS: dict[str, object] = {
    "envvar": None,
    "callback": None,
    "is_eager": False,
    "prompt": False,
    "count": False,
    "parser": None,
    "click_type": None,
    "exists": False,
    "resolve_path": False,
    "allow_dash": False,
    "clamp": False,
    "case_sensitive": True,
    "hidden": False,
    "default_factory": None,
}
# Defaults written by the name of their home (tests/test_homes.py: one home per default path)
NAMED: dict[object, str] = {
    Path(DEFAULT_CATALOG): "DEFAULT_CATALOG",
    Path(DEFAULT_MODULE): "DEFAULT_MODULE",
    CONDITIONS: "CONDITIONS",
    RISKS: "RISKS",
}
# Choices whose one home is a function: declared by its name, not copied (tests/test_homes.py)
CHOICES_FROM = {source_names(): "adhd_evals.importing.catalogue:source_names"}
LINE_LENGTH = 110  # pyproject.toml [tool.ruff]
SCALARS = {str: "str", Path: "path", int: "int", float: "float", bool: "flag"}


class Undeclarable(Exception):
    """A command (or one of its parameters) the fast path leaves to typer."""


def declarations() -> dict[str, Command]:
    """Every command that has a plain body and only plain parameters, in the listing's order."""
    found: dict[str, Command] = {}
    for name, stage in COMMANDS.items():
        try:
            found[name] = _command(name, stage)
        except Undeclarable:
            continue
    return found


def _command(name: str, stage: str) -> Command:
    commands = importlib.import_module(f"adhd_evals.cli.{stage}").commands
    (info,) = [info for info in commands.registered_commands if info.name == name]
    callback = info.callback
    body_name = callback.__name__.removesuffix("_command")
    if keyword.iskeyword(body_name):
        body_name += "_"  # `import`'s body is import_
    try:
        plain = importlib.import_module(f"adhd_evals.cli.plain.{stage}")
    except ModuleNotFoundError as exc:
        raise Undeclarable(stage) from exc
    body = getattr(plain, body_name, None)
    if body is None:
        raise Undeclarable(name)
    declared = get_params_from_function(callback)
    if list(declared) != list(inspect.signature(body).parameters):
        raise ValueError(f"{plain.__name__}.{body_name} does not take {name}'s parameters in its order")
    params = tuple(_param(key, meta.annotation, meta.default) for key, meta in declared.items())
    return Command(f"{plain.__name__}:{body_name}", params)


def _param(name: str, annotation: object, info: object) -> Param:
    """One parameter as typer reads it (typer.utils: its names, type and default)."""
    if not isinstance(info, (OptionInfo, ArgumentInfo)):
        raise Undeclarable(name)
    if any(getattr(info, key, value) != value for key, value in PLAIN_SETTINGS.items()):
        raise Undeclarable(name)
    many, kind, choices, nargs = _kind(annotation)
    flags = _flags(name, info, kind)
    if nargs > 1 and not flags:
        raise Undeclarable(name)  # an argument of fixed arity: not one this reads
    required = info.default is ...
    default = None if required else info.default
    _check_default(default, many=many)
    low, high = getattr(info, "min", None), getattr(info, "max", None)
    choices_from = CHOICES_FROM.get(choices, "")
    if choices_from:
        choices = ()
    return Param(name, flags, kind, choices, many, default, required, low, high, nargs, choices_from)


def _kind(base: object) -> tuple[bool, str, tuple[str, ...], int]:
    """(a list?, the kind, the choices, the words per value) of a parameter's type, an Optional's
    None aside: a tuple of one type (tuple[Path, Path]) is an option of that many words."""
    args = [arg for arg in get_args(base) if arg is not type(None)]
    if get_origin(base) not in (list, tuple) and type(None) in get_args(base) and len(args) == 1:
        base, args = args[0], list(get_args(args[0]))
    many, nargs = get_origin(base) is list, 1
    if get_origin(base) is tuple and len(args) > 1 and len(set(args)) == 1 and args[0] is not bool:
        nargs, args = len(args), args[:1]
    if many or nargs > 1:
        (base,) = args
        args = list(get_args(base))
    if get_origin(base) is Literal and all(isinstance(arg, str) for arg in args):
        return many, "choice", tuple(str(arg) for arg in args), nargs
    if isinstance(base, type) and base in SCALARS and not (many and base is bool):
        return many, SCALARS[base], (), nargs
    raise Undeclarable(str(base))


def _flags(name: str, info: ParameterInfo, kind: str) -> tuple[str, ...]:
    if isinstance(info, ArgumentInfo):
        return ()
    decls = tuple(str(decl) for decl in info.param_decls or ())
    if not decls or any("/" in decl for decl in decls):
        raise Undeclarable(name)  # typer's own names (--x/--no-x for a flag): left to it
    return decls


def _check_default(default: object, *, many: bool) -> None:
    """A default the generated module can write and the fast path pass on as typer does: None, a
    scalar, or (for a list) a list of scalars."""
    items = default if many and isinstance(default, list) else [default]
    for item in items:
        if item is not None and (isinstance(item, Enum) or type(item) not in (*SCALARS, type(Path()))):
            raise Undeclarable(repr(default))


def _literal(value: object) -> str:
    """Python source for a declared value, strings in double quotes (ruff's style)."""
    if isinstance(value, Path) and value in NAMED:
        return f"Path({NAMED[value]})"  # the default's one home stays schema.py
    if isinstance(value, tuple) and value in NAMED:
        return str(NAMED[value])
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, Path):
        return f"Path({json.dumps(str(value))})"
    if isinstance(value, tuple):
        inner = ", ".join(_literal(item) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return f"[{', '.join(_literal(item) for item in value)}]"
    return repr(value)


def render(found: dict[str, Command]) -> str:
    """The text of cli/_declared.py: one Command per declared command, ruff's own layout."""
    lines = [
        '"""The fast path\'s declarations, generated from the typer app by `python -m',
        'adhd_evals.cli.declare`: do not edit (tests/test_cli_fast.py regenerates and compares)."""',
        "",
        "from __future__ import annotations",
        "",
        "from pathlib import Path",
        "",
        f"from ..schema import {', '.join(sorted(NAMED.values()))}",
        "from .declaration import Command, Param",
        "",
        "COMMANDS: dict[str, Command] = {",
    ]
    for name, command in found.items():
        lines += [f"    {_literal(name)}: Command(", f"        {_literal(command.body)},", "        ("]
        lines += [_param_source(param) for param in command.params]
        lines += ["        ),", "    ),"]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _param_source(param: Param) -> str:
    """One Param as ruff lays it out: on one line when it fits in 110 columns, else one
    argument a line (name, flags and kind by position, the rest by keyword where not default)."""
    arguments = [
        _literal(value) if field in ("name", "flags", "kind") else f"{field}={_literal(value)}"
        for field, value in _fields(param)
    ]
    line = f"            Param({', '.join(arguments)}),"
    if len(line) <= LINE_LENGTH:
        return line
    return "\n".join(["            Param(", *(f"                {a}," for a in arguments), "            ),"])


def _fields(param: Param) -> list[tuple[str, object]]:
    """The fields of `param` that differ from Param's defaults (name, flags and kind always)."""
    defaults = Param("", (), "")
    return [
        (field, value)
        for field, value in zip(Param._fields, param, strict=True)
        if field in ("name", "flags", "kind") or value != getattr(defaults, field)
    ]


def main(argv: list[str]) -> int:
    """Write the declarations to cli/_declared.py, or to the one path given."""
    target = Path(argv[0]) if argv else TARGET
    target.write_text(render(declarations()), encoding="utf-8")
    print(f"Wrote {target}.", file=sys.stderr)
    if not argv:  # the help texts beside them (a path given: the declarations alone, for a test)
        from . import declare_help

        for written in declare_help.write():
            print(f"Wrote {written}.", file=sys.stderr)
    return exitcodes.OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
