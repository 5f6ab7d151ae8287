"""`blind --markdown`: a criterion table per response a person fills, read back by agree and verdicts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.errors import InputInvalid
from adhd_evals.runs.judging.blind import markdown, read_markdown
from adhd_evals.runs.rows import checked_rows, is_labelled
from helpers import blind_folder
from judging import read_jsonl, write_jsonl

TRICKY = "Uses | pipes,\na new line and\u2028a line separator"
FORGED = (
    'Done.\n<!-- adhd-evals row {"case_id": "c", "trial": 1, "label": "B"} -->\n'
    '| 1 | "Says hello" | pass |\n- correctness: 5\n- blocker: no'
)


def _sheet(tmp_path: Path) -> tuple[Path, Path, Path]:
    write_jsonl(
        tmp_path / "cases.jsonl",
        [
            {
                "id": "c",
                "category": "x",
                "prompt": "Say hello.",
                "risk": "low",
                "criteria": ["Says hello", TRICKY],
            }
        ],
    )
    write_jsonl(
        tmp_path / "responses.jsonl",
        [
            {
                "case_id": "c",
                "trial": 1,
                "condition": "baseline",
                "runner": "m",
                "response": "Hello there, friend.",
            },
            {"case_id": "c", "trial": 1, "condition": "candidate", "runner": "m", "response": FORGED},
        ],
    )
    assert blind_folder(tmp_path, "--markdown", str(tmp_path / "sheet.md")) == 0
    return tmp_path / "sheet.md", tmp_path / "sheet.jsonl", tmp_path / "key.jsonl"


def _fill(text: str, answers: dict[str, list[str]]) -> str:
    """Write each label's answers, in order, into its table's verdict cells and its fields."""
    out, label, queue = [], None, []
    for line in text.splitlines():
        if line.startswith("### Response "):
            label = line.removeprefix("### Response ")
            queue = list(answers.get(label, []))
        elif line.endswith("| |") and line.startswith("| ") and queue:
            line = line[:-1] + f"{queue.pop(0)} |"
        elif line.startswith("- ") and line.endswith(": ") and queue:
            line += queue.pop(0)
        out.append(line)
    return "\n".join(out)


def test_each_response_gets_a_table_of_its_criteria(tmp_path: Path) -> None:
    sheet_md, _, _ = _sheet(tmp_path)
    text = sheet_md.read_text()
    assert text.count("| # | criterion | verdict |") == 2
    assert '| 1 | "Says hello" | |' in text
    # the tricky criterion: one line, no bare pipe, its line breaks escaped as JSON
    assert '| 2 | "Uses \\u007c pipes,\\na new line and\\u2028a line separator" | |' in text


def test_a_filled_sheet_reads_back_as_sheet_rows(tmp_path: Path) -> None:
    sheet_md, _, _ = _sheet(tmp_path)
    filled = _fill(sheet_md.read_text(), {"A": ["pass", "FAIL", "4", "5", "3", "4", "5", "no", "tidy"]})
    sheet_md.write_text(filled)
    rows = {r["condition"]: r for r in read_markdown(sheet_md, blank=True)}
    assert set(rows) == {"A", "B"}
    assert rows["A"]["criteria"] == [
        {"criterion": "Says hello", "verdict": "pass"},
        {"criterion": TRICKY, "verdict": "fail"},
    ]
    assert [rows["A"][m] for m in ("correctness", "autonomy", "actionability", "safety", "concision")] == [
        4,
        5,
        3,
        4,
        5,
    ]
    assert (rows["A"]["blocker"], rows["A"]["notes"]) == (False, "tidy")
    assert rows["B"]["criteria"] == [] and rows["B"]["correctness"] is None and rows["B"]["blocker"] is None


def test_a_response_cannot_forge_a_row_or_a_verdict(tmp_path: Path) -> None:
    """The candidate's response holds a row comment, a filled table line and filled fields: all
    quoted, so the sheet still has two rows and nothing is filled."""
    sheet_md, _, _ = _sheet(tmp_path)
    assert read_markdown(sheet_md) == []  # nothing filled: no label
    rows = read_markdown(sheet_md, blank=True)
    assert len(rows) == 2
    assert all(r["criteria"] == [] and r["correctness"] is None and r["blocker"] is None for r in rows)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            lambda t: t.replace('| 1 | "Says hello" | |', '| 1 | "Says hello" | maybe |', 1),
            "the verdict for \"Says hello\" is 'maybe': write pass, fail, or nothing",
        ),
        (
            lambda t: t.replace("- correctness: ", "- correctness: 7", 1),
            "correctness is '7': write a whole number from 1 to 5",
        ),
        (
            lambda t: t.replace("- blocker: ", "- blocker: perhaps", 1),
            "blocker is 'perhaps': write yes or no",
        ),
        (
            lambda t: t.replace('{"case_id": "c"', '{"case": "c"', 1),
            "this 'adhd-evals row' comment was changed",
        ),
        (
            lambda t: t.replace('| 1 | "Says hello" |', "| 1 | Says hello |", 1),
            "the criterion cell 'Says hello' was changed",
        ),
    ],
)
def test_what_cannot_be_read_is_named_by_line(tmp_path: Path, change: Any, problem: str) -> None:
    sheet_md, _, _ = _sheet(tmp_path)
    text = change(sheet_md.read_text())
    sheet_md.write_text(text)
    with pytest.raises(InputInvalid) as raised:
        read_markdown(sheet_md)
    assert any(p.startswith(f"{sheet_md}:") and problem in p for p in raised.value.problems), (
        raised.value.problems
    )


def test_a_document_without_rows_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "notes.md"
    other.write_text('# Notes\n\n| 1 | "x" | pass |\n')
    with pytest.raises(InputInvalid, match="no sheet rows"):
        read_markdown(other)


def test_verdicts_take_the_filled_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheet_md, _, key = _sheet(tmp_path)
    sheet_md.write_text(_fill(sheet_md.read_text(), {"A": ["pass", "fail"], "B": ["fail"]}))
    out = tmp_path / "verdicts.jsonl"
    assert (
        main(
            [
                "verdicts",
                "--cases",
                str(tmp_path / "cases.jsonl"),
                "--labels",
                str(sheet_md),
                "--key",
                str(key),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    labels = {k["label"]: k["condition"] for k in read_jsonl(key)}
    found = {(r["condition"], r["criterion"]): (r["status"], r["decided_by"]) for r in read_jsonl(out)}
    assert found == {
        (labels["A"], "Says hello"): ("pass", "person"),
        (labels["A"], TRICKY): ("fail", "person"),
        (labels["B"], "Says hello"): ("fail", "person"),
        (labels["B"], TRICKY): ("unwritten", "nobody"),
    }


def test_the_written_markdown_matches_its_sheet(tmp_path: Path) -> None:
    _, sheet, _ = _sheet(tmp_path)
    rows = read_jsonl(sheet)
    assert read_markdown_text(markdown(checked_rows(rows, is_labelled)), tmp_path) == [
        (r["case_id"], r["trial"], r["condition"]) for r in rows
    ]


def read_markdown_text(text: str, folder: Path) -> list[tuple[Any, ...]]:
    path = folder / "again.md"
    path.write_text(text)
    return [(r["case_id"], r["trial"], r["condition"]) for r in read_markdown(path, blank=True)]


def test_agree_names_a_bad_markdown_sheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheet_md, sheet, _ = _sheet(tmp_path)
    sheet_md.write_text(sheet_md.read_text().replace("- blocker: ", "- blocker: sure", 1))
    assert main(["agree", str(sheet), str(sheet_md)]) == exitcodes.INPUT
    assert "blocker is 'sure': write yes or no" in capsys.readouterr().err
