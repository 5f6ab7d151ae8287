"""A command-line parser small enough for the fake CLIs, which the suite starts hundreds of
times: argparse and pathlib would cost each start more than the fake's own work.

Options are `--name value` or `--name=value`; flags are `--name`; `--` ends the options; any
other argument is the prompt (the last one wins, as a runner appends the prompt last).
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

Convert = Callable[[str], object]


def parse(
    argv: list[str], options: dict[str, tuple[Convert, object]], flags: tuple[str, ...] = ()
) -> SimpleNamespace:
    """`options` maps `--name` to (its converter, its default); each flag defaults to False;
    the prompt, to ""."""
    args = SimpleNamespace(prompt="", **{_attribute(name): default for name, (_, default) in options.items()})
    for flag in flags:
        setattr(args, _attribute(flag), False)
    rest = iter(argv)
    for word in rest:
        name, equals, inline = word.partition("=")
        if word == "--":  # what follows is the prompt, whatever it looks like
            args.prompt = next(rest, args.prompt)
        elif name in options:
            convert = options[name][0]
            setattr(args, _attribute(name), convert(inline if equals else next(rest)))
        elif word in flags:
            setattr(args, _attribute(word), True)
        else:
            args.prompt = word
    return args


def _attribute(option: str) -> str:
    return option.removeprefix("--").replace("-", "_")
