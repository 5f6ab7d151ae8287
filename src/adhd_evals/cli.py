"""The command line: a thin layer that builds arguments and calls the core."""

from __future__ import annotations

import enum
import json
import sys
from pathlib import Path
from typing import Optional

import typer

from . import exitcodes
from .catalog import validate_file
from .errors import CatalogInvalid, UsageError
from .importer import import_source
from .summary import import_summary

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Turn eval case files into one five-field catalog you can lint, run and score.",
)


class Format(str, enum.Enum):
    EVALS_JSON = "evals-json"
    YAML = "yaml"
    EVALFLOW = "evalflow"


class Risk(str, enum.Enum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


@app.command("import")
def import_command(
    source: Path = typer.Argument(..., help="The evals.json, YAML file or folder, or dataset.json."),
    format: Format = typer.Option(..., "--format", "-f", help="The source format."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write DIR/cases.jsonl and DIR/checks.py; without it the catalog goes to stdout."),
    risk: Optional[Risk] = typer.Option(None, "--risk", help="Risk for every case (default: medium)."),
    category: Optional[str] = typer.Option(None, "--category", help="Category for every case (default: from the source)."),
    prune: bool = typer.Option(False, "--prune", help="Remove from the check module the cases that are gone from the source."),
) -> int:
    """Import a case file into the five-field catalog and its check module."""

    def body() -> int:
        outcome = import_source(format.value, source, out=out, risk=risk.value if risk else None,
                                category=category, prune=prune)
        if out is None:  # the catalog is UTF-8 whatever the terminal's locale says
            sys.stdout.flush()
            sys.stdout.buffer.write(outcome.catalog.encode("utf-8"))
            sys.stdout.buffer.flush()
        for line in import_summary(outcome.result):
            print(line, file=sys.stderr)
        for line in outcome.merge_report.lines() if outcome.merge_report else []:
            print(line, file=sys.stderr)
        if outcome.written:
            print("Wrote " + " and ".join(str(p) for p in outcome.written) + ".", file=sys.stderr)
        else:
            print("The catalog went to stdout; pass --out DIR to write it with its check module.",
                  file=sys.stderr)
        return exitcodes.OK

    return exitcodes.guarded(body)


@app.command("validate")
def validate_command(
    cases: Path = typer.Argument(Path("evals/cases.jsonl"), help="The five-field catalog."),
) -> int:
    """Check a five-field catalog and print every problem with its line."""

    def body() -> int:
        if not cases.is_file():
            raise UsageError(f"{cases}: no such catalog file")
        count, problems = validate_file(cases)
        if problems:
            raise CatalogInvalid([p.render(str(cases)) for p in problems]
                                 + [f"{len(problems)} problems in {count} cases."])
        if count == 0:
            raise CatalogInvalid([f"{cases}: no cases in the catalog."])
        print("Evaluation cases are valid.")
        return exitcodes.OK

    return exitcodes.guarded(body)


@app.command("check")
def check_command(
    responses: Path = typer.Argument(..., help="Response rows (case_id, trial, condition, runner, response) as JSONL."),
    cases: Path = typer.Option(Path("evals/cases.jsonl"), "--cases", help="The catalog."),
    suite: Path = typer.Option(Path("evals/checks.py"), "--suite", help="The check module."),
    output: Optional[Path] = typer.Option(None, "--output", help="Write one result row per check as JSONL."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> int:
    """Run every response through its case's checks; fails while anything fails or is unwritten."""

    def body() -> int:
        from . import checking
        from .output import write_all_atomically

        ids = checking.catalog_ids(cases)
        loaded = checking.load_suite(suite)
        run = checking.run_checks(checking.read_responses(responses), loaded, ids)
        if output is not None:
            write_all_atomically({output: checking.results_text(run)})
        if as_json:
            print(json.dumps(checking.summary_json(run), indent=2, ensure_ascii=False))
        else:
            print("\n".join(checking.summary_table(run)))
        return exitcodes.OK if run.clean else exitcodes.FAILED

    return exitcodes.guarded(body)


@app.command("lint", context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
             add_help_option=False)
def lint_command(ctx: typer.Context) -> int:
    """Lint case files of every format with positions (see 'adhd-evals lint --help')."""
    from .lint.cli import main as lint_main

    return lint_main(list(ctx.args))


def main(argv: list[str] | None = None) -> int:
    """Entry point: returns the exit code instead of raising SystemExit."""
    try:
        result = app(args=argv, prog_name="adhd-evals", standalone_mode=False)
    except typer.Exit as exc:  # --help, --version
        return exc.exit_code
    except typer.Abort:
        return 130
    except typer.TyperException as exc:  # a usage error: bad option, missing argument
        print(f"adhd-evals: {exc.format_message()}", file=sys.stderr)
        print("Try 'adhd-evals --help'.", file=sys.stderr)
        return exitcodes.USAGE
    return result if isinstance(result, int) else exitcodes.OK


if __name__ == "__main__":
    sys.exit(main())
