"""lint's argparse parser: help, usage errors and every line the fast reading (argv.py) defers.
Imported only then: argparse with its parser built costs the hook a few ms (docs/startup.md)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..files import DEFAULT_MAX_BYTES


def _columns() -> int:
    """`shutil.get_terminal_size().columns`, worked out as shutil does, without importing it."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    stdout = sys.__stdout__
    if columns <= 0 and stdout is not None:
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class _Formatter(argparse.HelpFormatter):
    """argparse's own help layout, given the width it would ask shutil for. argparse makes a
    formatter for every argument it adds, and its own imports shutil (with bz2 and lzma, ~3 ms
    of every hook run) though only --help and a usage error print anything."""

    def __init__(self, prog: str, **options: Any) -> None:
        options.setdefault("width", _columns() - 2)  # argparse keeps two columns spare too
        super().__init__(prog, **options)


def build(*, formats: tuple[str, ...], outputs: tuple[str, ...]) -> argparse.ArgumentParser:
    """lint's argparse parser; `formats` and `outputs` are --format-of's and --output-format's choices."""
    parser = argparse.ArgumentParser(
        prog="adhd-evals lint",
        formatter_class=_Formatter,
        description="Lint case files (catalogs, evals.json, dataset.json, YAML cases, check modules) "
        "and report every problem with its line and column.",
    )
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or directories")
    parser.add_argument(
        "--format-of",
        choices=formats,
        default=None,
        help="treat every file as this format instead of recognising it",
    )
    parser.add_argument(
        "--output-format",
        choices=outputs,
        default=None,
        help="text (default), json, sarif (SARIF 2.1.0), or github annotations (the default under GitHub Actions)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="fail on warnings too, and on files skipped as another tool's",
    )
    parser.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="CODE",
        help="report only these codes or prefixes (E1, W, W202, Case); repeatable or comma-separated",
    )
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="CODE",
        help="never report these codes or prefixes; repeatable or comma-separated",
    )
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help="report, unread, any file larger than this (default 256 MiB)",
    )
    parser.add_argument(
        "--dialect",
        type=Path,
        default=None,
        metavar="FILE",
        help="a dialect file: lint the files of its format as 'import --dialect' reads them",
    )
    return parser
