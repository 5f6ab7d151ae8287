"""`agree --judges A B --key KEY`: does the verdict survive swapping the judge?

Two judges fill the same blind sheet. Each judged file, mapped back through the key, is scored
as `score --gate paired` scores it; then: does the weighted Δ (candidate minus baseline, per
case) keep its sign, does the paired verdict stay the same, does the reference gate? And, on
the rows both judged, how often the two agree on each criterion. "The lift's sign depends on
which judge you ask" is a finding a team needs before it ships.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ...text import plural
from .decision import Decide

if TYPE_CHECKING:
    from ..summaries import CriterionAgreement, SwapJson, SwapSide

Rows = Sequence[Mapping[str, object]]  # a judged sheet's rows as read, mapped back through the key


def _criteria(row: Mapping[str, object]) -> list[object]:
    """A judged row's criteria as the judge wrote them (anything but a list holds no verdict)."""
    found = row.get("criteria")
    return found if isinstance(found, list) else []


def _sign(mean: float | None) -> Literal["+", "-", "0", "none"]:
    if mean is None:
        return "none"
    return "+" if mean > 0 else "-" if mean < 0 else "0"


def side(path: Path, rows: Rows, decide: Decide) -> SwapSide:
    """One judge's verdict on the sheet, as `score --gate paired` reaches it."""
    from .score import summarize

    summary = summarize(rows, None, decide=decide)
    paired, decided = summary.get("paired"), summary.get("decision")
    weighted = None if paired is None else paired["weighted_score"]
    mean = None if weighted is None else weighted["mean_delta"]
    return {
        "file": str(path),
        "judge": next((r["judge"] for r in rows if "judge" in r), None),
        "mean_delta": mean,
        "ci": None if weighted is None else weighted["ci"],
        "sign": _sign(mean),
        "verdict": None if decided is None else decided["verdict"],
        "gate": "PASSED" if summary["release_gate"]["passed"] else "FAILED",
    }


def per_criterion(first: Rows, second: Rows) -> list[CriterionAgreement]:
    """For each criterion both judges gave a verdict on (same case, trial, condition): the pairs
    and how many agree, least agreement first."""
    said = {(r["case_id"], r["trial"], r["condition"]): _criteria(r) for r in second if "void" not in r}
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in first:
        if "void" in row:
            continue
        theirs = {
            v["criterion"]: v["verdict"]
            for v in said.get((row["case_id"], row["trial"], row["condition"]), [])
            if isinstance(v, dict)
        }
        for verdict in _criteria(row):
            if isinstance(verdict, dict) and verdict.get("criterion") in theirs:
                tally = counts[verdict["criterion"]]
                tally[0] += 1
                tally[1] += verdict["verdict"] == theirs[verdict["criterion"]]
    found: list[CriterionAgreement] = [
        {"criterion": c, "pairs": n, "agree": k, "rate": k / n} for c, (n, k) in counts.items()
    ]
    return sorted(found, key=lambda f: (f["rate"], f["criterion"]))


def swap(first: tuple[Path, Rows], second: tuple[Path, Rows], decide: Decide) -> SwapJson:
    """Both judges' verdicts, what changes between them, and their agreement per criterion."""
    a, b = side(*first, decide), side(*second, decide)
    flips = [
        what
        for what, changed in (
            ("the sign of the weighted Δ", a["sign"] != b["sign"]),
            ("the paired verdict", a["verdict"] != b["verdict"]),
            ("the reference gate", a["gate"] != b["gate"]),
        )
        if changed
    ]
    return {"judges": {"A": a, "B": b}, "flips": flips, "criteria": per_criterion(first[1], second[1])}


def lines(found: SwapJson) -> list[str]:
    """The swap as `agree --judges` prints it."""
    from ...text import table

    out = []
    for name, s in found["judges"].items():
        ci = "" if s["ci"] is None else f", 95% CI {s['ci'][0]:+.3f}..{s['ci'][1]:+.3f}"
        delta = "-" if s["mean_delta"] is None else f"{s['mean_delta']:+.3f}"
        out.append(
            f"Judge {name} ({s['file']}): weighted Δ {delta}{ci}; paired verdict {s['verdict']}; "
            f"reference gate {s['gate']}."
        )
    if found["flips"]:
        out.append(
            f"Swapping the judge changes {', '.join(found['flips'])}: it depends on which judge you ask."
        )
    else:
        out.append("Swapping the judge changes neither the sign, the paired verdict nor the gate.")
    criteria = found["criteria"]
    if criteria:
        pairs, agree = sum(c["pairs"] for c in criteria), sum(c["agree"] for c in criteria)
        out.append(
            f"Per criterion, on rows both judged ({plural(pairs, 'verdict pair')}, {agree / pairs:.0%} agree):"
        )
        body = [["criterion", "pairs", "agree"]]
        body += [[c["criterion"], str(c["pairs"]), f"{c['agree']} ({c['rate']:.0%})"] for c in criteria]
        out += table(body)
    return out
