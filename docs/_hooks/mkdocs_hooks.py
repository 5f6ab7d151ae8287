"""MkDocs hooks: the pages that are made from the code, never copied by hand.

A page holds a marker line; at build time the hook puts the generated text in its place:
- `<!-- generated: cli-reference -->`: every command's `--help`, asked of the installed
  `adhd-evals` (the typer app's commands, then lint's argparse parser), so the reference is
  what the tool says today;
- `<!-- generated: lint-rules -->`: the rule table and each rule's docstring (what it finds, why
  it matters, a passing and a failing example), from `adhd_evals.lint.rules`;
- `<!-- generated: formats -->`: the catalogue of formats as a table (name, words, the hook's
  paths, what lint reads of a folder, the refusal), from `adhd_evals.importing.catalogue`.
The tests call `render` the same way (tests/lint/test_rules.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

MARKERS = {
    "<!-- generated: cli-reference -->": "cli_reference",
    "<!-- generated: lint-rules -->": "lint_rules",
    "<!-- generated: formats -->": "formats",
}


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return render(markdown)


def render(markdown: str) -> str:
    for marker, maker in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, globals()[maker]())
    return markdown


def _help(*args: str) -> str:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100", "TERM": "dumb"}
    done = subprocess.run(
        [sys.executable, "-m", "adhd_evals", *args, "--help"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stdout.rstrip()


def cli_reference() -> str:
    from adhd_evals.cli import app

    names = [info.name for info in app.registered_commands if info.name]
    parts = ["## adhd-evals", "", "```text", _help(), "```", ""]
    for name in names:
        parts += [f"## adhd-evals {name}", "", "```text", _help(name), "```", ""]
    return "\n".join(parts)


def lint_rules() -> str:
    from adhd_evals.lint.rules import RULES, summary, table

    parts = [table()]
    for rule in RULES.values():
        doc = (rule.__doc__ or "").strip()
        _, _, body = doc.partition("\n")
        scope = f"Scope: {rule.SCOPE} (see [scopes](#scopes))."
        parts += [
            f"## {rule.ID} {rule.NAME} ({rule.SEVERITY})",
            "",
            summary(rule),
            "",
            scope,
            "",
            body.strip(),
            "",
        ]
    return "\n".join(parts)


def formats() -> str:
    from adhd_evals.importing.catalogue import table

    return table()
