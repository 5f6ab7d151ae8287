"""The row shapes of `runs/rows.py` against the rows adhd-evals really writes and reads.

Every row a writer wrote (the verdicts tour of docs/verdicts.md run end to end, a cached run,
and the writers called directly) and every golden row under fixtures/ is read back through the
reader that returns it as its shape; each row must hold the shape's required keys and no key the
shape does not declare (a key left out of a shape is knowledge silently dropped), and over all
the rows of a shape every declared key must be seen (a declared key no writer writes is a key
that does not exist), but for the few keys listed in UNSEEN with the writer that writes them.
"""

from __future__ import annotations

import json
import os
import sys
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from adhd_evals.entry import main
from adhd_evals.runs import rows, summaries
from adhd_evals.runs.deciding import criteria, score, triggers
from adhd_evals.runs.deciding.decision import checked
from adhd_evals.runs.inference import paired
from adhd_evals.runs.inference.paired import mcnemar
from adhd_evals.runs.judging import agree, check, verdicts
from adhd_evals.runs.judging.blind import blind
from adhd_evals.runs.rubric import METRICS, WEIGHTS
from helpers import FIXTURES
from test_verdicts_tour import runners, tour

if sys.version_info >= (3, 11):
    from typing import NotRequired
else:
    from typing_extensions import NotRequired

REPORT = FIXTURES / "report"
LABELS = FIXTURES / "verdicts" / "tour" / "labels.jsonl"
# declared keys the rows of these tests never hold, and the writer that writes them
UNSEEN: dict[str, set[str]] = {
    "SheetRow": {"void"},  # judge, for a row it could not judge (tests/test_judge.py)
    # score's CLI, with --quarantine (tests/test_audit_quarantine.py); verdicts and score
    # --allow-leaky-judge, on a judge that passed a control (tests/test_admission_controls.py);
    # score --checks holding trigger cases (tests/test_trigger_eval.py)
    "VerdictRow": {"leaky_judge"},
    "ScoreSummary": {"quarantine", "leaky_judge", "triggers"},
}


def declared(shape: type) -> tuple[set[str], set[str]]:
    """The shape's (required, optional) keys, as written in rows.py (NotRequired: optional). The
    summaries' names are given too: rows.py imports them for type checkers only."""
    hints = typing.get_type_hints(shape, localns=vars(summaries), include_extras=True)
    optional = {name for name, hint in hints.items() if typing.get_origin(hint) is NotRequired}
    return set(hints) - optional, optional


def shaped(found: Iterable[Mapping[str, object]], shape: type) -> set[str]:
    """Every row holds the shape's required keys and only declared ones; the keys seen."""
    required, optional = declared(shape)
    seen: set[str] = set()
    for row in found:
        assert required <= set(row), (shape.__name__, "missing", required - set(row))
        assert set(row) <= required | optional, (shape.__name__, "undeclared", set(row) - required - optional)
        seen |= set(row)
    return seen


def every_key_seen(seen: set[str], shape: type) -> None:
    required, optional = declared(shape)
    assert (required | optional) - seen == UNSEEN.get(shape.__name__, set()), shape.__name__


@pytest.fixture(scope="module")
def toured(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """docs/verdicts.md's tour run in a fresh folder (as tests/test_verdicts_tour.py runs it),
    then a stub run through a response cache twice: the second run's rows are cache hits."""
    root = tmp_path_factory.mktemp("tour")
    (root / "fixtures").symlink_to(FIXTURES)
    (root / "judges.json").write_text(json.dumps(runners()))
    cached = ["run", "--runner", "stub", "--condition", "baseline", "--trials", "1", "--cache", "cache"]
    here = Path.cwd()
    os.chdir(root)  # the tour's paths are relative; back at once, so no other test sees it
    try:
        for argv, code in tour():
            assert main(argv) == code, argv
        for output in ("runs/first.jsonl", "runs/cached.jsonl"):
            assert main([*cached, "--output", output]) == 0
    finally:
        os.chdir(here)
    return root / "runs"


@pytest.mark.long
def test_response_rows(toured: Path) -> None:
    """run writes usage, cost_usd and elapsed_s; a cache hit adds cached; the golden rows hold
    the five keys check needs."""
    found = [
        *check.read_responses(toured / "responses.jsonl"),
        *check.read_responses(toured / "cached.jsonl"),
        *rows.read_responses(REPORT / "responses.jsonl"),
    ]
    assert all(row.get("cached") is True for row in check.read_responses(toured / "cached.jsonl"))
    every_key_seen(shaped(found, rows.ResponseRow), rows.ResponseRow)


@pytest.mark.long
def test_key_rows(toured: Path) -> None:
    found = [*score.read_key(toured / "key.jsonl"), *verdicts.read_key(toured / "key.jsonl")]
    every_key_seen(shaped(found, rows.KeyRow), rows.KeyRow)


@pytest.mark.long
def test_result_rows(toured: Path) -> None:
    """check writes every key but error, and error when a check raised (its writer called
    directly: no check of the tour raises)."""
    raised = check.CheckResult("c", 1, "baseline", "stub", "says hi", "says_hi", "error", "ValueError: x")
    found = [
        *score.read_results(toured / "checks.jsonl"),
        *verdicts.read_checks(toured / "checks.jsonl"),
        *score.read_results(REPORT / "checks.jsonl"),
        *verdicts.read_checks(REPORT / "checks.jsonl"),
        raised.row(),
    ]
    every_key_seen(shaped(found, rows.ResultRow), rows.ResultRow)


@pytest.mark.long
def test_sheet_rows(toured: Path) -> None:
    """blind's sheet (JSONL and Markdown), the judged sheet, a person's labels, and the judged
    sheet unblinded (which adds label)."""
    judged = agree.read_scored(toured / "judged.jsonl")
    key = verdicts.read_key(toured / "key.jsonl")
    sheet, _ = blind(check.read_responses(toured / "responses.jsonl"), 0)
    found = [
        *sheet,
        *agree.read_scored(toured / "sheet.jsonl"),
        *agree.read_scored(toured / "sheet.md"),
        *judged,
        *agree.read_scored(LABELS),
        *verdicts.unblind(judged, key, "judged"),
    ]
    every_key_seen(shaped(found, rows.SheetRow), rows.SheetRow)


@pytest.mark.long
def test_score_rows(toured: Path) -> None:
    """The judged sheet mapped back through the key, and the golden scores, as score counts them."""
    judged = score.apply_key(score.read_rows(toured / "judged.jsonl"), score.read_key(toured / "key.jsonl"))
    found = []
    for scored in (judged, score.read_rows(REPORT / "scores.jsonl")):
        grouped, _, _ = score.grouped_rows(scored, dict(WEIGHTS))
        found += [row for condition in grouped.values() for row in condition]
    every_key_seen(shaped(found, rows.ScoreRow), rows.ScoreRow)


def _sources() -> verdicts.Sources:
    """One criterion each way verdicts decides it: a check that raised, nobody, a person (with
    the judge's verdict under others), a void judged row, and an uncertified judge.
    Rows: (c, 1, baseline) checked (error); (c, 1, candidate) nobody; (c, 2, baseline) a
    person's pass and the judge's fail; (c, 2, candidate) void; (c, 3, baseline) the judge's
    pass with no certificate. The person also passed (c, 1, baseline): under the check's others."""
    judge: rows.JudgeFingerprint = {"runner": "j", "command": ["j"], "model": None, "template": "t"}
    said: rows.CriterionVerdict = {"criterion": "x", "verdict": "fail", "evidence": "hi"}
    passed: rows.CriterionVerdict = {"criterion": "x", "verdict": "pass", "evidence": "hi"}
    source = verdicts.Sources({"c": ["x"]})
    source.checks = [check.CheckResult("c", 1, "baseline", "s", "x", "x_", "error", "boom").row()]
    people: list[rows.SheetRow] = [
        {"case_id": "c", "trial": 1, "condition": "baseline", "criteria": [passed]},
        {"case_id": "c", "trial": 2, "condition": "baseline", "criteria": [passed]},
    ]
    source.labels = [("labels", people)]
    source.judged = [
        {"case_id": "c", "trial": 2, "condition": "baseline", "criteria": [said], "judge": judge},
        {"case_id": "c", "trial": 2, "condition": "candidate", "void": "no answer", "judge": judge},
        {"case_id": "c", "trial": 3, "condition": "baseline", "criteria": [passed], "judge": judge},
        {"case_id": "c", "trial": 1, "condition": "candidate", "criteria": ["x"]},
    ]
    return source


@pytest.mark.long
def test_verdict_rows(toured: Path, tmp_path: Path) -> None:
    merged = verdicts.merge(_sources())
    assert [(r["trial"], r["condition"], r["status"], r["decided_by"]) for r in merged] == [
        (1, "baseline", "error", "nobody"),
        (1, "candidate", "unwritten", "nobody"),
        (2, "baseline", "pass", "person"),
        (2, "candidate", "void", "nobody"),
        (3, "baseline", "uncertified", "nobody"),
    ]
    written = tmp_path / "verdicts.jsonl"
    written.write_text("".join(json.dumps(r) + "\n" for r in merged), encoding="utf-8")
    found = [*criteria.read_verdicts(toured / "verdicts.jsonl"), *criteria.read_verdicts(written)]
    every_key_seen(shaped(found, rows.VerdictRow), rows.VerdictRow)
    every_key_seen(shaped([r["others"] for r in found if "others" in r], rows.Others), rows.Others)


def _summaries(toured: Path) -> list[summaries.ScoreSummary]:
    """score as the tour runs it (--checks, --criteria, the paired analysis), on the golden
    scores, with a void row, short of --min-trials, and with a person's random sample (--labels)."""
    key = score.read_key(toured / "key.jsonl")
    judged = score.apply_key(score.read_rows(toured / "judged.jsonl"), key)
    found = criteria.summarize(criteria.read_verdicts(toured / "verdicts.jsonl"), None)
    results = score.read_results(toured / "checks.jsonl")
    golden = score.read_rows(REPORT / "scores.jsonl")
    void: dict[str, Any] = {**judged[0], **dict.fromkeys(METRICS), "blocker": None, "void": "no answer"}
    ppi_key = toured.parent / "ppi" / "key.jsonl"  # the tour's last part: a judge and a random sample
    ppi_rows = score.apply_key(
        score.read_rows(toured.parent / "ppi" / "honest.jsonl"), score.read_key(ppi_key)
    )
    labels = score.read_labels(FIXTURES / "verdicts" / "ppi" / "labels.jsonl", ppi_key)
    return [
        score.summarize(judged, None, results, decide=checked("reference", 0.0, 0.1), criteria=found),
        score.summarize(golden, None, score.read_results(REPORT / "checks.jsonl")),
        score.summarize([void, *judged[1:]], None, decide=checked("paired", 0.0, 0.1)),
        score.summarize(golden, None, min_trials=3),
        score.summarize(ppi_rows, None, decide=checked("paired", 0.0, 0.1), labels=labels),
    ]


@pytest.mark.long
def test_score_summary(toured: Path) -> None:
    """The summary and every shape inside it."""
    built = _summaries(toured)
    every_key_seen(shaped(built, summaries.ScoreSummary), summaries.ScoreSummary)
    paired = [s for s in built if "paired" in s]
    quantities: list[rows.Quantity] = ["weighted_score", *METRICS]
    parts: dict[type, list[Mapping[str, object]]] = {
        summaries.ConditionMeans: [m for s in built for m in s["conditions"].values()],
        summaries.ReleaseGate: [s["release_gate"] for s in built],
        summaries.CheckRate: [r for s in built for r in s.get("checks", {}).values()],
        summaries.Regression: [r for s in built for r in s["regressions"]],
        summaries.VoidRow: [v for s in built for v in s.get("void", [])],
        summaries.Decision: [s["decision"] for s in built if "decision" in s],
        summaries.PairedSection: [s["paired"] for s in paired],
        summaries.Method: [s["paired"]["method"] for s in paired],
        summaries.AnalysisJson: [s["paired"][q] for s in paired for q in quantities],
        summaries.SignTestJson: [s["paired"][q]["sign_test"] for s in paired for q in quantities],
        summaries.CaseDelta: [c for s in paired for c in s["paired"]["cases"]],
        summaries.McNemarTest: [mcnemar(2, 1)],
    }
    for shape, found in parts.items():
        every_key_seen(shaped(found, shape), shape)
    assert {s["decision"]["gate"] for s in built if "decision" in s} == {"reference", "paired"}


def _trigger_results() -> list[rows.ResultRow]:
    """Trigger verdicts of one query in candidate and comparator (two descriptions) and baseline,
    and one undecided."""
    should = "the skill s is invoked"
    statuses: dict[str, rows.CheckStatus] = {"candidate": "pass", "comparator": "fail", "baseline": "error"}
    return [
        {"case_id": "q", "trial": 1, "condition": c, "criterion": should, "status": status}
        for c, status in statuses.items()
    ]


@pytest.mark.long
def test_summary_sections(toured: Path) -> None:
    """The sections inside the summary, each built as score builds it: the criteria with the
    tour's certificate and a person's random sample (every per-condition key), the checks'
    reliability, the PPI section, and the trigger figures of a checks-only score."""
    certificate = agree.read_certificate(toured.parent / "judge.cert.json")
    ppi_key = toured.parent / "ppi" / "key.jsonl"
    labels = score.read_labels(FIXTURES / "verdicts" / "ppi" / "labels.jsonl", ppi_key)
    verdicts_rows = criteria.read_verdicts(toured / "verdicts.jsonl")
    found = [criteria.summarize(verdicts_rows, certificate, labels), criteria.summarize(verdicts_rows, None)]
    counts = [c for f in found for c in f["conditions"].values()]
    figures = [three for c in counts if "judge_ppi" in c for three in [c["judge_ppi"]]]
    reliability = paired.reliability(score.read_results(toured / "checks.jsonl"))
    conditions, test = paired.reliability_parts(reliability)
    ppi_sections = [s["ppi"] for s in _summaries(toured) if "ppi" in s]
    only = triggers.checks_only(_trigger_results())
    parts: dict[type, list[Mapping[str, object]]] = {
        summaries.CriteriaSummary: list(found),
        summaries.CriteriaCounts: list(counts),
        summaries.PassFail: [pf for c in counts for pf in c["decided"].values()],
        summaries.Corrected: [c["judge_rate"] for c in counts if "judge_rate" in c],
        summaries.CriteriaPaired: [p for f in found if (p := f.get("paired")) is not None],
        summaries.ThreeJson: list(figures),
        summaries.EstimateJson: [
            e for t in figures for e in (t["judge"], t["ppi"], t["labels"]) if e is not None
        ],
        summaries.ConditionReliability: list(conditions.values()),
        summaries.CheckReliability: [r for c in conditions.values() for r in c["per_check"]],
        summaries.McNemarChecks: [] if test is None else [test],
        summaries.PpiSection: list(ppi_sections),
        summaries.PpiSample: [s["sample"] for s in ppi_sections],
        summaries.ChecksOnly: [only],
        summaries.TriggerFigures: list(only["triggers"].values()),
        summaries.TriggersPaired: [p for p in [only.get("triggers_paired")] if p is not None],
    }
    for shape, seen in parts.items():
        assert seen, shape.__name__  # a shape none of these builds would be checked against nothing
        every_key_seen(shaped(seen, shape), shape)


@pytest.mark.long
def test_summary_json_keeps_the_reference_order(toured: Path) -> None:
    """score --json writes the reference's three keys first, in its order, then ours in
    ScoreSummary's order, whatever order summarize set them in."""
    written = json.loads(score.dumps(_summaries(toured)[0]))
    assert list(written) == [
        "weights",
        "conditions",
        "release_gate",
        "checks",
        "criteria",
        "spread",
        "regressions",
        "paired",
        "reliability",
        "decision",
    ]


@pytest.mark.long
def test_check_summary(toured: Path) -> None:
    """check --json: its keys are CheckSummary's, as `check` prints them."""
    ran = check.CheckRun(results=[check.CheckResult("c", 1, "baseline", "s", "x", "x_", "pass")])
    every_key_seen(shaped([check.summary_json(ran)], summaries.CheckSummary), summaries.CheckSummary)


def test_the_metric_keys_are_the_rubrics() -> None:
    """Every shape that holds the five metrics declares exactly rubric's, and an unscored sheet
    row holds them in rubric's order (the order blind writes)."""
    for shape in (rows.SheetRow, rows.ScoreRow, summaries.ConditionMeans):
        required, optional = declared(shape)
        assert set(METRICS) <= required | optional
    blank = rows.unscored({"case_id": "c", "trial": 1, "condition": "A"})
    assert list(blank)[3:] == [*METRICS, "blocker", "notes"]


PAGE_OF_ROWS = Path(__file__).resolve().parent.parent / "docs" / "row-files.md"


def page_tables() -> dict[str, dict[str, bool]]:
    """docs/row-files.md: per heading's shape (`## ... (`Shape`)`), each key and whether the
    page says it is required."""
    tables: dict[str, dict[str, bool]] = {}
    shape = ""
    for line in PAGE_OF_ROWS.read_text(encoding="utf-8").splitlines():
        if line.startswith("## ") and line.endswith("`)"):
            shape = line.rsplit("(`", 1)[1].removesuffix("`)")
            tables[shape] = {}
        elif shape and line.startswith("| `"):
            key, required = (cell.strip() for cell in line.split("|")[1:3])
            tables[shape][key.strip("`")] = required == "yes"
    return tables


def test_the_page_of_row_files_lists_every_key_as_declared() -> None:
    """Each shape the page documents has exactly its declared keys, required where declared so."""
    tables = page_tables()
    assert set(tables) == {
        "ResponseRow",
        "ResultRow",
        "KeyRow",
        "SheetRow",
        "ScoreRow",
        "VerdictRow",
        "Certificate",
        "QuarantineRow",
    }
    for name, keys in tables.items():
        required, optional = declared(getattr(rows, name))
        assert {k for k, r in keys.items() if r} == required, name
        assert {k for k, r in keys.items() if not r} == optional, name


@pytest.mark.long
def test_certificate(toured: Path) -> None:
    """The certificate `agree --certify` wrote in the tour, as score and verdicts read it."""
    found = agree.read_certificate(toured.parent / "judge.cert.json")
    every_key_seen(shaped([found], rows.Certificate), rows.Certificate)
    every_key_seen(shaped([found["fingerprint"]], rows.JudgeFingerprint), rows.JudgeFingerprint)
    every_key_seen(shaped([found["sample"]], rows.SampleDigest), rows.SampleDigest)
    figures = [rate for rates in found["figures"].values() for rate in rates.values()]
    assert len(figures) == 4
    every_key_seen(shaped(figures, summaries.RateJson), summaries.RateJson)
