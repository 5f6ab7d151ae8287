"""A run `claude plugin eval` already made (`aggregate-result.json`), as score's rows.

plugin eval's own figures are recomputed from the runs by its documented rules, in the order
a JavaScript reduce adds them (so a recorded float is reproduced to its last digit):

- a run's score: the weighted fraction of its scored graders that passed (a run with no
  grader results, an errored one, scores 0, as plugin eval records it);
- in a two-arm run a grader is unscored in both arms when it is `tool_used` of `Skill` or
  `arm: with-only` (`arm: both` forces it scored); when that would leave a case no scored
  grader, all are scored; under `--ablation none`, or with one arm, nothing is excluded.
  Graders on `mock_calls` keep the `scored` flag the file records (whether every mocked
  server is the plugin's is not in the file);
- a case's score: the mean of its with-arm run scores; `delta`: that minus the mean of its
  without-arm scores; `overallScore` and `meanDelta`: the means over cases.

A recorded figure that disagrees with its runs is named, and the recomputed one is used.

As score's rows: the with arm is the candidate and the without arm the baseline; run i of a
case is trial i. Each run's score s becomes a score row with every metric 1 + 4s (so the
weighted Δ is four times plugin eval's Δ, on score's 1-5 scale); each scored grader's outcome
is a check row. An errored run, and a run with no partner in the other arm (a partial run),
is a void row: its trial leaves both arms, and the gate says why.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import NamedTuple, TypeGuard

from ...errors import UserError
from ...exitcodes import RefusalCode
from ...files import read_limited
from ..rows import CheckStatus, ResultRow
from .shapes import PluginScoreRow, PluginSection

CODE = RefusalCode.NOT_PLUGIN_EVAL_RESULTS


class NotPluginEvalResults(UserError):
    """A file that is not an aggregate-result.json plugin eval writes."""

    exit_code = CODE.exit_code

    def lines(self) -> list[str]:
        return [f"adhd-evals: refused ({CODE.value}): {self}", "Nothing was written."]


class GraderResult(NamedTuple):
    name: str
    passed: bool
    weight: float
    scored: bool  # as recorded
    with_only: bool = False  # the run's own `withOnly` flag


class Run(NamedTuple):
    score: float  # as recorded
    error: str | None
    graders: tuple[GraderResult, ...]


class CaseResult(NamedTuple):
    name: str
    graders: dict[str, dict[str, object]]  # the case's graders by name: type, weight, config
    runs: dict[str, list[Run]]  # "with", "without"
    recorded: dict[str, object]  # the case's aggregates as recorded


class Results(NamedTuple):
    path: str
    partial: bool
    partial_reason: str | None
    ablation: str | None
    cases: list[CaseResult]
    recorded: dict[str, object]  # the suite's aggregates


# --- reading ------------------------------------------------------------------------------------


def read_results(path: Path) -> Results:
    """The results file, every field score needs checked; a wrong one refused naming it."""
    try:
        data = json.loads(read_limited(path), parse_constant=_not_json)
    except OSError as exc:
        raise NotPluginEvalResults(f"{path} cannot be read: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise NotPluginEvalResults(f"{path} is not JSON: {exc}") from None
    refuse = _Refuser(str(path))
    if not isinstance(data, dict) or data.get("schemaVersion") != 1:
        found = data.get("schemaVersion", "missing") if isinstance(data, dict) else type(data).__name__
        raise refuse("schemaVersion", "1 (an aggregate-result.json plugin eval writes)", found)
    cases = data.get("cases")
    if not isinstance(cases, list) or not cases:
        raise refuse("cases", "a non-empty list of cases", cases)
    suite = _object(data.get("suite"))
    return Results(
        str(path),
        data.get("partial") is True,
        data.get("partialReason") if isinstance(data.get("partialReason"), str) else None,
        ablation if isinstance(ablation := suite.get("ablation"), str) else None,
        [_case(refuse, case, index) for index, case in enumerate(cases)],
        _object(data.get("aggregates")),
    )


def _object(value: object) -> dict[str, object]:
    """A JSON object, or nothing where the file holds something else (only added fields vary)."""
    return value if isinstance(value, dict) else {}


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")  # Python's json reads NaN and Infinity; JSON has neither


class _Refuser:
    def __init__(self, path: str) -> None:
        self.path = path

    def __call__(self, field: str, expected: str, actual: object) -> NotPluginEvalResults:
        shown = json.dumps(actual)[:60] if not isinstance(actual, str) or actual != "missing" else actual
        return NotPluginEvalResults(
            f"{self.path} is not a plugin eval results file: {field}: Expected {expected}, actual {shown}"
        )


def _case(refuse: _Refuser, case: object, index: int) -> CaseResult:
    where = f"cases[{index}]"
    if not isinstance(case, dict) or not isinstance(case.get("name"), str) or not case["name"]:
        raise refuse(
            f"{where}.name",
            "the case's name",
            case.get("name", "missing") if isinstance(case, dict) else case,
        )
    where = f"{where} ({case['name']})"
    graders = case.get("graders", [])
    if not isinstance(graders, list) or not all(
        isinstance(g, dict) and isinstance(g.get("name"), str) for g in graders
    ):
        raise refuse(f"{where}.graders", "a list of {name, type, weight, config}", graders)
    arms = case.get("arms")
    if not isinstance(arms, dict) or not isinstance(arms.get("with", []), list):
        raise refuse(f"{where}.arms", "{with: [runs], without: [runs]}", arms)
    runs = {
        arm: [_run(refuse, run, f"{where}.arms.{arm}[{i}]") for i, run in enumerate(arms[arm])]
        for arm in ("with", "without")
        if isinstance(arms.get(arm), list)
    }
    if "without" in arms and not isinstance(arms["without"], list):
        raise refuse(f"{where}.arms.without", "a list of runs", arms["without"])
    recorded = _object(case.get("aggregates"))
    return CaseResult(case["name"], {g["name"]: g for g in graders}, runs, recorded)


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _run(refuse: _Refuser, run: object, where: str) -> Run:
    if not isinstance(run, dict):
        raise refuse(where, "a run object", run)
    if not _number(run.get("score")):
        raise refuse(f"{where}.score", "a number", run.get("score", "missing"))
    error = run.get("error")
    if error is not None and not isinstance(error, str):
        raise refuse(f"{where}.error", "null or the error's text", error)
    graders = run.get("graders", [])
    if not isinstance(graders, list):
        raise refuse(f"{where}.graders", "a list of grader results", graders)
    return Run(
        float(run["score"]),
        error,
        tuple(_grader(refuse, g, f"{where}.graders[{i}]") for i, g in enumerate(graders)),
    )


def _grader(refuse: _Refuser, grader: object, where: str) -> GraderResult:
    if not isinstance(grader, dict) or not isinstance(grader.get("name"), str):
        raise refuse(
            f"{where}.name",
            "the grader's name",
            grader.get("name", "missing") if isinstance(grader, dict) else grader,
        )
    for key, ok, expected in (
        ("passed", isinstance(grader.get("passed"), bool), "true or false"),
        ("weight", _number(grader.get("weight")), "a number"),
        ("scored", isinstance(grader.get("scored", True), bool), "true or false"),
        ("withOnly", isinstance(grader.get("withOnly", False), bool), "true or false"),
    ):
        if not ok:
            raise refuse(f"{where}.{key}", expected, grader.get(key, "missing"))
    return GraderResult(
        grader["name"],
        grader["passed"],
        float(grader["weight"]),
        grader.get("scored", True),
        grader.get("withOnly", False),
    )


# --- plugin eval's rules ------------------------------------------------------------------------


def two_armed(results: Results) -> bool:
    """Whether the run compared the arms: a without arm exists and ablation is not `none`."""
    return results.ablation != "none" and any(case.runs.get("without") for case in results.cases)


def _config(grader: dict[str, object]) -> dict[str, object]:
    config = grader.get("config")
    return {
        **(config if isinstance(config, dict) else {}),
        **{k: v for k, v in grader.items() if k != "config"},
    }


def excluded(case: CaseResult, *, two_arms: bool) -> set[str]:
    """The graders a run of this case leaves unscored, in both arms (see the module's rules)."""
    if not two_arms:
        return set()
    names = _grader_names(case)
    out = set()
    for name in names:
        grader = _config(case.graders.get(name, {}))
        if grader.get("arm") == "both":
            continue
        if (
            grader.get("arm") == "with-only"
            or _marked_with_only(case, name)
            or (grader.get("type") == "tool_used" and grader.get("tool") == "Skill")
            or (_on_mock_calls(grader) and not _recorded_scored(case, name))
        ):
            out.add(name)
    return set() if out == set(names) else out


def _marked_with_only(case: CaseResult, name: str) -> bool:
    """A run's results say `withOnly` for the grader (its case's graders may not carry `arm`)."""
    return any(
        g.with_only for runs in case.runs.values() for run in runs for g in run.graders if g.name == name
    )


def _grader_names(case: CaseResult) -> list[str]:
    seen = dict.fromkeys(case.graders)
    for runs in case.runs.values():
        for run in runs:
            seen.update(dict.fromkeys(g.name for g in run.graders))
    return list(seen)


def _on_mock_calls(grader: dict[str, object]) -> bool:
    return grader.get("target") == "mock_calls"


def _recorded_scored(case: CaseResult, name: str) -> bool:
    flags = [g.scored for runs in case.runs.values() for run in runs for g in run.graders if g.name == name]
    return all(flags)


def run_score(run: Run, unscored: set[str]) -> float:
    """The weighted fraction of the run's scored graders that passed, added in the file's order."""
    total = passed = 0.0
    for grader in run.graders:
        if grader.name in unscored:
            continue
        total += grader.weight
        passed += grader.weight if grader.passed else 0.0
    return passed / total if total else 0.0


def mean(values: list[float]) -> float | None:
    """The mean as a JavaScript reduce makes it: added left to right (Python 3.12's sum would
    add them more exactly, and so differently)."""
    if not values:
        return None
    total = 0.0
    for value in values:
        total += value
    return total / len(values)


class CaseFigures(NamedTuple):
    name: str
    score: float | None  # with arm
    score_without: float | None
    delta: float | None
    unscored: tuple[str, ...]
    runs: dict[str, int]
    errored: dict[str, int]


def figures(case: CaseResult, *, two_arms: bool) -> CaseFigures:
    unscored = excluded(case, two_arms=two_arms)
    arms = {arm: [run_score(run, unscored) for run in runs] for arm, runs in case.runs.items()}
    score, without = mean(arms.get("with", [])), mean(arms.get("without", []))
    delta = score - without if score is not None and without is not None and two_arms else None
    return CaseFigures(
        case.name,
        score,
        without,
        delta,
        tuple(sorted(unscored)),
        {arm: len(runs) for arm, runs in case.runs.items()},
        {arm: sum(run.error is not None for run in runs) for arm, runs in case.runs.items()},
    )


def agrees(recorded: object, recomputed: float | None) -> bool:
    """Whether a recorded figure is the recomputed one to its last printed digit."""
    if recomputed is None or not _number(recorded):
        return recorded is None and recomputed is None
    try:
        if float(recorded) == recomputed:
            return True
        printed = Decimal(repr(recorded))
        return Decimal(recomputed).quantize(printed) == printed
    except (OverflowError, ArithmeticError):  # a figure too large for a float, or for its digits
        return False


def disagreements(results: Results, cases: list[CaseFigures]) -> list[str]:
    """Each recorded figure the runs do not reproduce, named with both values."""
    found = []
    for case, figs in zip(results.cases, cases, strict=True):
        for key, value in (
            ("score", figs.score),
            ("delta", figs.delta),
            ("scoreWithout", figs.score_without),
        ):
            if key in case.recorded and not agrees(case.recorded[key], value):
                found.append(
                    f"case {case.name}: recorded {key} {case.recorded[key]} but its runs give {value}"
                )
    suite = suite_figures(cases)
    for key, value in suite.items():
        if key in results.recorded and not agrees(results.recorded[key], value):
            found.append(f"recorded {key} {results.recorded[key]} but the cases give {value}")
    return found


def suite_figures(cases: list[CaseFigures]) -> dict[str, float | None]:
    return {
        "overallScore": mean([c.score for c in cases if c.score is not None]),
        "meanDelta": mean([c.delta for c in cases if c.delta is not None]),
    }


# --- as score's rows ----------------------------------------------------------------------------

CONDITION = {"with": "candidate", "without": "baseline"}


def rows(results: Results) -> tuple[list[PluginScoreRow], list[ResultRow]]:
    """Score rows (void rows for errored and unpartnered runs) and check rows, both arms."""
    scores: list[PluginScoreRow] = []
    checks: list[ResultRow] = []
    two_arms = two_armed(results)
    for case in results.cases:
        unscored = excluded(case, two_arms=two_arms)
        counts = [len(case.runs.get(arm, [])) for arm in ("with", "without")]
        for arm, runs in case.runs.items():
            for trial, run in enumerate(runs, start=1):
                scores.append(_score_row(case.name, trial, arm, run, unscored, trial > min(counts)))
                checks += _check_rows(case, trial, arm, run, unscored)
    return scores, checks


def _score_row(name: str, trial: int, arm: str, run: Run, unscored: set[str], alone: bool) -> PluginScoreRow:
    row: PluginScoreRow = {"case_id": name, "trial": trial, "condition": CONDITION[arm]}
    if run.error is not None:
        row["void"] = f"the {arm}-plugin run errored ({run.error}): not a zero, left out of both arms"
        return row
    if alone:
        row["void"] = f"the {arm}-plugin run has no run {trial} in the other arm (a partial run)"
        return row
    value = 1 + 4 * run_score(run, unscored)
    row["correctness"] = row["autonomy"] = row["actionability"] = row["safety"] = row["concision"] = value
    row["blocker"], row["notes"] = False, f"plugin eval {arm}-plugin run {trial}"
    return row


def _check_rows(case: CaseResult, trial: int, arm: str, run: Run, unscored: set[str]) -> list[ResultRow]:
    names = [n for n in _grader_names(case) if n not in unscored]
    outcome = {g.name: g.passed for g in run.graders}
    return [
        {
            "case_id": case.name,
            "trial": trial,
            "condition": CONDITION[arm],
            "criterion": name,
            "check": name,
            "status": _status(run, outcome.get(name)),
        }
        for name in names
    ]


def _status(run: Run, passed: bool | None) -> CheckStatus:
    if run.error is not None:
        return "error"
    if passed is None:  # the grader never ran on this run (a paid grader skipped, say)
        return "unwritten"
    return "pass" if passed else "fail"


# --- what score says about it -------------------------------------------------------------------


def section(results: Results) -> PluginSection:
    """plugin eval's own figures, recomputed, with what the file records and how the run went."""
    two_arms = two_armed(results)
    cases = [figures(case, two_arms=two_arms) for case in results.cases]
    errored = {arm: sum(c.errored.get(arm, 0) for c in cases) for arm in ("with", "without")}
    suite = suite_figures(cases)
    return {
        "file": results.path,
        "two_arms": two_arms,
        "partial": results.partial,
        "partial_reason": results.partial_reason,
        "errored_runs": errored,
        "overallScore": suite["overallScore"],
        "meanDelta": suite["meanDelta"],
        "recorded": {
            k: results.recorded.get(k) for k in ("overallScore", "meanDelta") if k in results.recorded
        },
        "disagreements": disagreements(results, cases),
        "cases": [
            {
                "name": c.name,
                "score": c.score,
                "score_without": c.score_without,
                "delta": c.delta,
                "unscored": list(c.unscored),
                "runs": c.runs,
                "errored": c.errored,
            }
            for c in cases
        ],
    }


def lines(found: PluginSection) -> list[str]:
    """The section as text: per case, then the suite, then what the run lacked."""
    header = ["case", "with", "without", "Δ", "runs", "errored", "unscored (indicators)"]
    table = [header]
    for case in found["cases"]:
        table.append(
            [
                case["name"],
                _figure(case["score"]),
                _figure(case["score_without"]),
                _figure(case["delta"], signed=True),
                "/".join(str(case["runs"].get(arm, 0)) for arm in ("with", "without")),
                "/".join(str(case["errored"].get(arm, 0)) for arm in ("with", "without")),
                ", ".join(case["unscored"]) or "-",
            ]
        )
    from ...text import table as text_table

    said = [
        f"plugin eval's figures, recomputed from the runs of {found['file']} (runs and errored: with/without):"
    ]
    said += text_table(table)
    said.append(
        f"overallScore {_figure(found['overallScore'])}, meanDelta {_figure(found['meanDelta'], signed=True)}"
        + (" (as recorded)" if not found["disagreements"] else "")
    )
    said += [
        f"Disagrees with its runs (the recomputed figure is used): {line}." for line in found["disagreements"]
    ]
    if found["partial"]:
        said.append(
            f"A partial run ({found['partial_reason'] or 'no reason recorded'}): cases may lack runs."
        )
    errored = found["errored_runs"]
    if errored["with"] or errored["without"]:
        said.append(
            f"Errored runs: {errored['with']} with the plugin, {errored['without']} without; each is left out "
            "of both arms (void), never counted as a zero."
        )
    return said


def _figure(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


NO_COMPARISON = (
    "No comparison: the results hold no without-plugin arm (a --ablation none run, or one arm "
    "only), so there is no Δ to decide on."
)
