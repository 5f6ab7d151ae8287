"""`adhd-evals blind`: a judging sheet whose conditions are hidden behind labels.

For each (case, trial) the conditions present are shuffled, with a seeded
random order, and labelled A, B, C; the key file records which label is
which. Judges score the sheet (its `condition` field holds the label);
`adhd-evals score --key KEY` maps the labels back.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

from .rubric import METRICS


def blind(responses: list[dict[str, Any]], seed: int, cases: dict[str, dict[str, Any]] | None = None
          ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:  # fmt: skip
    """The sheet (with each case's prompt and criteria when the catalog is given) and its key."""
    groups: dict[tuple[Any, Any], list[dict[str, Any]]] = defaultdict(list)
    for row in responses:
        groups[(row["case_id"], row["trial"])].append(row)
    chooser = random.Random(seed)
    sheet, key = [], []
    for (case_id, trial), rows in sorted(groups.items(), key=lambda item: (str(item[0][0]), item[0][1])):
        rows = sorted(rows, key=lambda r: r["condition"])  # a fixed start, so the seed decides alone
        chooser.shuffle(rows)
        for label, row in zip("ABCDEFGH", rows, strict=False):
            sheet.append(
                {
                    "case_id": case_id,
                    "trial": trial,
                    "condition": label,
                    **(
                        {"prompt": cases[case_id]["prompt"], "criteria": cases[case_id]["criteria"]}
                        if cases and case_id in cases
                        else {}
                    ),
                    "response": row["response"],
                    **dict.fromkeys(METRICS),
                    "blocker": None,
                    "notes": "",
                }
            )
            key.append({"case_id": case_id, "trial": trial, "label": label, "condition": row["condition"]})
    return sheet, key


def markdown(sheet: list[dict[str, Any]]) -> str:
    """The sheet as a document a person can judge from: each case's prompt and criteria, then
    each labelled response, with the fields to fill."""
    out = ["# Judging sheet", "",
           "Score each response from 1 to 5 on " + ", ".join(METRICS) + "; mark a blocker when it alone "
           "should stop a release. Fill the same fields in the JSONL sheet (it is the scores file), then "
           "`adhd-evals score SHEET --key KEY`.", ""]  # fmt: skip
    last = None
    for row in sheet:
        if (row["case_id"], row["trial"]) != last:
            last = (row["case_id"], row["trial"])
            out += [f"## {row['case_id']}, trial {row['trial']}", ""]
            if "prompt" in row:
                out += ["**Prompt**", "", _quoted(row["prompt"]), "", "**Criteria**", ""]
                out += [f"- {criterion}" for criterion in row["criteria"]] + [""]
        out += [f"### Response {row['condition']}", "", _quoted(row["response"]), ""]
        out += [f"- {metric}: " for metric in METRICS] + ["- blocker: ", "- notes: ", ""]
    return "\n".join(out)


def _quoted(text: str) -> str:
    """A block quote: every line of the text behind '> ', so Markdown in it stays text's."""
    return "\n".join("> " + line for line in (text.splitlines() or [""]))
