"""The rows `score` counts: read as written, mapped back through the key, checked against the
weights, void rows set aside with their pairs, and grouped by condition on baseline's (case,
trial) rows. Apart from score.py, which sums them: which rows count is decided here, once.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from ...catalog import read_object_rows
from ...errors import InputInvalid, UsageError
from ...text import plural
from ..rows import (
    LABELLED_FIELDS,
    KeyRow,
    ScoreRow,
    SheetRow,
    field_problems,
    is_labelled,
    read_key_and_sample,
)
from ..rubric import CONDITIONS, Metric

if TYPE_CHECKING:
    from ..inference import ppi
    from ..rows import VoidRow

Weights = dict[Metric, float]  # every metric, as parse_weights returns them


def read_rows(path: Path) -> list[dict[str, object]]:
    """Score rows as written: summarize checks them (which keys a row needs depends on the weights,
    and a void row needs no scores)."""
    return read_object_rows(path)


def score_problems(row: Mapping[str, object], index: int, weights: Weights) -> list[str]:
    required = ["case_id", "trial", "condition", *weights, "blocker", "notes"]
    missing = [name for name in required if name not in row]
    if missing:
        return [f"Score row {index}: missing fields: {', '.join(missing)}"]
    problems = [f"Score row {index}: {p}" for p in field_problems(row, LABELLED_FIELDS)]
    if problems:  # a list where an id belongs cannot be paired or grouped
        return problems
    if row["condition"] not in CONDITIONS:
        problems.append(f"Score row {index}: unsupported condition {row['condition']!r}")
    for metric in weights:
        value = row[metric]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1 <= value <= 5:
            problems.append(f"Score row {index}: {metric} must be between 1 and 5")
    if not isinstance(row["blocker"], bool):
        problems.append(f"Score row {index}: blocker must be boolean")
    return problems


def _scored(
    row: Mapping[str, object], index: int, weights: Weights, problems: list[str]
) -> TypeGuard[ScoreRow]:
    """Whether `row` is a score row; what is wrong with it, when not, added to `problems`."""
    found = score_problems(row, index, weights)
    problems += found
    return not found


def _describe(keys: list[Pair]) -> str:
    return ", ".join(f"{case_id}/trial {trial}" for case_id, trial in keys)


def pairing_problems(grouped: Mapping[str, list[ScoreRow]]) -> list[str]:
    """Conditions are comparable only when judged on exactly baseline's (case, trial) rows."""
    coverage = {c: Counter((r["case_id"], r["trial"]) for r in rows) for c, rows in grouped.items()}
    problems = []
    for condition, counts in sorted(coverage.items()):
        repeated = sorted((k for k, n in counts.items() if n > 1), key=str)
        if repeated:
            problems.append(f"{condition}: duplicate score rows for {_describe(repeated)}")
    baseline = set(coverage.get("baseline", {}))
    for condition, counts in sorted(coverage.items()):
        if condition == "baseline" or set(counts) == baseline:
            continue
        details = []
        missing = sorted(baseline - set(counts), key=str)
        if missing:
            details.append(f"missing {_describe(missing)}")
        unmatched = sorted(set(counts) - baseline, key=str)
        if unmatched:
            details.append(f"unmatched {_describe(unmatched)}")
        problems.append(f"{condition} was not judged on the same rows as baseline: " + "; ".join(details))
    return problems


_LABEL = re.compile(r"[A-H]")


Pair = tuple[str, int]  # (case_id, trial)


def grouped_rows(
    scores: Sequence[Mapping[str, object]], weights: Weights
) -> tuple[dict[str, list[ScoreRow]], list[VoidRow], set[Pair]]:
    """The valid rows by condition, paired on baseline's (case, trial) rows; void rows apart."""
    labels = [row.get("condition") for row in scores]
    if scores and all(isinstance(c, str) and _LABEL.fullmatch(c) for c in labels):
        shown = ", ".join(sorted({str(c) for c in labels}))
        raise InputInvalid(
            [f"these rows are a labelled sheet (conditions {shown}): pass the key blind wrote with --key KEY"]
        )
    scores, void, missing = _without_void(scores)
    if void and not scores:
        raise InputInvalid([_all_void(void)])
    problems: list[str] = []
    valid = [row for i, row in enumerate(scores, start=1) if _scored(row, i, weights, problems)]
    if problems:
        raise InputInvalid(problems)
    grouped: dict[str, list[ScoreRow]] = defaultdict(list)
    for row in valid:
        grouped[row["condition"]].append(row)
    if "baseline" not in grouped or "candidate" not in grouped:
        raise InputInvalid(["Scores must include baseline and candidate conditions"])
    pairing = pairing_problems(grouped)
    if pairing:
        raise InputInvalid(pairing)
    return grouped, void, missing


def _all_void(void: list[VoidRow]) -> str:
    """Every row void: say so, with the judge's reasons (the commonest first), not that a condition
    is missing."""
    reasons = Counter(row["void"] for row in void).most_common()
    shown = "; ".join(f"{why} ({n})" for why, n in reasons[:3])
    more = f"; and {plural(len(reasons) - 3, 'other reason')}" if len(reasons) > 3 else ""
    return f"every row is void ({plural(len(void), 'judged row')}), so nothing can be scored: {shown}{more}"


def _without_void(
    scores: Sequence[Mapping[str, object]],
) -> tuple[list[Mapping[str, object]], list[VoidRow], set[Pair]]:
    """Void rows (a judge that could not judge) are missing scores: their (case, trial) pairs
    leave every condition, so the conditions still compare the same rows."""
    void: list[SheetRow] = [row for row in scores if isinstance(row.get("void"), str) and is_labelled(row)]
    missing = {(row["case_id"], row["trial"]) for row in void}

    def pair_of(row: Mapping[str, object]) -> Pair | None:  # None: not a pair (validated later)
        return (row["case_id"], row["trial"]) if is_labelled(row) else None

    kept = [row for row in scores if row not in void and pair_of(row) not in missing]
    listed: list[VoidRow] = [
        {"case_id": r["case_id"], "trial": r["trial"], "condition": r["condition"], "void": r["void"]}
        for r in void
    ]
    return kept, listed, missing


def apply_key(scores: Sequence[Mapping[str, object]], key: Sequence[KeyRow]) -> list[SheetRow]:
    """Scores judged on a blind sheet carry labels; the key maps them back to conditions."""
    lookup = {(k["case_id"], k["trial"], k["label"]): k["condition"] for k in key}
    mapped: list[SheetRow] = []
    problems: list[str] = []
    for index, row in enumerate(scores, start=1):
        if "control" in row:  # a control row the judge was given (issue 31): never a case
            continue
        if not is_labelled(row):
            problems += [f"Score row {index}: {p}" for p in field_problems(row, LABELLED_FIELDS)]
            continue
        label = (row["case_id"], row["trial"], row["condition"])
        if label not in lookup:
            problems.append(
                f"Score row {index}: no key entry for {label[0]}/trial {label[1]} label {label[2]!r}"
            )
            continue
        mapped.append({**row, "condition": lookup[label]})
    if problems:
        raise InputInvalid(problems)
    return mapped


def read_labels(path: Path, key: Path | None) -> ppi.LabelSet:
    """`--labels`: a person's filled sheet of the random sample the key records, mapped back
    through that key; refused when the key records no sample, or one its seed does not draw."""

    # agree (its rates' dataclasses pull in inspect, ast, dis) only with --labels: at module top
    # it adds about 30 modules to every `score` (python -X importtime, measured for issue 36)
    from ..inference import ppi
    from ..judging.agree import read_scored

    if key is None:
        raise UsageError("--labels maps the person's sheet back through the key: pass --key KEY as well")
    keyed, sample = read_key_and_sample(key)
    if sample is None:
        raise UsageError(
            f"{key} records no random label sample: labels of cases a person chose cannot correct a judge "
            "(draw one: adhd-evals blind --label-sample K --label-sheet PATH)"
        )
    problems = ppi.sample_problems(sample, keyed)
    if problems:
        raise InputInvalid([f"{key}: {p}" for p in problems])
    return ppi.LabelSet(apply_key(read_scored(path), keyed), sample)
