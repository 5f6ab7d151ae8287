"""Rewrite the `files:` line of a pre-commit hooks manifest from the catalogue:
`python -m adhd_evals.importing.catalogue.hook .pre-commit-hooks.yaml` (run from the checkout
after registering a format; tests/test_catalogue_hook.py fails until the manifest says what
`hook_pattern()` says). Only that line changes; the rest of the file stays byte for byte."""

from __future__ import annotations

import sys
from pathlib import Path

from ...errors import OutputError
from ...output import write_all_atomically
from . import hook_pattern

_FILES = "  files: "


def with_pattern(manifest: str, pattern: str) -> str:
    """The manifest with its one `files:` line saying `pattern` (single-quoted: YAML then reads
    every character of a regex as written); ValueError when it has no such line, or several."""
    lines = manifest.splitlines(keepends=True)
    at = [i for i, line in enumerate(lines) if line.startswith(_FILES)]
    if len(at) != 1:
        raise ValueError(f"expected one line starting {_FILES.strip()!r}, found {len(at)}")
    quoted = pattern.replace("'", "''")
    lines[at[0]] = f"{_FILES}'{quoted}'\n"
    return "".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m adhd_evals.importing.catalogue.hook MANIFEST", file=sys.stderr)
        return 2
    path = Path(argv[0])
    try:
        write_all_atomically({path: with_pattern(path.read_text(encoding="utf-8"), hook_pattern())})
    except (OSError, OutputError, ValueError) as error:
        print(f"{path}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
