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


def blind(responses: list[dict[str, Any]], seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
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
                    "response": row["response"],
                    **dict.fromkeys(METRICS),
                    "blocker": None,
                    "notes": "",
                }
            )
            key.append({"case_id": case_id, "trial": trial, "label": label, "condition": row["condition"]})
    return sheet, key
