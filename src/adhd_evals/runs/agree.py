"""`adhd-evals agree JUDGED HUMAN`: how far a judge agrees with a person, metric by metric.

On the rows both scored (same case, trial and label; void rows left out):
exact agreement, mean absolute difference and quadratic-weighted Cohen's
kappa per metric (ratings 1-5), blocker agreement, and criterion verdict
agreement where both gave verdicts. Score a sample by hand, measure, then
trust the judge only on the metrics where it agrees.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..catalog import read_object_rows
from ..errors import InputInvalid
from .rows import LABELLED_FIELDS, field_problems
from .rubric import METRICS

CATEGORIES = (1, 2, 3, 4, 5)


def weighted_kappa(first: Sequence[int], second: Sequence[int]) -> float | None:
    """Quadratic-weighted Cohen's kappa over ratings 1-5; None when it is undefined
    (no rows, or both raters constant so no disagreement is possible by chance)."""
    n = len(first)
    if n == 0:
        return None
    k = len(CATEGORIES)
    observed = [[0.0] * k for _ in range(k)]
    for a, b in zip(first, second, strict=True):
        observed[a - 1][b - 1] += 1
    rows = [sum(observed[i]) for i in range(k)]
    cols = [sum(observed[i][j] for i in range(k)) for j in range(k)]
    weight = [[(i - j) ** 2 / (k - 1) ** 2 for j in range(k)] for i in range(k)]
    seen = sum(weight[i][j] * observed[i][j] for i in range(k) for j in range(k)) / n
    chance = sum(weight[i][j] * rows[i] * cols[j] for i in range(k) for j in range(k)) / (n * n)
    if chance == 0:
        return None
    return 1 - seen / chance


def read_scored(path: Path) -> list[dict[str, Any]]:
    """A filled sheet; rows whose case, trial, label or criterion verdicts are not what a
    sheet holds are named."""
    return read_object_rows(
        path, lambda row: field_problems(row, LABELLED_FIELDS) + verdict_problems(row), what="sheet"
    )


VERDICTS = ("pass", "fail")


def verdict_problems(row: dict[str, Any]) -> list[str]:
    """A sheet's `criteria` holds the case's criteria as text (as `blind` writes them) or,
    once judged, criterion verdicts: each object must be {criterion, verdict: pass|fail}."""
    given = row.get("criteria", [])
    if not isinstance(given, list):
        return ["criteria must be a list (criteria as text, or criterion verdicts)"]
    return [
        f"criteria[{index}] must be a criterion verdict: an object with a criterion (text) and a "
        "verdict (pass or fail)"
        for index, item in enumerate(given)
        if not isinstance(item, str) and not _is_verdict(item)
    ]


def _is_verdict(item: Any) -> bool:
    return (
        isinstance(item, dict) and isinstance(item.get("criterion"), str) and item.get("verdict") in VERDICTS
    )


def _key(row: dict[str, Any]) -> tuple[Any, Any, Any]:
    return (row.get("case_id"), row.get("trial"), row.get("condition"))


def _scored(row: dict[str, Any]) -> bool:
    return "void" not in row and all(isinstance(row.get(m), int) and not isinstance(row.get(m), bool)
                                     and 1 <= row[m] <= 5 for m in METRICS)  # fmt: skip


def agreement(judged: list[dict[str, Any]], human: list[dict[str, Any]]) -> dict[str, Any]:
    people = {_key(r): r for r in human if _scored(r)}
    pairs = [(r, people[_key(r)]) for r in judged if _scored(r) and _key(r) in people]
    if not pairs:
        raise InputInvalid(
            ["no row was scored by both the judge and the person (same case, trial and label)"]
        )
    metrics = {}
    for metric in METRICS:
        a, b = [j[metric] for j, _ in pairs], [h[metric] for _, h in pairs]
        metrics[metric] = {
            "exact": sum(x == y for x, y in zip(a, b, strict=True)) / len(pairs),
            "mean_abs_diff": sum(abs(x - y) for x, y in zip(a, b, strict=True)) / len(pairs),
            "kappa": weighted_kappa(a, b),
        }
    blockers = [(j.get("blocker"), h.get("blocker")) for j, h in pairs]
    verdicts = [  # read_scored checked every object's shape; text items are criteria, not verdicts
        (v["verdict"], w["verdict"])
        for j, h in pairs
        for v in j.get("criteria", []) if isinstance(v, dict)
        for w in h.get("criteria", []) if isinstance(w, dict) and w["criterion"] == v["criterion"]
    ]  # fmt: skip
    return {
        "rows": len(pairs),
        "metrics": metrics,
        "blocker_agreement": sum(x == y for x, y in blockers) / len(blockers),
        "criteria": {
            "pairs": len(verdicts),
            "agreement": (sum(x == y for x, y in verdicts) / len(verdicts)) if verdicts else None,
        },
    }


def table(found: dict[str, Any]) -> list[str]:
    from ..text import table as text_table

    rows = [["metric", "exact", "mean |diff|", "kappa"]]
    for metric, m in found["metrics"].items():
        kappa = "-" if m["kappa"] is None else f"{m['kappa']:.3f}"
        rows.append([metric, f"{m['exact']:.0%}", f"{m['mean_abs_diff']:.2f}", kappa])
    lines = [f"Agreement on {found['rows']} rows scored by both:", *text_table(rows)]
    lines.append(f"blocker agreement: {found['blocker_agreement']:.0%}")
    criteria = found["criteria"]
    if criteria["agreement"] is not None:
        lines.append(f"criterion verdicts: {criteria['agreement']:.0%} of {criteria['pairs']}")
    return lines
