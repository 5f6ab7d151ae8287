"""What a format declares (`Format`), and what its recogniser is shown of a file (`Head`).

Light on purpose: every lint run (the pre-commit hook) loads the catalogue to tell each
file's format, so nothing here or in a declaration module imports a reader; a format names
its reader by its dotted module path, imported only when a file of it is read.
"""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled
# one by one (the hook's start-up: see problem.py).
import fnmatch
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from ...exitcodes import RefusalCode
from ...files import read_limited


class Head:
    """A file being recognised: its name in lower case, its path, and its bytes, read once
    and only when a recogniser asks (most files are told by their name alone)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = path.name.lower()
        self._bytes: bytes | None = None
        self._json: tuple[object] | None = None

    @property
    def bytes(self) -> bytes:
        """The file's bytes; nothing when it must not be read (lint then reports it when it
        reads the file for real)."""
        if self._bytes is None:
            try:
                self._bytes = read_limited(self.path)
            except OSError:
                self._bytes = b""
        return self._bytes

    def json(self) -> object:
        """The file parsed as JSON, parsed once for every recogniser that asks; None when it
        does not parse (JSON's null is nothing a format claims either)."""
        if self._json is None:
            try:
                self._json = (json.loads(self.bytes),)
            except (ValueError, RecursionError):
                self._json = (None,)
        return self._json[0]

    def matches(self, globs: tuple[str, ...]) -> bool:
        return any(name_matches(self.name, glob) for glob in globs)


_MAGIC = frozenset("*?[")  # what fnmatch reads as other than itself


def name_matches(name: str, glob: str) -> bool:
    """`fnmatch.fnmatchcase(name, glob)`, without compiling a pattern for the two shapes every
    format's globs have (a plain name, `*` before a plain ending): each compiled glob cost
    the hook about 50 us, and it tells every file it is given by its name."""
    if not _MAGIC.intersection(glob):
        return name == glob
    if glob[0] == "*" and not _MAGIC.intersection(glob[1:]):
        return name.endswith(glob[1:])
    return fnmatch.fnmatchcase(name, glob)


class Format(NamedTuple):
    """One format: every place that knows formats (detection, discovery, lint's selection,
    `import --format`, the hook's `files:` pattern, the docs' table) reads it from here.

    File names are globs over the lower-cased name (`*.yaml`, `evals.json`). A file is, in
    this order: the format one of whose `by_name` globs it matches; else the first (in the
    catalogue's order) whose `by_shape` glob it matches and whose `looks_like` claims it,
    unless a format it `yields_to` claims it too; else, only when named on the command line,
    the first whose `if_named` glob it matches. `by_shape_if_named` is `by_shape` for a file
    named on the command line only (a folder's every `*.json` is not read to find out).
    """

    name: str  # what --format and --format-of take
    description: str  # in words, as a hint names it: "a.json looks like an evals.json"
    reader: str | None  # the dotted module with `read` and `problems`; None: adhd-evals writes it
    refusal: RefusalCode | None  # what its reader refuses a file that is not of it with
    by_name: tuple[str, ...] = ()
    by_shape: tuple[str, ...] = ()
    by_shape_if_named: tuple[str, ...] = ()
    if_named: tuple[str, ...] = ()
    looks_like: Callable[[Head], bool] | None = None
    yields_to: tuple[str, ...] = ()  # formats whose recogniser is asked first on a file both claim
    hook: tuple[str, ...] = ()  # path globs the pre-commit hook selects: `**/`, `*`, `{a,b}`
    folders: bool = True  # False: its reader takes one file, never a folder of them

    def claims(self, head: Head) -> bool:
        return self.looks_like is not None and self.looks_like(head)


# compiled (by re, cached) when the hook's pattern is made: not on every hook's start
_GLOB_PIECE = r"\*\*/|\*|\?|\{[^{}]*\}|[^*?{]+|\{"


def path_regex(glob: str) -> str:
    """A hook glob as the regex pre-commit searches a repository-relative path with: at the
    start of the path or after a `/`, to its end; `**/` any folders (none included), `*` and
    `?` within one name, `{a,b}` either."""
    return "(^|/)" + "".join(_piece(m.group()) for m in re.finditer(_GLOB_PIECE, glob)) + "$"


def _piece(piece: str) -> str:
    if piece == "**/":
        return "(.+/)?"
    if piece == "*":
        return "[^/]*"
    if piece == "?":
        return "[^/]"
    if piece.startswith("{") and piece.endswith("}") and len(piece) > 1:
        return "(" + "|".join(re.escape(choice) for choice in piece[1:-1].split(",")) + ")"
    return re.escape(piece)
