"""Start-up budgets of the runs commands as module sets (issue 38): each command's trivial call, in
a fresh process, leaves out the modules only another mode of it needs. The calls are the start-up
benchmark's (tests/bench/run.py bench_startup): a three-case catalog with its check module, a
finished comparison's rows, and `run` and `judge` resumed with every row already there.

What each leaves out, and why it may (docs/startup.md, "The runs commands"):
- score's summary shapes (runs.summaries): imported where `score --json` orders a summary's keys;
  every other module takes their names for type checkers only, as it does judging's own shapes
  (runs.judging.shapes), which nothing reads at run time.
- dataclasses (and inspect, ast, dis, tokenize with it): check, blind, agree, verdicts, score and
  report build NamedTuples and plain classes (score's ScoreRequest, report's Inputs and case
  views among them); run and judge keep theirs (their requests, the shard's).
- tempfile (and shutil, bz2, lzma, random): the atomic writer names its temporary files itself;
  and hashlib, which it needs only for a pair's manifest (blind writes no pair).
- blind reads its responses through rows, not the check runner's module (judging/check.py); report
  admits a judge's scores through score's own `admitted`, which imports the judge's admission only
  for rows a judge filled. The report escapes as html.escape does without importing html, and a
  certificate's date (datetime) is agree --certify's alone.
- a judge's admission (runs.judging.admission, with agree): judge claims its output and records
  its controls through judge_record.py, and reads answers through hidden.py; the admission's
  words for the controls are printed where --controls made some; the rates a certificate's
  figures are checked with (runs.inference.rates) load where a certificate is read.
- a shard's record reader (runs.calling.sidecar): opening an output asks whether a record sits
  beside it (shard.sidecar_path) and reads one only where it does.
- a call's process machinery (subprocess, ctypes) and a real call's budget flag (decimal): a
  resumed run or judge starts no process; a judge's fence token (secrets) is drawn per prompt.
- the catalog's rules (catalogrules): report and verdicts read their catalog as run and judge
  do, the rules run once per catalog content (its record, written by the fixture's run), and
  report names the record with CPython's builtin SHA-256, not hashlib's OpenSSL; and the
  response cache's module (runs.calling.cache), where no --cache is given (the records' folder
  is runs.calling.home's).
- the calls' driver itself (calls, process, workers, with tempfile, shutil, random, signal and
  select): a run or judge with no row left to write opens its ledger and budget and sweeps stale
  scratch folders without it (calling/idle.py); random is drawn where a sample is (a judge's
  controls and swap check), so verdicts, which reads a judged file's controls, leaves it out too.
- score's optional parts (a judge's admission, trigger cases, criteria, plugin eval's results),
  and report's criteria: imported when the request has them; the HTML page's renderer where an
  HTML report is drawn.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from helpers import modules_after, unmeasured_environment

METRICS = ("correctness", "autonomy", "actionability", "safety", "concision")
CONDITIONS = ("baseline", "candidate")
SUMMARIES = "adhd_evals.runs.summaries"
SHAPES = "adhd_evals.runs.judging.shapes"
DATACLASSES = {"dataclasses", "inspect"}
# the atomic writer names its temporaries itself, and hashes only a pair's files (for the manifest)
TEMPFILE = {"tempfile", "shutil", "hashlib"}
ADMISSION = "adhd_evals.runs.judging.admission"
PPI = "adhd_evals.runs.inference.ppi"  # a person's label sample (--labels) alone
PROCESSES = {"subprocess", "ctypes", "decimal"}  # a call's process and its budget flag
SIDECAR = "adhd_evals.runs.calling.sidecar"  # a shard's record: read where one is beside the output
RULES = (
    "adhd_evals.catalogrules"  # the catalog's rules: run once per catalog content (catalog.load_valid_once)
)
CACHE = (
    "adhd_evals.runs.calling.cache"  # the response cache: a run with --cache alone (records: calling/home.py)
)
# the calls' driver, process groups, watchdog, threads and signals, and what they import: a run or
# judge with no row left to write starts no call (calling/idle.py)
CALLING = {
    "adhd_evals.runs.calling.calls",
    "adhd_evals.runs.calling.process",
    "adhd_evals.runs.calling.workers",
    "tempfile",
    "shutil",
    "random",
    "signal",
    "select",
}


def imported(folder: Path, *argv: str, code: int = exitcodes.OK) -> set[str]:
    """The modules a fresh `adhd-evals ARGV...` (in `folder`, its caches there too) has imported
    when it ends with `code`: a real process, so nothing this one imported can hide or add one."""
    extra = {"XDG_CACHE_HOME": str(folder / "cache")}
    return modules_after(folder, *argv, code=code, cwd=folder, extra=extra)[1]


def _rows(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A three-case catalog and its check module (made by import), a response per case and
    condition, their scores (every metric 3 for the baseline, 4 for the candidate), their check
    results, a blind sheet and its key, and a run and a judge that already did their work."""
    folder = tmp_path_factory.mktemp("runs-startup")
    source = folder / "evals.json"
    evals = [{"id": n, "prompt": f"Question {n}?", "assertions": ["Answers it."]} for n in (1, 2, 3)]
    source.write_text(json.dumps({"skill_name": "s", "evals": evals}), encoding="utf-8")
    assert main(["import", "--format", "evals-json", str(source), "--out", str(folder / "evals")]) == 0
    cases = [json.loads(line) for line in (folder / "evals" / "cases.jsonl").read_text().splitlines()]
    keys = [{"case_id": c["id"], "trial": 1, "condition": k} for c in cases for k in CONDITIONS]
    _rows(folder / "responses.jsonl", [{**k, "runner": "r", "response": "An answer."} for k in keys])
    marks = {"baseline": dict.fromkeys(METRICS, 3), "candidate": dict.fromkeys(METRICS, 4)}
    scores = [{**k, **marks[str(k["condition"])], "blocker": False, "notes": ""} for k in keys]
    _rows(folder / "scores.jsonl", scores)
    _rows(folder / "person.jsonl", scores[::-1])  # agree refuses one file on both sides
    criterion = {"criterion": "Answers it.", "check": "answers_it", "status": "pass"}
    _rows(folder / "checks.jsonl", [{**k, "runner": "r", **criterion} for k in keys])
    for first in ("blind", "run", "judge"):  # blind writes the sheet judge reads; run and judge then resume
        imported(folder, *call(first, folder))
    return folder


# Each command's trivial call, {w} the folder `work` made (split into words before it is filled in).
CALLS = {
    "check": "check {w}/responses.jsonl --cases {w}/evals/cases.jsonl --suite {w}/evals/checks.py",
    "blind": "blind {w}/responses.jsonl --sheet {w}/sheet.jsonl --key {w}/key.jsonl --cases {w}/evals/cases.jsonl",
    "agree": "agree {w}/person.jsonl {w}/scores.jsonl",
    "verdicts": "verdicts --cases {w}/evals/cases.jsonl --checks {w}/checks.jsonl --out {w}/verdicts.jsonl",
    "score": "score {w}/scores.jsonl",
    "report": "report --cases {w}/evals/cases.jsonl --responses {w}/responses.jsonl --scores {w}/scores.jsonl "
    "--out {w}/report.md --format markdown",
    "run": "run --runner stub --condition baseline --cases {w}/evals/cases.jsonl --output {w}/run.jsonl --trials 1",
    "judge": "judge {w}/sheet.jsonl --runner stub --cases {w}/evals/cases.jsonl --output {w}/judged.jsonl",
}


def call(name: str, folder: Path) -> list[str]:
    return [word.format(w=folder) for word in CALLS[name].split()]


# What each trivial call must not import (the module docstring says why each may leave it out).
ABSENT = {
    "check": {*DATACLASSES, SUMMARIES, "traceback"},
    "blind": {*DATACLASSES, *TEMPFILE, SUMMARIES, SHAPES, "adhd_evals.runs.judging.check"},
    "agree": {*DATACLASSES, SUMMARIES, SHAPES},
    "verdicts": {*DATACLASSES, "tempfile", "shutil", "random", RULES, SUMMARIES, SHAPES},
    "score": {
        *DATACLASSES,
        "datetime",
        PPI,
        SUMMARIES,
        ADMISSION,
        "adhd_evals.runs.judging.agree",
        "adhd_evals.runs.judging.plugin_results",
        "adhd_evals.runs.deciding.criteria",
        "adhd_evals.runs.deciding.triggers",
    },
    "report": {
        *DATACLASSES,
        RULES,
        "hashlib",  # the catalog's digest: the builtin SHA-256 (catalog.sha256_hex)
        "datetime",
        "html",
        PPI,
        "tempfile",
        "shutil",
        SUMMARIES,
        ADMISSION,
        "adhd_evals.runs.deciding.criteria",
        "adhd_evals.runs.deciding.triggers",
        "adhd_evals.runs.judging.plugin_results",
        "adhd_evals.runs.reporting.render_html",
    },
    "run": {*DATACLASSES, *PROCESSES, *CALLING, CACHE, SUMMARIES, SIDECAR, "adhd_evals.runs.rows"},
    "judge": {
        *DATACLASSES,
        *PROCESSES,
        *CALLING,
        CACHE,
        SUMMARIES,
        SHAPES,
        SIDECAR,
        ADMISSION,
        "adhd_evals.runs.judging.agree",
        "adhd_evals.runs.inference.rates",
        "secrets",
        "adhd_evals.runs.running.execute",
    },
}
# The codes the trivial calls end with: check's one criterion is prose, so its check is an
# unwritten placeholder (FAILED); the candidate's 4s beat the baseline's 3s on every metric with
# no blocker, so score's reference gate passes (OK); every other call does what it was asked.
CODES = {"check": exitcodes.FAILED}


@pytest.mark.long
@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_trivial_call_leaves_out_what_only_other_modes_need(work: Path, name: str) -> None:
    modules = imported(work, *call(name, work), code=CODES.get(name, exitcodes.OK))
    assert modules & ABSENT[name] == set()
    assert {m.partition(".")[0] for m in modules} & {"typer", "click", "pydantic", "rich"} == set()


@pytest.mark.long
def test_the_probe_sees_a_summary_built(work: Path) -> None:
    """The guard can fail: `score --json` writes the summary's keys in ScoreSummary's order, so it
    imports runs.summaries (and a check with a broken module, traceback: its line is named)."""
    assert SUMMARIES in imported(work, *call("score", work), "--json")
    broken = work / "broken.py"
    broken.write_text("raise ValueError('x')\n", encoding="utf-8")
    argv = [*call("check", work)[:-1], str(broken)]  # the same check, this module its --suite
    assert "traceback" in imported(work, *argv, code=exitcodes.SUITE)


# A fresh `adhd-evals ARGV...` that writes, per module, the string annotations typing compiled into
# a ForwardRef: the module is the first caller outside typing (the class body being made).
FORWARD_PROBE = (
    "import json, sys, typing\n"
    "made = {}\n"
    "make = typing.ForwardRef.__init__\n"
    "def counted(self, arg, *args, **kwargs):\n"
    "    frame = sys._getframe(1)\n"
    "    while frame.f_code.co_filename == typing.__file__:\n"
    "        frame = frame.f_back\n"
    "    made.setdefault(frame.f_globals['__name__'], []).append(arg)\n"
    "    make(self, arg, *args, **kwargs)\n"
    "typing.ForwardRef.__init__ = counted\n"
    "from adhd_evals.entry import main\n"
    "main(sys.argv[2:])\n"
    "open(sys.argv[1], 'w', encoding='utf-8').write(json.dumps(made))\n"
)
# The modules of row shapes and call records that evaluate their annotations (no `from __future__
# import annotations`), and the one string each still compiles: a name only type checkers import.
EVALUATED = {
    "adhd_evals.runs.rows": [],
    "adhd_evals.runs.types": [],
    "adhd_evals.runs.calling.config": [],
    "adhd_evals.runs.calling.budget": [],
    "adhd_evals.runs.calling.cache": [],
    "adhd_evals.runs.calling.store": [],
    "adhd_evals.runs.calling.process": ["Ended"],
    "adhd_evals.runs.calling.calls": ["Trace | None"],
    "adhd_evals.runs.calling.sidecar": ["list[tuple[int, CaseRow]]"],
    "adhd_evals.runs.running.curtail_options": [],
    "adhd_evals.runs.inference.rates": [],
    "adhd_evals.runs.inference.paired": [],
    "adhd_evals.runs.deciding.decision": [],
    "adhd_evals.runs.deciding.scoring_request": [],
    "adhd_evals.runs.reporting.view": [],
    "adhd_evals.runs.judging.verdicts": [],
    "adhd_evals.runs.judging.check": [],
}


@pytest.mark.long
@pytest.mark.parametrize(
    "name", ["check", "blind", "agree", "verdicts", "score", "report", "run", "run (rows to write)", "judge"]
)
def test_the_row_shapes_and_call_records_compile_only_what_type_checkers_alone_import(
    work: Path, name: str
) -> None:
    """rows.py, types.py and run's and judge's call records evaluate their TypedDicts' and
    NamedTuples' fields as each class is made: of their ~180 fields, only those naming what is
    imported for type checkers alone are compiled (EVALUATED, one each at most); inside dict[...]
    rows' RateJson stays a plain string, which typing does not compile. The trivial calls compile
    none at all (a judge's controls summary, which a certificate's shape names, is types.py's;
    the statistics', decision's, report's, verdicts' and check's records name no such name); a
    run with rows to write does, through the calls' driver (calls.py, process.py)."""
    found = work / "forward.json"
    argv = call(name.partition(" ")[0], work)
    if name == "run (rows to write)":  # an output of its own, written from nothing
        argv[argv.index("--output") + 1] = str(work / "forward-run.jsonl")
    done = subprocess.run(
        [sys.executable, "-c", FORWARD_PROBE, str(found), *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=work,
        env={**unmeasured_environment(), "XDG_CACHE_HOME": str(work / "cache")},
    )
    assert done.returncode == 0, done.stderr
    made: dict[str, list[str]] = json.loads(found.read_text(encoding="utf-8"))
    compiled = {module: made[module] for module in EVALUATED if module in made}
    assert compiled == {module: EVALUATED[module] for module in compiled if EVALUATED[module]}
    if name == "run (rows to write)":  # the probe sees the quoted names where they are made
        assert compiled.keys() == {"adhd_evals.runs.calling.calls", "adhd_evals.runs.calling.process"}
    else:
        assert made == {}
