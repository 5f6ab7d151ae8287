"""`adhd-evals lint`: argparse, not typer, so the hook path starts fast."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..exitcodes import FAILED, OK, USAGE, RefusalCode
from ..files import set_max_bytes
from ..problem import Problem
from ..text import plural, printable
from . import FORMATS, LintReport, LintUsageError, lint_paths
from .argv import LintArgs, parse
from .lookalike import NAMES

if TYPE_CHECKING:
    import argparse

    from ..importing.dialect import Dialect


def _parser() -> argparse.ArgumentParser:
    """argparse's parser for lint: only for what the fast reading (argv.py) defers."""
    from .usage import build  # argparse and its locale lookup: help and usage errors only

    return build(formats=FORMATS, outputs=tuple(RENDERERS))


def _text(problem: Problem) -> str:
    return f"{printable(problem.path)}:{problem.line}:{problem.column}: {problem.code} {printable(problem.message)}"


def _github(problem: Problem) -> str:
    level = "error" if problem.severity == "error" else "warning"
    message = (
        f"{problem.code} {printable(problem.message)}".replace("%", "%25")
        .replace("\r", "%0D")
        .replace("\n", "%0A")
    )
    path = printable(problem.path).replace("%", "%25").replace(",", "%2C").replace(":", "%3A")
    return f"::{level} file={path},line={problem.line},col={problem.column}::{message}"


def _lines(report: LintReport, render: Callable[[Problem], str]) -> str:
    """The skipped files, a line per problem and the summary: what a person (or Actions) reads."""
    return "\n".join([*skipped_lines(report), *(render(p) for p in report.problems), summary(report)])


def _sarif(report: LintReport, code: int) -> str:
    from importlib.metadata import version  # (email, zipfile...) only for SARIF's tool version

    from .sarif import sarif  # only for --output-format sarif: not on the hook's path

    return sarif(report.problems, version("adhd-evals"))


# --output-format: each renderer by its name, the whole output from the report and exit code.
RENDERERS: dict[str, Callable[[LintReport, int], str]] = {
    "text": lambda report, code: _lines(report, _text),
    "json": lambda report, code: _json(report, code),
    "github": lambda report, code: _lines(report, _github),
    "sarif": _sarif,
}


def summary(report: LintReport) -> str:
    skipped = len(report.skipped)
    if report.files == 0 and skipped:
        return f"Skipped {plural(skipped, 'file')} of another tool's: nothing else was checked."
    if report.files == 0:
        return "No case files found: nothing was checked."
    also = f" ({plural(skipped, 'file')} skipped as another tool's)" if skipped else ""
    return (
        f"Checked {plural(report.files, 'file')} and {plural(report.cases, 'case')}{also}: "
        f"{plural(report.errors, 'error')}, {plural(report.warnings, 'warning')}."
    )


def skipped_lines(report: LintReport) -> list[str]:
    """Each skipped file once: what it is not, and why."""
    return [
        f"{printable(path)}: not {NAMES.get(kind, kind)} file; skipped ({printable(why)})"
        for path, kind, why in report.skipped
    ]


def _codes(values: list[str]) -> list[str]:
    """--select/--ignore values: comma-separated, each a code or the prefix of one."""
    codes = [code.strip() for value in values for code in value.split(",") if code.strip()]
    if not codes:
        return codes
    # Imported here: the rules' modules are a catalog's, never a source file's to lint
    # (tests/lint/test_startup.py); their codes are needed only when a line names some
    from .rules import RULES

    known = [*RULES, *(code.value for code in RefusalCode)]
    unknown = [code for code in codes if not any(k.startswith(code) for k in known)]
    if unknown:
        raise LintUsageError(f"no lint code starts with {', '.join(unknown)} (see docs/lint-rules.md)")
    return codes


def exit_code(report: LintReport, strict: bool) -> int:
    if strict and report.skipped:
        return FAILED
    if (report.files == 0 and not report.skipped) or report.errors or (strict and report.warnings):
        return FAILED
    return OK


class _BadDialect(Exception):
    """A --dialect file that cannot be used: nothing can be linted as the team means it."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def _dialect(path: Path | None) -> Dialect | None:
    if path is None:
        return None
    from ..importing.dialect import load
    from ..importing.model import Refusal

    try:
        return load(path)
    except Refusal as refusal:
        where = (refusal.line or 1, refusal.column or 1)
        raise _BadDialect(Problem(*where, refusal.code.value, refusal.body, path=refusal.file)) from refusal


def _json(report: LintReport, code: int) -> str:
    counts: dict[str, object] = {"files": report.files, "cases": report.cases, "errors": report.errors}
    counts |= {"warnings": report.warnings, "exit_code": code}
    counts["skipped"] = [
        {"path": printable(p), "format": k, "why": printable(w)} for p, k, w in report.skipped
    ]
    return json.dumps(
        {**counts, "problems": [_printable_fields(p) for p in report.problems]}, indent=2, ensure_ascii=False
    )


def _printable_fields(problem: Problem) -> dict[str, object]:
    """A problem for JSON output: texts from files (paths, messages) made printable, so
    a lone surrogate or a non-UTF-8 file name cannot stop the output."""
    fields: dict[str, object] = problem._asdict()
    fields["path"], fields["message"] = printable(problem.path), printable(problem.message)
    return fields


def _append_step_summary(report: LintReport, path: str) -> None:
    """All problems for the run's summary page (GitHub shows only 10 annotations of a kind)."""
    from .sarif import step_summary  # only under GitHub Actions: not on the hook's path

    try:
        with open(path, "a", encoding="utf-8") as stream:
            stream.write(step_summary(report.problems, summary(report)))
    except OSError as exc:
        print(
            f"adhd-evals lint: cannot append to $GITHUB_STEP_SUMMARY ({exc.strerror or exc})", file=sys.stderr
        )


def main(argv: list[str]) -> int:
    args = _arguments(argv)
    if isinstance(args, int):
        return args
    set_max_bytes(args.max_bytes)
    try:
        select, ignore = _codes(args.select), _codes(args.ignore)
        report = lint_paths(args.paths, forced=args.format_of, dialect=_dialect(args.dialect))
    except LintUsageError as exc:
        print(f"adhd-evals lint: {exc}", file=sys.stderr)
        return USAGE
    except _BadDialect as exc:
        print(_text(exc.problem))
        print("The dialect file is not valid: nothing else was checked.")
        return FAILED
    report = report.only(select, ignore)
    code = exit_code(report, args.strict)
    style = args.output_format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    if os.environ.get("GITHUB_ACTIONS") == "true" and os.environ.get("GITHUB_STEP_SUMMARY"):
        _append_step_summary(report, os.environ["GITHUB_STEP_SUMMARY"])
    print(RENDERERS[style](report, code))
    return code


def _arguments(argv: list[str]) -> LintArgs | int:
    """The arguments, read fast when the line is clean, else by argparse (whose exit code for
    --help or a usage error it has printed is returned)."""
    fast = parse(argv, formats=FORMATS, outputs=tuple(RENDERERS))
    if fast is not None:
        return fast
    try:
        return LintArgs(**vars(_parser().parse_args(argv)))
    except SystemExit as exc:  # argparse's own usage error or --help
        return USAGE if exc.code else OK
