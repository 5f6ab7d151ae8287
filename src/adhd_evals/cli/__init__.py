"""The command line: a thin layer that builds arguments and calls the core.

Each command lives with its pipeline stage: its typer signature in a module of this package
(`catalog`, `scale`, ...), its plain body, which takes keyword arguments and calls the core, in
`plain` beside it. A command line that parses cleanly under a command's declaration
(`_declared`, generated from the typer app) calls the body straight away (`fast`), without
importing typer, click, pydantic or rich; anything else (--help, a usage error, a command not
declared) goes to the typer app (`typed`), so help and usage errors are typer's own
(docs/startup.md). Nothing typer-related is imported by this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import prerendered
from .plain import bare_cache

if TYPE_CHECKING:
    import typer

HELP = "Turn eval case files into one five-field catalog you can lint, run and score."

# Every command, in the order the listing shows them, and the stage module that holds it.
COMMANDS = {
    "import": "importing",
    "survey": "importing",
    "validate": "catalog",
    "check": "checking",
    "plan": "scale",
    "run": "running",
    "merge": "scale",
    "cache": "scale",
    "score": "scoring",
    "blind": "checking",
    "judge": "running",
    "agree": "scoring",
    "verdicts": "scoring",
    "audit": "auditing",
    "report": "scoring",
    "export": "catalog",
    "lint": "linting",
}


def main(argv: list[str]) -> int:
    """Run one command; errors propagate to the boundary in entry.main."""
    argv = bare_cache(argv)
    # help first: it needs neither the fast parser nor what it imports (pathlib, typing: ~15 ms)
    ran = prerendered.serve(argv)
    if ran is None:
        from . import fast

        ran = fast.run(argv)
    if ran is not None:
        return ran
    from .typed import main as typed_main

    return typed_main(argv)


def __getattr__(name: str) -> typer.Typer:
    # the typer app is imported and built on first use (PEP 562)
    if name == "app":
        from .typed import _whole_app

        return _whole_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
