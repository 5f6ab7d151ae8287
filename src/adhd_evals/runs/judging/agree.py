"""`adhd-evals agree JUDGED HUMAN`: how far a judge agrees with a person, and whether to trust it.

On the rows both scored (same case, trial and label; void rows left out):
exact agreement, mean absolute difference and quadratic-weighted Cohen's
kappa per metric (ratings 1-5), blocker agreement, and criterion verdict
agreement where both gave verdicts.

Kappa does not say whether a judge misses failures, so with the person as
truth agree also gives the judge's true-positive rate (TPR: of the criteria
the person passed, the share the judge passed) and true-negative rate (TNR:
of those the person failed, the share the judge failed), each with a Wilson
95% interval, for criterion verdicts and for blockers (there a blocker is
the positive class). `--certify --min-lower 0.8` writes a certificate when
both criterion lower bounds reach the bar (and the blocker bounds, where the
sample holds blockers of each kind): the judge's fingerprint, the figures,
the labelled sample's hash and size, how the judge did on its controls, the
date. A certificate holds only for the same fingerprint: another command, model
or prompt template voids it. Reading one checks a floor (`floor_problems`): a
certificate is a record, not a signature, so the checks catch mistakes and
careless forgeries, never a careful one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ... import exitcodes
from ...catalog import read_object_rows
from ...errors import InputInvalid
from ..inference.rates import CLASSES as CLASSES  # the rates and their intervals: rates.py
from ..inference.rates import MIN_CLASS as MIN_CLASS
from ..inference.rates import Rate as Rate
from ..inference.rates import class_warnings as class_warnings
from ..inference.rates import rates_of as rates_of
from ..inference.rates import wilson as wilson
from ..rows import LABELLED_FIELDS, Certificate, JudgeFingerprint, SampleDigest, SheetRow, field_problems
from ..rubric import METRICS
from .certificates import CERTIFICATE as CERTIFICATE  # a certificate read back: certificates.py
from .certificates import FINGERPRINT as FINGERPRINT
from .certificates import MIN_BAR as MIN_BAR
from .certificates import Refused as Refused
from .certificates import floor_problems as floor_problems
from .certificates import is_certificate as is_certificate
from .certificates import mismatches as mismatches
from .certificates import read_certificate as read_certificate
from .certificates import shortfalls as shortfalls

if TYPE_CHECKING:
    from ..types import ControlsSummary
    from .shapes import Agreement, MetricAgreement

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


def read_scored(path: Path) -> list[SheetRow]:
    """A filled sheet (JSONL, or the Markdown `blind --markdown` wrote, filled in); rows whose
    case, trial, label or criterion verdicts are not what a sheet holds are named."""
    if path.suffix.lower() in (".md", ".markdown"):
        from .blind import read_markdown

        return read_markdown(path)
    rows = read_object_rows(
        path, lambda row: field_problems(row, LABELLED_FIELDS) + verdict_problems(row), what="sheet"
    )
    return cast("list[SheetRow]", rows)  # every row's identity and criteria checked (or the file refused)


VERDICTS = ("pass", "fail")


def verdict_problems(row: Mapping[str, object]) -> list[str]:
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


def _is_verdict(item: object) -> bool:
    return (
        isinstance(item, dict) and isinstance(item.get("criterion"), str) and item.get("verdict") in VERDICTS
    )


def _key(row: SheetRow) -> tuple[str, int, str]:
    return (row["case_id"], row["trial"], row["condition"])


def _ratings(row: SheetRow) -> list[int] | None:
    """The row's rating on each metric, in METRICS' order; None when it is void or lacks one (a
    rating is a whole number from 1 to 5: a sheet read from a file may hold anything there)."""
    given = [row.get(m) for m in METRICS]
    ratings = [v for v in given if isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 5]
    return ratings if "void" not in row and len(ratings) == len(METRICS) else None


def agreement(judged: list[SheetRow], human: list[SheetRow]) -> Agreement:
    people = {_key(r): r for r in human}
    both = [(r, people[_key(r)]) for r in judged if "void" not in r and _key(r) in people]
    pairs = [
        (j, h) for j, h in ((_ratings(j), _ratings(h)) for j, h in both) if j is not None and h is not None
    ]
    verdicts = verdict_pairs(both)
    blockers = [
        (judge, person)
        for j, h in both
        if isinstance(judge := j.get("blocker"), bool) and isinstance(person := h.get("blocker"), bool)
    ]
    if not pairs and not verdicts and not blockers:
        raise InputInvalid(
            ["no row was scored by both the judge and the person (same case, trial and label)"]
        )
    metrics: dict[str, MetricAgreement] = {}
    for index, metric in enumerate(METRICS if pairs else ()):
        a, b = [j[index] for j, _ in pairs], [h[index] for _, h in pairs]
        metrics[metric] = {
            "exact": sum(x == y for x, y in zip(a, b, strict=True)) / len(pairs),
            "mean_abs_diff": sum(abs(x - y) for x, y in zip(a, b, strict=True)) / len(pairs),
            "kappa": weighted_kappa(a, b),
        }
    rates = {
        "criteria": rates_of([(j == "pass", h == "pass") for j, h in verdicts]),
        "blocker": rates_of(blockers),
    }
    return {
        "rows": len(pairs),
        "metrics": metrics,
        "blocker_agreement": (sum(x == y for x, y in blockers) / len(blockers)) if blockers else None,
        "criteria": {
            "pairs": len(verdicts),
            "agreement": (sum(x == y for x, y in verdicts) / len(verdicts)) if verdicts else None,
        },
        "rates": {
            what: {name: rate.as_json() for name, rate in found.items()} for what, found in rates.items()
        },
        "labelled_rows": len(both),
        "void": sum(1 for r in judged if "void" in r and _key(r) in people),
        "warnings": class_warnings(rates),
        "sample": sample_digest(both),
    }


def verdict_pairs(both: list[tuple[SheetRow, SheetRow]]) -> list[tuple[str, str]]:
    """(judge's verdict, person's verdict) for each criterion both gave one for, by text
    (read_scored checked every object's shape; text items are criteria, not verdicts)."""
    found: list[tuple[str, str]] = []
    for judge_row, person_row in both:
        said = {v["criterion"]: v["verdict"] for v in person_row.get("criteria") or [] if isinstance(v, dict)}
        found += [
            (v["verdict"], said[v["criterion"]])
            for v in judge_row.get("criteria") or []
            if isinstance(v, dict) and v["criterion"] in said
        ]
    return found


def sample_digest(both: list[tuple[SheetRow, SheetRow]]) -> SampleDigest:
    """The labelled sample the figures rest on: the person's labels (not the file's bytes, so
    the same labels in JSONL or Markdown hash the same), and its size."""
    labels = sorted(  # tuples, written as JSON arrays like the lists they were
        (
            str(h["case_id"]),
            h["trial"],
            str(h["condition"]),
            h.get("blocker"),
            sorted((v["criterion"], v["verdict"]) for v in h.get("criteria") or [] if isinstance(v, dict)),
        )
        for _, h in both
    )
    digest = hashlib.sha256(json.dumps(labels, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    return {
        "sha256": digest.hexdigest(),
        "rows": len(labels),
        "criterion_labels": sum(len(row[4]) for row in labels),
    }


class NotCertified(InputInvalid):
    """The judge does not reach the bar on this sample: every reason, and nothing written."""

    exit_code = exitcodes.FAILED


def judge_fingerprint(judged: list[SheetRow]) -> JudgeFingerprint:
    """The one judge that filled the sheet; rows from several judges, or from a judge that
    recorded no fingerprint, cannot be certified as one."""
    found = {json.dumps(r.get("judge"), sort_keys=True) for r in judged}
    prints = [json.loads(f) for f in sorted(found)]
    if len(prints) > 1:
        raise InputInvalid(
            [
                "the judged rows come from more than one judge (fingerprints: "
                + "; ".join(map(_shown, prints))
                + "): certify each on its own rows"
            ]
        )
    if not prints or not isinstance(prints[0], dict) or set(prints[0]) != set(FINGERPRINT):
        raise InputInvalid(
            [
                "the judged rows carry no judge fingerprint (runner, command, model, template): "
                "judge them again with this version of adhd-evals"
            ]
        )
    judge = prints[0]
    return {
        "runner": judge["runner"],
        "command": judge["command"],
        "model": judge["model"],
        "template": judge["template"],
    }


def _shown(fingerprint: object) -> str:
    if not isinstance(fingerprint, dict):
        return "none"
    return ", ".join(f"{name} {json.dumps(fingerprint.get(name))}" for name in FINGERPRINT)


def certificate(
    found: Agreement,
    judged: list[SheetRow],
    min_lower: float,
    date: str,
    controls: ControlsSummary | None = None,
) -> Certificate:
    """The certificate, or NotCertified with every reason: the bar is at least MIN_BAR, the judge
    reaches it, and it failed the controls it was given (`controls`: controls.controls_summary
    of its judged file; a judge given none is not certified)."""
    if not MIN_BAR <= min_lower <= 1:
        from ...errors import UsageError

        raise UsageError(f"--min-lower must be a number from {MIN_BAR:g} to 1, not {min_lower:g}")
    fingerprint = judge_fingerprint(judged)
    reasons = shortfalls(found["rates"], min_lower)
    if controls is None:
        reasons.append(
            "the judged file holds no control rows: a judge is admitted only after controls it must "
            "fail (judge the sheet again with --controls)"
        )
    if reasons or controls is None:
        raise NotCertified(
            [
                "adhd-evals: the judge is not certified:",
                *(f"  - {r}" for r in reasons),
                "Nothing was written.",
            ]
        )
    return {
        "certificate": CERTIFICATE,
        "version": 2,
        "fingerprint": fingerprint,
        "min_lower": min_lower,
        "figures": found["rates"],
        "sample": found["sample"],
        "void": found["void"],
        "controls": controls,
        "date": date,
    }


def rates_table(found: Agreement) -> list[str]:
    from ...text import table as text_table

    rows = [["judge vs person", "rate", "95% interval", "counts"]]
    for (what, name), described in CLASSES.items():
        figure = found["rates"][what][name]
        shown = (
            ("-", "-")
            if not figure["n"]
            else (f"{figure['rate']:.3f}", f"[{figure['low']:.3f}, {figure['high']:.3f}]")
        )
        rows.append([f"{what} {name.upper()}", *shown, f"{figure['k']} of {figure['n']} {described}"])
    return ["With the person as truth:", *text_table(rows)]


def table(found: Agreement) -> list[str]:
    from ...text import table as text_table

    rows = [["metric", "exact", "mean |diff|", "kappa"]]
    for metric, m in found["metrics"].items():
        kappa = "-" if m["kappa"] is None else f"{m['kappa']:.3f}"
        rows.append([metric, f"{m['exact']:.0%}", f"{m['mean_abs_diff']:.2f}", kappa])
    lines = [f"Agreement on {found['rows']} rows scored by both:", *text_table(rows)] if found["rows"] else []
    if found["blocker_agreement"] is not None:
        lines.append(f"blocker agreement: {found['blocker_agreement']:.0%}")
    criteria = found["criteria"]
    if criteria["agreement"] is not None:
        lines.append(f"criterion verdicts: {criteria['agreement']:.0%} of {criteria['pairs']}")
    lines += rates_table(found)
    if found["void"]:
        lines.append(f"{found['void']} labelled rows the judge left void are left out.")
    return lines
