"""`adhd-evals blind`: a judging sheet whose conditions are hidden behind labels.

For each (case, trial) the conditions present are shuffled, with a seeded
random order, and labelled A, B, C; the key file records which label is
which. Judges score the sheet (its `condition` field holds the label);
`adhd-evals score --key KEY` maps the labels back.

The Markdown sheet is for people: each response has a table of its case's
criteria with a verdict column to fill (pass or fail), and the fields to
score. `read_markdown` reads it back, filled, into the same rows a JSONL
sheet holds (`agree` and `verdicts` take either). Each response carries an
HTML comment naming its row exactly (invisible once rendered); everything
taken from a case or a response is quoted or written as a JSON string, so
no text can forge a row, a table line or a field.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ... import jsonl
from ...errors import InputInvalid
from ..rows import LABELLED_FIELDS, CriterionVerdict, KeyRow, ResponseRow, SheetRow, field_problems, unscored
from ..rubric import METRICS, Metric

if TYPE_CHECKING:
    from ...catalog import CaseRow
    from .shapes import LabelSampleRow


def blind(
    responses: Sequence[ResponseRow], seed: int, cases: dict[str, CaseRow] | None = None
) -> tuple[list[SheetRow], list[KeyRow]]:
    """The sheet (with each case's prompt and criteria when the catalog is given) and its key."""
    groups: dict[tuple[str, int], list[ResponseRow]] = defaultdict(list)
    for row in responses:
        groups[(row["case_id"], row["trial"])].append(row)
    chooser = random.Random(seed)
    sheet: list[SheetRow] = []
    key: list[KeyRow] = []
    for (case_id, trial), rows in sorted(groups.items(), key=lambda item: (str(item[0][0]), item[0][1])):
        rows = sorted(rows, key=lambda r: r["condition"])  # a fixed start, so the seed decides alone
        chooser.shuffle(rows)
        for label, row in zip("ABCDEFGH", rows, strict=False):
            shown: SheetRow = {"case_id": case_id, "trial": trial, "condition": label}
            if cases and case_id in cases:
                shown["prompt"], shown["criteria"] = (
                    cases[case_id]["prompt"],
                    list(cases[case_id]["criteria"]),
                )
            shown["response"] = row["response"]
            sheet.append(unscored(shown))
            key.append({"case_id": case_id, "trial": trial, "label": label, "condition": row["condition"]})
    return sheet, key


def label_sample(sheet: Sequence[SheetRow], size: int, seed: int) -> tuple[list[SheetRow], LabelSampleRow]:
    """A person's sheet: every row (each condition and trial) of `size` cases drawn uniformly at
    random, labelled as on the judging sheet; and the key row that records the draw, so any reader
    can draw it again and see the labelled cases were not chosen by hand."""
    from ..inference.ppi import SAMPLE_METHOD, draw

    chosen = draw((row["case_id"] for row in sheet), size, seed)
    picked = set(chosen)
    record: LabelSampleRow = {"label_sample": {"seed": seed, "method": SAMPLE_METHOD, "case_ids": chosen}}
    return [row for row in sheet if row["case_id"] in picked], record


ROW_MARK = "<!-- adhd-evals row "
FIELDS = (*METRICS, "blocker", "notes")
_METRIC: dict[str, Metric] = {metric: metric for metric in METRICS}  # a field's name, as the metric it is


def markdown(sheet: Sequence[SheetRow]) -> str:
    """The sheet as a document a person can judge from: each case's prompt and criteria, then
    each labelled response with its criterion table and the fields to fill."""
    out = [
        "# Judging sheet",
        "",
        "For each response, write pass or fail in the verdict column of each criterion you judge "
        "(leave a row empty to leave that criterion to someone else), score it from 1 to 5 on "
        + ", ".join(METRICS)
        + ", and mark a blocker (yes or no) when it alone should stop a release. "
        "Then `adhd-evals agree JUDGED THIS.md` or `adhd-evals verdicts --labels THIS.md`. "
        "Keep the `adhd-evals row` comments: they say which row is which.",
        "",
    ]
    last = None
    for row in sheet:
        if (row["case_id"], row["trial"]) != last:
            last = (row["case_id"], row["trial"])
            out += [f"## {_one_line(str(row['case_id']))}, trial {row['trial']}", ""]
            if "prompt" in row:
                out += ["**Prompt**", "", _quoted(row["prompt"]), "", "**Criteria**", ""]
                out += [f"- {_one_line(criterion)}" for criterion in _texts(row["criteria"])] + [""]
        out += [f"### Response {row['condition']}", "", _mark(row), "", _quoted(row["response"]), ""]
        if isinstance(row.get("criteria"), list) and row["criteria"]:
            out += ["| # | criterion | verdict |", "| --- | --- | --- |"]
            out += [f"| {n} | {_cell(c)} | |" for n, c in enumerate(_texts(row["criteria"]), start=1)] + [""]
        out += [f"- {name}: " for name in FIELDS] + [""]
    return "\n".join(out)


def _texts(criteria: list[str | CriterionVerdict]) -> list[str]:
    return [c if isinstance(c, str) else str(c.get("criterion")) for c in criteria]


def _mark(row: SheetRow) -> str:
    """The row's identity as JSON in an HTML comment; `>` escaped so nothing ends it early."""
    ident = json.dumps({"case_id": row["case_id"], "trial": row["trial"], "label": row["condition"]})
    return ROW_MARK + ident.replace(">", "\\u003e") + " -->"


def _cell(text: str) -> str:
    """A criterion as a JSON string: one line (line breaks escaped, as in every JSONL line), and
    no `|` to split the table's cells."""
    return jsonl.line(text).replace("|", "\\u007c")


def _one_line(text: str) -> str:
    return " / ".join(text.splitlines()) or text


def _quoted(text: str) -> str:
    """A block quote: every line of the text behind '> ', so Markdown in it stays text's."""
    return "\n".join("> " + line for line in (text.splitlines() or [""]))


_TABLE_ROW = re.compile(r"\|\s*(\d+)\s*\|(.*)\|([^|]*)\|\s*")
_FIELD = re.compile(r"- (" + "|".join(FIELDS) + r"):(.*)")


def read_markdown(path: Path, *, blank: bool = False) -> list[SheetRow]:
    """A filled Markdown sheet as sheet rows (labelled conditions), every problem named by line; the
    rows a person left blank only with `blank` (they are no labels: counted, a sample labelled on half
    its rows would count double, and hash unlike the same labels in JSONL)."""
    from ...files import read_limited

    try:
        text = read_limited(path).decode("utf-8")
    except OSError as exc:
        raise InputInvalid([f"{path}: cannot be read ({exc.strerror or exc})"]) from exc
    except UnicodeDecodeError as exc:
        raise InputInvalid([f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})"]) from exc
    rows: list[SheetRow] = []
    problems: list[str] = []
    current: SheetRow | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        where = f"{path}:{number}"
        if line.startswith("#"):
            current = None  # a heading ends the row: what follows belongs to the next one
        elif line.startswith(ROW_MARK):
            current = _new_row(line, where, problems)
            if current is not None:
                rows.append(current)
        elif current is not None:
            problems += [f"{where}: {p}" for p in _read_line(line, current)]
    if problems:
        raise InputInvalid(problems)
    if not rows:
        raise InputInvalid(
            [
                f"{path}: no sheet rows (no 'adhd-evals row' comments): is it a sheet "
                "'adhd-evals blind --markdown' wrote?"
            ]
        )
    return rows if blank else [row for row in rows if _filled(row)]


def _filled(row: SheetRow) -> bool:
    """Whether a person wrote anything in the row: a score, the blocker, a verdict, or a note."""
    return bool(row["criteria"] or row["notes"]) or any(
        value is not None for value in (*(row[metric] for metric in METRICS), row["blocker"])
    )


def _new_row(line: str, where: str, problems: list[str]) -> SheetRow | None:
    try:
        ident = json.loads(line[len(ROW_MARK) :].removesuffix("-->").strip())
        found = {"case_id": ident["case_id"], "trial": ident["trial"], "condition": ident["label"]}
    except (ValueError, KeyError, TypeError):
        found = {}
    if field_problems(found, LABELLED_FIELDS):  # blind writes a case id, a trial and a label
        problems.append(f"{where}: this 'adhd-evals row' comment was changed; it must stay as blind wrote it")
        return None
    row = unscored({"case_id": found["case_id"], "trial": found["trial"], "condition": found["condition"]})
    row["criteria"] = []  # the verdicts the person writes in its table
    return row


def _read_line(line: str, row: SheetRow) -> list[str]:
    if (table := _TABLE_ROW.fullmatch(line.strip())) is not None:
        return _read_verdict(table.group(2).strip(), table.group(3).strip(), row)
    if (found := _FIELD.fullmatch(line.rstrip())) is not None:
        return _read_field(found.group(1), found.group(2).strip(), row)
    return []


def _read_verdict(cell: str, said: str, row: SheetRow) -> list[str]:
    try:
        criterion = json.loads(cell)
    except ValueError:
        criterion = None
    if not isinstance(criterion, str):
        return [f"the criterion cell {cell[:60]!r} was changed; it must stay as blind wrote it"]
    if said.lower() in ("pass", "fail"):
        row["criteria"].append(
            {"criterion": criterion, "verdict": "pass" if said.lower() == "pass" else "fail"}
        )
    elif said:
        return [f"the verdict for {cell[:60]} is {said!r}: write pass, fail, or nothing"]
    return []


def _read_field(name: str, value: str, row: SheetRow) -> list[str]:
    if not value:
        return []
    if name == "notes":
        row["notes"] = value
    elif name == "blocker":
        if value.lower() not in ("yes", "no", "true", "false"):
            return [f"blocker is {value!r}: write yes or no"]
        row["blocker"] = value.lower() in ("yes", "true")
    elif value in ("1", "2", "3", "4", "5"):
        row[_METRIC[name]] = int(value)
    else:
        return [f"{name} is {value!r}: write a whole number from 1 to 5"]
    return []
