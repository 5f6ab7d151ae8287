"""`audit`: how good the suite's checks and criteria are, before their verdict is trusted."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from .. import exitcodes, jsonl
from ..catalog import load_valid
from ..errors import UsageError
from ..output import refuse_clobbering, write_all_atomically
from ..runs.deciding import audit
from ..runs.deciding.audit import Audit, Echo
from ..runs.judging import check as checking
from ..runs.rows import NotRunRow, read_responses
from ..schema import DEFAULT_CATALOG
from ..text import plural
from . import options
from .options import FLAG, Cases

commands = typer.Typer()


@commands.command("audit")
def audit_command(
    *,
    checks: Path | None = typer.Argument(
        None, metavar="CHECKS", help="Check results ('adhd-evals check --output')."
    ),
    responses: Path | None = typer.Option(
        None, "--responses", help="The responses the results are of: what each case cost, and rows not run."
    ),
    criteria: Annotated[
        Path | None, options.criteria("Criterion verdicts, audited as the checks are.")
    ] = None,
    as_json: Annotated[bool, options.as_json("Print the audit as JSON.")] = False,
    markdown: bool = typer.Option(False, "--markdown", metavar=FLAG, help="Print the audit as Markdown."),
    flaky_above: float = typer.Option(
        0.2, "--flaky-above", min=0.0, max=1.0, help="The flip rate above which a check is flaky."
    ),
    effect: float = typer.Option(
        0.1,
        "--effect",
        min=0.0,
        help="The mean Δ of the cases' check pass fraction the suite should resolve.",
    ),
    quarantine_out: Path | None = typer.Option(
        None,
        "--quarantine-out",
        help="Write the flaky checks and criteria as JSONL (a list, nothing removed).",
    ),
    prompt_only: bool = typer.Option(
        False,
        "--prompt-only",
        metavar=FLAG,
        help="Run every check with its case's own prompt, and with an empty answer, as the answer; "
        "fails when one passes. RUNS THE CHECK MODULE'S PYTHON CODE.",
    ),
    suite: Annotated[
        Path | None, options.suite("With --prompt-only: the check module (default evals/checks.py).")
    ] = None,
    cases: Cases = Path(DEFAULT_CATALOG),
) -> int:
    """Label each check saturated, floor, flaky, discriminating or baseline-only; find cases with no lift."""
    if as_json and markdown:
        raise UsageError("--json and --markdown each choose the output: give one")
    if checks is None and criteria is None and not prompt_only:
        raise UsageError("nothing to audit: give check results (CHECKS), --criteria, or --prompt-only")
    if checks is None and criteria is None and (responses or quarantine_out):
        raise UsageError("--responses and --quarantine-out need check results (CHECKS) or --criteria")
    refuse_clobbering(
        {"--quarantine-out": quarantine_out},
        {"check results": checks, "responses": responses, "criteria": criteria, "check module": suite},
    )
    echoed = _prompt_only(suite, cases) if prompt_only else None
    found = None
    if checks is not None or criteria is not None:
        found = _audit(checks, responses, criteria, quarantine_out, flaky_above, effect)
    if as_json:  # one JSON document, whichever passes ran
        shown: dict[str, object] = {} if found is None else dict(audit.as_json(found))  # only dumped as JSON
        if echoed is not None:
            shown["prompt_only"] = [echo.json() for echo in echoed]
        print(json.dumps(shown, ensure_ascii=False, indent=2))
    elif found is not None:
        sys.stdout.write(audit.markdown(found) if markdown else audit.text(found))
    return exitcodes.FAILED if echoed else exitcodes.OK


def _audit(
    checks: Path | None,
    responses: Path | None,
    criteria: Path | None,
    quarantine_out: Path | None,
    flaky_above: float,
    effect: float,
) -> Audit:
    # Imported here: criterion verdicts (and what they import, ~10 ms) only when audit reads them
    # or its checks, never for --prompt-only alone.
    from ..runs.deciding.criteria import read_verdicts

    outcomes = [] if checks is None else audit.check_outcomes(audit.read_results(checks))
    if criteria is not None:
        outcomes += audit.criterion_outcomes(read_verdicts(criteria))
    not_run: list[NotRunRow] = []
    answered = None if responses is None else read_responses(responses, not_run)
    found = audit.audit(
        outcomes,
        responses=answered,
        flaky_above=flaky_above,
        effect=effect,
        not_run=len(not_run),
        not_run_reasons=[row["not_run"] for row in not_run],
    )
    if quarantine_out is not None:
        write_all_atomically({quarantine_out: jsonl.text(audit.quarantine_rows(found))})
        print(
            f"Wrote {plural(len(found.quarantine()), 'flaky check')} to {quarantine_out}: a list to read, "
            "nothing removed from the suite.",
            file=sys.stderr,
        )
    return found


def _prompt_only(suite: Path | None, cases: Path) -> list[Echo]:
    """The prompt-only pass: the checks that passed without a real answer, each said on stderr."""

    module = suite if suite is not None else checking.default_suite()
    found = audit.echoes(checking.load_suite(module), load_valid(cases), checking.DEFAULT_CHECK_TIMEOUT)
    for echo in found:
        print(echo.line(), file=sys.stderr)
    print(
        f"Prompt-only pass: {plural(len(found), 'check')} passed with no real answer (the case's own "
        "prompt, or an empty one).",
        file=sys.stderr,
    )
    return found
