"""The plain body of `audit` (its typer signature: cli/auditing.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ... import exitcodes, jsonl
from ...catalog import load_valid
from ...errors import UsageError
from ...output import refuse_clobbering, write_all_atomically
from ...runs.deciding import audit as auditing
from ...runs.deciding.audit import Audit, Echo
from ...runs.judging import check as checking
from ...runs.rows import NotRunRow, read_responses
from ...text import plural


def audit(
    *,
    checks: Path | None,
    responses: Path | None,
    criteria: Path | None,
    as_json: bool,
    markdown: bool,
    flaky_above: float,
    effect: float,
    quarantine_out: Path | None,
    prompt_only: bool,
    suite: Path | None,
    cases: Path,
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
        shown: dict[str, object] = (
            {} if found is None else dict(auditing.as_json(found))
        )  # only dumped as JSON
        if echoed is not None:
            shown["prompt_only"] = [echo.json() for echo in echoed]
        print(json.dumps(shown, ensure_ascii=False, indent=2))
    elif found is not None:
        sys.stdout.write(auditing.markdown(found) if markdown else auditing.text(found))
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
    from ...runs.deciding.criteria import read_verdicts

    outcomes = [] if checks is None else auditing.check_outcomes(auditing.read_results(checks))
    if criteria is not None:
        outcomes += auditing.criterion_outcomes(read_verdicts(criteria))
    not_run: list[NotRunRow] = []
    answered = None if responses is None else read_responses(responses, not_run)
    found = auditing.audit(
        outcomes,
        responses=answered,
        flaky_above=flaky_above,
        effect=effect,
        not_run=len(not_run),
        not_run_reasons=[row["not_run"] for row in not_run],
    )
    if quarantine_out is not None:
        write_all_atomically({quarantine_out: jsonl.text(auditing.quarantine_rows(found))})
        print(
            f"Wrote {plural(len(found.quarantine()), 'flaky check')} to {quarantine_out}: a list to read, "
            "nothing removed from the suite.",
            file=sys.stderr,
        )
    return found


def _prompt_only(suite: Path | None, cases: Path) -> list[Echo]:
    """The prompt-only pass: the checks that passed without a real answer, each said on stderr."""

    module = suite if suite is not None else checking.default_suite()
    found = auditing.echoes(checking.load_suite(module), load_valid(cases), checking.DEFAULT_CHECK_TIMEOUT)
    for echo in found:
        print(echo.line(), file=sys.stderr)
    print(
        f"Prompt-only pass: {plural(len(found), 'check')} passed with no real answer (the case's own "
        "prompt, or an empty one).",
        file=sys.stderr,
    )
    return found
