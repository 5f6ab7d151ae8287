"""The plain bodies of `validate` and `export` (their typer signatures: cli/catalog.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ... import exitcodes
from ...catalog import validate_file
from ...errors import CatalogInvalid
from ...files import read_limited, set_max_bytes
from ...output import write_all_atomically
from ...schema import ExportFormat
from ...text import plural


def validate(*, cases: Path, max_bytes: int) -> int:
    """Check a five-field catalog and print every problem with its line."""
    set_max_bytes(max_bytes)

    count, problems = validate_file(cases)
    if problems and (other := _other_format(cases)):
        raise CatalogInvalid([other])
    if problems:
        raise CatalogInvalid(
            [p.render(str(cases)) for p in problems]
            + [f"{plural(len(problems), 'problem')} in {plural(count, 'case')}."]
        )
    print("Evaluation cases are valid.")
    return exitcodes.OK


def _other_format(path: Path) -> str | None:
    """One line for a file that is not a JSONL catalog at all (not one per line of it)."""
    # Imported here: lint's rules (~10 ms) only for a catalog with problems, never for a valid one
    from ...importing.catalogue import description_of
    from ...lint import format_of

    looks = format_of(path, explicit=True)
    if looks in ("evals-json", "evalflow"):
        try:
            json.loads(read_limited(path))
        except (ValueError, RecursionError, OSError):
            return None  # not one JSON document either: the problems by line say more
    elif looks not in ("yaml", "module"):
        return None
    what = description_of(looks)
    use = f"adhd-evals lint {path}" + (
        f", or adhd-evals import --format {looks} {path}" if looks != "module" else ""
    )
    return f"{path} is not a five-field catalog (JSONL, one case per line): it looks like {what}; use {use}"


def export(*, to: ExportFormat, cases: Path, suite: Path, out: Path) -> int:
    """Export the catalog to a promptfoo config or a skill-creator evals.json; says what did not survive."""
    # Imported here: the promptfoo writer brings jinja2 and PyYAML, which validate never needs
    # (tests/test_cli_startup.py).
    if to == "plugin-eval":
        from ...importing.formats.plugin_eval.export import export_suite, write_suite

        files, count, lost = export_suite(cases, suite)
        write_suite(out, files)
    else:
        from ...importing.export import export

        result = export(to, cases, suite, as_json=out.suffix.lower() == ".json")
        write_all_atomically({out: result.text})
        count, lost = result.cases, result.lost
    lines = [f"Wrote {out} ({plural(count, 'case')}, {to})."]
    if lost:
        lines += ["Did not survive the export:", *(f"  {line}" for line in lost)]
    print("\n".join(lines), file=sys.stderr)
    return exitcodes.OK
