"""The console script. `lint` is dispatched before typer is imported: the
pre-commit hook runs it on every commit, and typer's import alone costs more
than linting a catalog."""

from __future__ import annotations

import sys

from .boundary import guard


def main(argv: list[str] | None = None) -> int:
    """Run `adhd-evals ARGS...` and return its exit code; the one error boundary."""
    args = sys.argv[1:] if argv is None else argv
    return guard(lambda: _dispatch(args))


def _dispatch(args: list[str]) -> int:
    if args[:1] == ["lint"]:
        from .lint.cli import main as lint_main

        return lint_main(args[1:])
    from .cli import main as cli_main

    return cli_main(args)


def run() -> None:
    sys.exit(main())
