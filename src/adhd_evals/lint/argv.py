"""lint's command line read without argparse when it is clean; argparse for the rest.

The hook runs `adhd-evals lint FILES...` on every commit, and importing argparse and building
its parser (its gettext lookup imports locale) is a measurable part of that start-up
(docs/startup.md). `parse` takes only lines it is sure argparse reads the same way and defers
(None) on anything else: an unknown or abbreviated option, `-h`, `--`, a word that starts with
a dash where a value or a path is expected, an option other than --select/--ignore given twice,
a value out of its choices, a number that is not plain ASCII digits, an empty path, paths split
by an option (argparse refuses them). argparse then reads the line as it always did, so every
usage error and help text is its own (tests/test_lint_fast_argv.py gives both parsers the same
lines).
"""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled
# one by one (the hook's start-up: see problem.py).
from pathlib import Path
from typing import NamedTuple

from ..files import DEFAULT_MAX_BYTES

# lint's options by kind, as usage.py declares them to argparse
FLAG = "--strict"
REPEATED = ("--select", "--ignore")
VALUED = (*REPEATED, "--format-of", "--output-format", "--max-bytes", "--dialect")


class LintArgs(NamedTuple):
    """What lint runs with, from either parser (argparse's namespace has the same names)."""

    paths: list[Path]
    select: list[str]
    ignore: list[str]
    format_of: str | None = None
    output_format: str | None = None
    strict: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES
    dialect: Path | None = None


def parse(argv: list[str], *, formats: tuple[str, ...], outputs: tuple[str, ...]) -> LintArgs | None:
    """`argv`'s arguments, or None when argparse must read it; `formats` and `outputs` are
    --format-of's and --output-format's choices."""
    split = _split(argv)
    if split is None:
        return None
    paths, given = split
    if any(len(words) > 1 for name, words in given.items() if name not in REPEATED):
        return None  # given twice: argparse keeps the last or refuses: argparse's to say
    one = {name: words[0] for name, words in given.items()}
    if not _clean(one, formats, outputs):
        return None
    size, dialect = one.get("--max-bytes"), one.get("--dialect")
    return LintArgs(
        [Path(path) for path in paths],
        given.get("--select", []),
        given.get("--ignore", []),
        format_of=one.get("--format-of"),
        output_format=one.get("--output-format"),
        strict=FLAG in one,
        max_bytes=DEFAULT_MAX_BYTES if size is None else int(size),
        dialect=None if dialect is None else Path(dialect),
    )


def _split(argv: list[str]) -> tuple[list[str], dict[str, list[str]]] | None:
    """The paths (one unbroken run of them, as argparse takes `nargs="+"`) and each option's words."""
    paths: list[str] = []
    given: dict[str, list[str]] = {}
    runs, after_option = 0, True
    at = 0
    while at < len(argv):
        word = argv[at]
        at += 1
        if not word.startswith("-"):
            runs += after_option
            paths.append(word)
            after_option = False
            continue
        name, equals, value = word.partition("=")
        if name == FLAG and not equals:
            value = ""
        elif name in VALUED and not equals and at < len(argv) and not argv[at].startswith("-"):
            value, at = argv[at], at + 1
        elif name not in VALUED or not equals:
            return None  # unknown, abbreviated, -h, --, "-", --strict=x, a value that is a dash word
        given.setdefault(name, []).append(value)
        after_option = True
    return (paths, given) if runs == 1 and "" not in paths else None  # Path("") is "."


def _clean(one: dict[str, str], formats: tuple[str, ...], outputs: tuple[str, ...]) -> bool:
    """Each single value as argparse takes it without a word of its own to say."""
    size = one.get("--max-bytes", "0")
    return (
        one.get("--format-of", formats[0]) in formats
        and one.get("--output-format", outputs[0]) in outputs
        and size.isascii()
        and size.isdigit()
        and one.get("--dialect") != ""
    )
