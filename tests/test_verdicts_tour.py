"""docs/verdicts.md's tour, command by command as the page writes them: import a prose-heavy
suite, run the stub, check, blind, judge with a fake judge, certify it on 40 hand-labelled rows,
merge the verdicts, score with --criteria. Every criterion ends decided, and says by whom."""

from __future__ import annotations

import json
import shlex
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from adhd_evals.entry import main
from helpers import FIXTURES, ROOT
from judging import FAKE_JUDGE, read_jsonl

PAGE = ROOT / "docs" / "verdicts.md"
LABELS = FIXTURES / "verdicts" / "tour" / "labels.jsonl"


def tour() -> list[tuple[list[str], int]]:
    """Each `$ adhd-evals ...` line of the page's console block, with the exit code its comment
    states (`# exit 1: ...`), 0 when it states none."""
    steps = []
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("$ adhd-evals "):
            continue
        command, _, comment = line.removeprefix("$ adhd-evals ").partition("  # ")
        code = int(comment.split()[1].rstrip(":")) if comment.startswith("exit ") else 0
        steps.append((shlex.split(command), code))
    return steps


def runners() -> dict[str, Any]:
    """The page's judges.json, each fake's path made this checkout's (and run with this Python)."""
    page = PAGE.read_text(encoding="utf-8")
    shown: dict[str, Any] = json.loads(page.split("```json\n", 1)[1].split("\n```", 1)[0])
    fakes = Path(FAKE_JUDGE).parent
    for runner in shown.values():
        command = runner["command"]
        assert command[0] == "python3" and command[1].startswith("/path/to/adhd-evals/tests/fakes/")
        runner["command"] = [sys.executable, "-S", str(fakes / Path(command[1]).name), *command[2:]]
    return shown


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder that looks like the repository's root to the tour, with the page's judges.json."""
    (tmp_path / "fixtures").symlink_to(FIXTURES)
    (tmp_path / "judges.json").write_text(json.dumps(runners()))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.long
def test_the_tour_runs_and_every_criterion_is_decided(
    checkout: Path, capsys: pytest.CaptureFixture[str], regen_golden: bool
) -> None:
    steps = tour()
    assert [s[0][0] for s in steps] == [
        "import",
        "run",
        "run",
        "check",
        "blind",
        "judge",
        "agree",
        "verdicts",
        "score",
        "report",
        *("import", "run", "run", "blind", "judge", "judge", "score", "score", "score"),
    ]
    outs = []
    for argv, code in steps:
        if regen_golden and argv[0] == "agree":
            _write_labels()
        if regen_golden and "--labels" in argv and argv[0] == "score":
            _write_ppi_labels()
        assert main(argv) == code, argv
        outs.append(capsys.readouterr().out)
    _the_ppi_part_decides_on_labels(outs[-3:])
    out = "".join(outs[:-9])
    verdicts = read_jsonl(checkout / "runs" / "verdicts.jsonl")
    # 20 cases: 40 prose criteria and 9 typed ones, x 2 trials x 2 conditions
    assert len(verdicts) == 196
    assert Counter(v["decided_by"] for v in verdicts) == {"check": 36, "person": 80, "judge": 80}
    assert {v["status"] for v in verdicts} == {"pass", "fail"}
    assert all(v["trial"] == 2 for v in verdicts if v["decided_by"] == "judge")
    cert = json.loads((checkout / "judge.cert.json").read_text())
    assert cert["sample"]["rows"] == 40 and cert["fingerprint"]["runner"] == "judge"
    assert "Criteria (passed / decided, by who decided):" in out and "undecided (" not in out
    assert "Release gate: FAILED" in out and "Candidate weighted score did not beat baseline." in out
    assert _html_row("baseline") in (checkout / "runs" / "report.html").read_text()


def _html_row(condition: str) -> str:
    """Baseline's row of the report's criteria table. 98 criteria (40 prose and 9 typed, twice);
    the 18 typed verdicts pass 10 (what the stub's reply holds); the person passed 25 of its 40,
    the judge 25 of its 40 (the same truth rule): 60 passed.
    Judge 25/40: Wilson [0.4703, 0.7578]; TPR 53/53: low 53/56.84 = 0.9324; TNR 27/27: low
    27/30.84 = 0.8755. Corrected, low: (0.4703 + 0.8755 - 1) / (1 + 0.8755 - 1) = 0.395; high:
    (0.7578 + 1 - 1) / (0.9324 + 1 - 1) = 0.813; the point, with TPR = TNR = 1, is 0.625."""
    cells = [condition, "98", "60", "10/18", "25/40", "25/40", "0", "0.625 → 0.625 [0.395, 0.813]"]
    return "<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"


def _write_labels() -> None:
    """--regen-golden: the person's labels, as the fake judge's truth rule has them, for every
    prose criterion of trial 1's rows (a stand-in for an afternoon of labelling)."""
    sys.path.insert(0, str(Path(FAKE_JUDGE).parent))
    from fake_judge import truth

    rows = []
    for row in read_jsonl(Path("runs/sheet.jsonl")):
        if row["trial"] == 1:
            prose = [c for c in row["criteria"] if c.startswith(("Acknowledges", "Gives the next step"))]
            rows.append(
                {
                    "case_id": row["case_id"],
                    "trial": 1,
                    "condition": row["condition"],
                    "blocker": None,
                    "notes": "",
                    "criteria": [{"criterion": c, "verdict": truth(row["response"], c)} for c in prose],
                }
            )
    LABELS.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


PPI_LABELS = FIXTURES / "verdicts" / "ppi" / "labels.jsonl"


def _the_ppi_part_decides_on_labels(outs: list[str]) -> None:
    """The flattering judge alone: +0.98 with an interval above 0, unverified. With the 20 labelled
    cases: the honest judge's prediction-powered Δ and the flattering judge's are the same figure (the
    judge's +1 on every candidate score is a shift of f on the labelled cases and the others alike,
    which the correction mean(f̃) - mean(f) cancels, and λ does not see), and neither says better."""
    alone, honest, flattering = outs
    assert "Judge scores unverified: label 8 random cases (`adhd-evals blind --label-sample 8`)" in alone
    assert "the judge alone says weighted Δ +0.98, 95% CI +0.72..+1.25, 40 cases" in alone
    row = next(line for line in honest.splitlines() if line.startswith("Δ weighted_score"))
    assert (
        row.split()[5:8]
        == next(line for line in flattering.splitlines() if line.startswith("Δ weighted_score")).split()[5:8]
    )
    assert "+0.98 [+0.72, +1.25]" in flattering
    for said in (honest, flattering):
        assert "Release decision (--gate paired): INCONCLUSIVE" in said
        assert "20 labelled cases of 40, a random sample drawn with seed 7" in said


def _write_ppi_labels() -> None:
    """--regen-golden: the person's scores for the label sheet's rows, as the fake judge's careful
    reading (true_marks) has them: the stand-in for a person filling ppi/labels.jsonl."""
    sys.path.insert(0, str(Path(FAKE_JUDGE).parent))
    from fake_judge import true_marks

    rows = [
        {
            "case_id": row["case_id"],
            "trial": row["trial"],
            "condition": row["condition"],
            **true_marks(row["response"]),
            "blocker": False,
            "notes": "",
        }
        for row in read_jsonl(Path("ppi/labels.jsonl"))
    ]
    PPI_LABELS.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
