"""`score` as one request: which summary a run's files make, the text it prints and its exit code.

A scores file, `--checks` alone and `--plugin-eval-results` each make their summary one way, and
`--quarantine` adds the verdict again without the listed checks; `score` (below) chooses among
them from a `ScoreRequest` built by keyword, so the command line only gathers its options.
"""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled into
# ForwardRefs as it is made (a process's first compile is about 1.3 ms of start-up); names type
# checkers alone import are quoted where a function names them (docs/startup.md).
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ... import exitcodes
from ...errors import UsageError
from ..rows import judge_filled
from . import score as scoring
from .decision import Decide, checked

if TYPE_CHECKING:
    from ..inference.ppi import LabelSet
    from ..rows import GateName, QuarantineJson, ResultRow, ScoreSummary
    from ..summaries import CriteriaSummary
    from .triggers import Confusion


class ScoreRequest:
    """What `score` was asked: the files (each None when not given) and the gate's choices.
    Built by keyword alone. A plain class, not a dataclass: dataclasses imports inspect, about
    8 ms of score's and report's start-up (docs/startup.md)."""

    __slots__ = (
        "allow_leaky_judge", "allow_unwritten", "as_json", "certificate", "checks", "criteria", "gate",
        "key", "labels", "max_drop", "min_effect", "min_trials", "plugin_eval_results", "quarantine",
        "scores", "seed", "weights",
    )  # fmt: skip

    def __init__(
        self,
        *,
        scores: Path | None = None,
        checks: Path | None = None,
        quarantine: Path | None = None,
        key: Path | None = None,
        weights: str | None = None,
        as_json: bool = False,
        allow_unwritten: bool = False,
        min_trials: int | None = None,
        criteria: Path | None = None,
        certificate: Path | None = None,
        plugin_eval_results: Path | None = None,
        gate: "GateName" = "reference",
        min_effect: float = 0.0,
        max_drop: float = 0.1,
        seed: int = 0,
        labels: Path | None = None,
        allow_leaky_judge: bool = False,
    ) -> None:
        self.scores, self.checks, self.quarantine, self.key = scores, checks, quarantine, key
        self.weights, self.as_json, self.allow_unwritten = weights, as_json, allow_unwritten
        self.min_trials, self.criteria, self.certificate = min_trials, criteria, certificate
        self.plugin_eval_results, self.gate = plugin_eval_results, gate
        self.min_effect, self.max_drop, self.seed = min_effect, max_drop, seed
        self.labels, self.allow_leaky_judge = labels, allow_leaky_judge


class Scored(NamedTuple):
    """What `score` prints on stdout, and its exit code."""

    text: str
    code: int


def score(request: ScoreRequest) -> Scored:
    """The summary the request's files make, as text, and the exit code its verdict decides."""
    if request.plugin_eval_results is not None:  # the run's scores and checks, in place of SCORES
        given = (request.scores, request.checks, request.key, request.criteria)
        if any(path is not None for path in given):
            raise UsageError(
                "--plugin-eval-results is the run's scores and checks: pass no SCORES, --checks, --key or --criteria"
            )
        return _plugin_eval(request.plugin_eval_results, request, _decide(request))
    decide = _decide(request)
    if request.scores is None:
        return _checks_only(request)
    return _scored(request.scores, request, decide)


def _decide(request: ScoreRequest) -> Decide:
    return checked(request.gate, request.min_effect, request.max_drop, request.seed)


def _scored(scores: Path, request: ScoreRequest, decide: Decide) -> Scored:
    """score SCORES [--checks ...]: the reference's summary, the paired analysis and the decision."""
    admitted_rows, leaky = admitted(scores, scoring.read_rows(scores), request.allow_leaky_judge)
    rows: Sequence[Mapping[str, object]] = admitted_rows  # as read; summarize checks them
    if request.key is not None:
        rows = scoring.apply_key(admitted_rows, scoring.read_key(request.key))
    sample = scoring.read_labels(request.labels, request.key) if request.labels is not None else None
    checks = request.checks
    results = (
        settled(scoring.read_results(checks), request.criteria, request.certificate)
        if checks is not None
        else None
    )
    results, found = _triggers_apart(results)
    verdicts = criteria_summary(request.criteria, request.certificate, sample)

    def summarize(kept: "list[ResultRow] | None") -> "ScoreSummary":
        return scoring.summarize(
            rows,
            scoring.parse_weights(request.weights),
            kept,
            allow_unwritten=request.allow_unwritten,
            min_trials=request.min_trials,
            decide=decide,
            criteria=verdicts,
            labels=sample,
        )

    summary = summarize(results)
    if (
        request.quarantine is not None
    ):  # issue 37: informs; the verdict with the checks is the one that decides
        summary["quarantine"] = _quarantined(request.quarantine, results, summarize, summary)
    if leaky:
        summary["leaky_judge"] = leaky
    if found:  # trigger cases among the checks: their precision, recall and accuracy
        from .triggers import as_json

        summary["triggers"] = as_json(found)
    return Scored(_said(summary, request, leaky, found), exit_code(summary))


# The modules of what a request may add (a judge's admission, trigger cases, criteria, plugin
# eval's results) are imported where a request has it: a plain `score SCORES` starts without them.


def admitted(
    scores: Path, rows: list[dict[str, object]], allow_leaky: bool
) -> tuple[list[dict[str, object]], list[str]]:
    """The rows admission.admitted admits (a file no judge filled passes unchanged): score's and
    report's scores alike, so neither imports the judge's admission for a person's rows."""
    if not judge_filled(rows):
        return rows, []
    from ..judging import admission

    return admission.admitted(scores, rows, allow_leaky=allow_leaky)


def _triggers_apart(
    results: "list[ResultRow] | None",
) -> "tuple[list[ResultRow] | None, dict[str, Confusion]]":
    """The check results without trigger cases, and those cases' confusion (plugin eval's rule:
    only the skill can pass a trigger check, so it never joins the gate)."""
    if results is None:
        return None, {}
    from . import triggers

    found = triggers.confusion(results)
    return (triggers.without(results) or None, found) if found else (results, found)


def _said(
    summary: "ScoreSummary", request: ScoreRequest, leaky: list[str], found: "dict[str, Confusion]"
) -> str:
    """The summary as JSON, or its table and the sections the request asked for."""
    if request.as_json:
        return scoring.dumps(summary)
    lines = [*leaky, *scoring.table(summary)]
    if found:
        from . import triggers

        lines += [*triggers.table(found), triggers.INDICATOR]
    if "quarantine" in summary:
        from .audit import quarantine_line

        lines.append(quarantine_line(summary["quarantine"]))
    if request.criteria is not None:
        from .criteria import table

        lines += table(summary["criteria"])
    return "\n".join(lines)


def exit_code(summary: "ScoreSummary") -> int:
    """The exit code the summary's deciding verdict maps to."""
    decided = summary.get("decision")
    gate = decided["gate"] if decided is not None else "reference"
    return exitcodes.of_verdict(gate, verdict_of(summary))


def verdict_of(summary: "ScoreSummary") -> str:
    """The deciding verdict: the paired analysis's under --gate paired, else the reference's."""
    if "decision" in summary and summary["decision"]["gate"] == "paired":
        return summary["decision"]["verdict"]
    return "passed" if summary["release_gate"]["passed"] else "failed"


def _plugin_eval(path: Path, request: ScoreRequest, decide: Decide) -> Scored:
    """score --plugin-eval-results: plugin eval's figures recomputed, then the paired analysis of
    its two arms; a run with one arm gets its figures and the reason nothing is compared."""
    from ..judging import plugin_results as plugin

    results = plugin.read_results(path)
    found = plugin.section(results)
    if not found["two_arms"]:
        decision = {"verdict": "inconclusive", "reasons": [plugin.NO_COMPARISON]}
        if request.as_json:
            return Scored(
                json.dumps({"plugin_eval": found, "decision": decision}, indent=2), exitcodes.INCONCLUSIVE
            )
        return Scored("\n".join([*plugin.lines(found), plugin.NO_COMPARISON]), exitcodes.INCONCLUSIVE)
    score_rows, check_rows = plugin.rows(results)
    summary = scoring.summarize(
        score_rows,
        scoring.parse_weights(request.weights),
        check_rows,
        allow_unwritten=request.allow_unwritten,
        min_trials=request.min_trials,
        decide=decide,
    )
    if request.as_json:
        text = json.dumps({"plugin_eval": found, **json.loads(scoring.dumps(summary))}, indent=2)
    else:
        text = "\n".join([*plugin.lines(found), "", *scoring.table(summary)])
    return Scored(text, exit_code(summary))


def _checks_only(request: ScoreRequest) -> Scored:
    """score --checks CHECKS without a scores file: what the checks decided, nothing compared."""
    if request.checks is None:
        raise UsageError(
            "score needs a scores file, --checks CHECKS for a run with only checks, "
            "or --plugin-eval-results FILE"
        )
    given = {
        "--key": request.key,
        "--weights": request.weights,
        "--criteria": request.criteria,
        "--certificate": request.certificate,
        "--labels": request.labels,
        "--quarantine": request.quarantine,
        "--min-trials": request.min_trials,
    }
    needing = [flag for flag, value in given.items() if value is not None]
    needing += ["--gate paired"] if request.gate == "paired" else []
    if needing:
        raise UsageError(f"{', '.join(needing)} need a scores file: score SCORES --checks CHECKS")
    from . import triggers

    results = scoring.read_results(request.checks)
    summary = triggers.checks_only(results, allow_unwritten=request.allow_unwritten)
    if request.as_json:
        text = json.dumps(summary, indent=2)
    else:
        text = "\n".join(triggers.checks_only_table(summary, triggers.confusion(results)))
    return Scored(text, exitcodes.of_verdict("reference", "passed" if summary["passed"] else "failed"))


def _quarantined(
    path: Path,
    results: "list[ResultRow] | None",
    summarize: "Callable[[list[ResultRow]], ScoreSummary]",
    summary: "ScoreSummary",
) -> "QuarantineJson":
    """score --quarantine: the verdict again without the listed checks' results."""
    from .audit import read_quarantine, without_quarantined

    if results is None:
        raise UsageError("--quarantine sets check results aside: pass them with --checks")
    listed = read_quarantine(path)
    kept, set_aside = without_quarantined(results, listed)
    return {
        "listed": len(listed),
        "results": set_aside,
        "with_them": verdict_of(summary),
        "without_them": verdict_of(summarize(kept)),
    }


def settled(results: "list[ResultRow]", criteria: Path | None, certificate: Path | None) -> "list[ResultRow]":
    """With --criteria, an unwritten check whose criterion a person or a counted judge decided is
    not a check that never ran."""
    if criteria is None:
        return results
    from ..judging.agree import read_certificate
    from . import criteria as counting

    certified = read_certificate(certificate) if certificate is not None else None
    return counting.settled(results, counting.read_verdicts(criteria), certified)


def criteria_summary(
    criteria: Path | None, certificate: Path | None, labels: "LabelSet | None" = None
) -> "CriteriaSummary | None":
    """--criteria: who decided each criterion (its reasons join the gate's, so the gate fails
    while any is undecided and the paired decision counts them too)."""
    if criteria is None:
        if certificate is not None:
            raise UsageError("--certificate counts a judge's criterion verdicts: pass them with --criteria")
        return None
    from ..judging.admission import unedited
    from ..judging.agree import read_certificate
    from . import criteria as counting

    certified = read_certificate(certificate) if certificate is not None else None
    unedited(criteria)
    found: CriteriaSummary = counting.summarize(counting.read_verdicts(criteria), certified, labels)
    return found
