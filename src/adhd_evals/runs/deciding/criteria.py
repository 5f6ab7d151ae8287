"""`score --criteria VERDICTS`: criteria passed per condition, by who decided them, and the gate on them.

The verdicts file is `adhd-evals verdicts`'s. A judge's verdict counts only
when the certificate given to `score` names the judge's fingerprint, whatever
the file says (a verdicts file merged with another certificate, or edited,
cannot slip an uncertified verdict in): otherwise it is `uncertified`.

For judge-decided criteria the pass rate is reported raw and corrected for
the judge's error (Rogan-Gladen, with the certificate's criterion TPR as
sensitivity and TNR as specificity):

    corrected = (raw + TNR - 1) / (TPR + TNR - 1), clipped to [0, 1]

Its interval carries the certificate's uncertainty as well as the sample's:
the corrected rate rises with the raw rate and with TNR and falls with TPR
(while TPR + TNR > 1, which certification guarantees), so its extremes over
the box of the three Wilson 95% intervals lie at two corners. The box is
conservative (wider than a joint 95% region), never narrower.

The gate fails while any criterion is undecided (unwritten, error, void, or
an uncertified judge's), naming the counts, and when the candidate passes a
smaller share of its criteria than baseline. The unit of comparison is the
case, as in the paired analysis: per case, the candidate's share of criteria
passed (mean over its trials) minus the baseline's, with the same interval
and sign test as the scores; an interval wholly below 0 fails the gate too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from ...text import plural
from ..judging.agree import Rate, wilson
from ..judging.verdicts import DECIDED, DECIDERS, STATUSES, UNDECIDED, not_counted, per_condition
from ..rows import Certificate, Decider, ResultRow, VerdictRow, field_problems, read_shaped

if TYPE_CHECKING:
    from ..inference.ppi import LabelSet
    from ..summaries import (
        Corrected,
        CriteriaCounts,
        CriteriaPaired,
        CriteriaSummary,
        EstimateJson,
        ThreeJson,
    )

FIELDS = {"case_id": str, "trial": int, "condition": str, "criterion": str, "status": str, "decided_by": str}
WHY = {
    "unwritten": "nobody decided",
    "error": "a check raised",
    "void": "the judge could not judge",
    "uncertified": "an uncertified judge's",
}


def verdict_problems(row: Mapping[str, object]) -> list[str]:
    problems = field_problems(row, FIELDS)
    status, by = row.get("status"), row.get("decided_by")
    if isinstance(status, str) and status not in STATUSES:
        problems.append(f"status must be one of {', '.join(STATUSES)}, not {status!r}")
    if isinstance(by, str) and by not in DECIDERS:
        problems.append(f"decided_by must be one of {', '.join(DECIDERS)}, not {by!r}")
    elif (status in DECIDED and by == "nobody") or (status in UNDECIDED and by != "nobody"):
        problems.append(
            f"a {status} is decided by {'someone' if status in DECIDED else 'nobody'}, not {by!r}"
        )
    return problems


def is_verdict_row(row: Mapping[str, object]) -> TypeGuard[VerdictRow]:
    return not verdict_problems(row)


def read_verdicts(path: Path) -> list[VerdictRow]:
    """`adhd-evals verdicts --out` rows; every row the gate could not count is named by line."""
    return read_shaped(path, is_verdict_row, verdict_problems, what="criterion verdicts file")


def recheck(rows: list[VerdictRow], certificate: Certificate | None) -> list[VerdictRow]:
    """Each judge-decided verdict counts only under this certificate; the others become
    uncertified, with the reason."""
    checked = []
    for row in rows:
        why = not_counted(row.get("judge"), certificate) if row["decided_by"] == "judge" else None
        status = row["status"]  # a judge decided it: pass or fail (verdict_problems saw to that)
        if why and (status == "pass" or status == "fail"):
            row = {
                **row,
                "status": "uncertified",
                "decided_by": "nobody",
                "verdict": status,
                "reason": why,
            }
        checked.append(row)
    return checked


def settled(
    results: Sequence[ResultRow], rows: list[VerdictRow], certificate: Certificate | None
) -> list[ResultRow]:
    """The check results without the unwritten ones whose criterion a person, or a judge this
    certificate counts, decided: an unwritten check leaves its criterion to them (verdicts'
    precedence), so with --criteria it is not a check that never ran."""
    decided = {
        (row["case_id"], row["trial"], row["condition"], row["criterion"])
        for row in recheck(rows, certificate)
        if row["status"] in DECIDED and row["decided_by"] in ("person", "judge")
    }
    return [
        result
        for result in results
        if result["status"] != "unwritten"
        or (result.get("case_id"), result.get("trial"), result["condition"], result.get("criterion"))
        not in decided
    ]


def corrected(raw: Rate, tpr: Rate, tnr: Rate) -> Corrected:
    """The judge's raw pass rate, and Rogan-Gladen's correction with its interval (see above)."""
    p, se, sp = raw.k / raw.n, tpr.k / tpr.n, tnr.k / tnr.n
    (p_lo, p_hi), (se_lo, se_hi), (sp_lo, sp_hi) = _interval(raw), _interval(tpr), _interval(tnr)
    point = _rogan_gladen(p, se, sp)
    if se_lo + sp_lo <= 1 or point is None:  # the judge may be no better than a coin: nothing to correct
        return {"raw": p, "raw_interval": [p_lo, p_hi], "corrected": None, "interval": [0.0, 1.0]}
    low, high = _rogan_gladen(p_lo, se_hi, sp_lo), _rogan_gladen(p_hi, se_lo, sp_hi)
    return {
        "raw": p,
        "raw_interval": [p_lo, p_hi],
        "corrected": point,
        "interval": [low if low is not None else 0.0, high if high is not None else 1.0],
    }


def _interval(rate: Rate) -> tuple[float, float]:
    found = wilson(rate.k, rate.n)
    if found is None:  # a certificate measures both classes, and a rate is asked for only with a count
        raise ValueError(f"no interval for {rate.k} of {rate.n}")
    return found


def _rogan_gladen(p: float, se: float, sp: float) -> float | None:
    if se + sp <= 1:
        return None
    return min(1.0, max(0.0, (p + sp - 1) / (se + sp - 1)))


def summarize(
    rows: list[VerdictRow], certificate: Certificate | None, labels: LabelSet | None = None
) -> CriteriaSummary:
    """Per condition: criteria, passes by decider, undecided by status, the judge's corrected
    pass rate (and with `labels`, a person's random sample, its prediction-powered one); and the
    gate's reasons."""
    if labels is not None:
        judged_by_ppi = _ppi_rates(rows, labels)
    rows = recheck(rows, certificate)
    conditions = per_condition(rows)
    for counts in conditions.values():
        counts["passed"] = sum(d["pass"] for d in counts["decided"].values())
        judged = counts["decided"].get("judge")
        if judged and certificate is not None:
            figures = certificate["figures"]["criteria"]
            counts["judge_rate"] = corrected(
                Rate(judged["pass"], judged["pass"] + judged["fail"]),
                Rate(figures["tpr"]["k"], figures["tpr"]["n"]),
                Rate(figures["tnr"]["k"], figures["tnr"]["n"]),
            )
    if labels is not None:
        for condition, three in judged_by_ppi.items():
            conditions[condition]["judge_ppi"] = three
    reasons = _reasons(conditions)
    if "baseline" in conditions and "candidate" in conditions:  # the keys in the order --json writes
        paired, said = _paired(rows)
        return {"conditions": conditions, "paired": paired, "reasons": reasons + said}
    return {"conditions": conditions, "reasons": reasons}


def judge_said(row: VerdictRow) -> str | None:
    """What the judge said about the criterion, whoever decided it (None: it said nothing)."""
    if row["decided_by"] == "judge" or row["status"] == "uncertified":
        return row.get("verdict")
    return row.get("others", {}).get("judge")


def _shares(cells: Mapping[tuple[str, str], list[bool]]) -> dict[str, dict[str, list[float]]]:
    """(condition, case) -> verdicts, as condition -> case -> [share passed]."""
    found: dict[str, dict[str, list[float]]] = {}
    for (condition, case), said in cells.items():
        found.setdefault(condition, {})[case] = [sum(said) / len(said)]
    return found


def _ppi_rates(rows: list[VerdictRow], labels: LabelSet) -> dict[str, ThreeJson]:
    """Per condition, the judge's pass rate over criteria three ways (the judge at its word, PPI, the
    person's labels alone), the case the unit: each case's share of its criteria passed, over its
    trials. The judge's say counts whoever decided the criterion (it is the prediction being
    corrected); the person's labels count on the key's random sample only."""
    from ..inference import ppi

    judged: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for row in rows:
        said = judge_said(row)
        if said in DECIDED:
            judged[(row["condition"], row["case_id"])].append(said == "pass")
    sample = set(labels.sample["case_ids"])
    person: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for label in labels.rows:
        if label.get("case_id") in sample:
            for item in label.get("criteria") or []:
                if isinstance(item, dict) and item.get("verdict") in DECIDED:
                    person[(str(label["condition"]), str(label["case_id"]))].append(item["verdict"] == "pass")
    judge, mine = _shares(judged), _shares(person)
    return {c: ppi.three(values, mine.get(c, {}), 0).json() for c, values in sorted(judge.items())}


def _paired(rows: list[VerdictRow]) -> tuple[CriteriaPaired | None, list[str]]:
    """Per case, the candidate's share of criteria passed minus the baseline's (each a mean over
    its trials): the paired analysis of the scores, on criteria."""
    from fractions import Fraction

    from ..inference import paired as stats
    from .decision import described

    counts: dict[tuple[str, str, int], list[int]] = {}
    for row in rows:
        if row["condition"] in ("baseline", "candidate"):
            tally = counts.setdefault((row["case_id"], row["condition"], row["trial"]), [0, 0])
            tally[0] += row["status"] == "pass"
            tally[1] += 1
    try:
        found = stats.paired({key: Fraction(passed, total) for key, (passed, total) in counts.items()})
    except ValueError as exc:
        return None, [f"Criteria: {exc}: verdicts for one condition only cannot be compared."]
    reasons = []
    if found.high is not None and found.high < 0:
        reasons.append(
            f"Criteria: per case, the candidate passes a smaller share ({described(found)}): the "
            "interval lies wholly below 0."
        )
    return {"what": "per case: share of criteria passed, candidate minus baseline", **found.json()}, reasons


def _reasons(conditions: dict[str, CriteriaCounts]) -> list[str]:
    if "baseline" not in conditions or "candidate" not in conditions:
        return ["Criteria: the verdicts must include baseline and candidate conditions."]
    reasons = []
    total = sum(c["criteria"] for c in conditions.values())
    undecided = {s: sum(c["undecided"].get(s, 0) for c in conditions.values()) for s in UNDECIDED}
    if any(undecided.values()):
        decided = {d: sum(_decided(c, d) for c in conditions.values()) for d in DECIDERS[:3]}
        kinds = ", ".join(f"{n} {s} ({WHY[s]})" for s, n in undecided.items() if n)
        reasons.append(
            f"Criteria: {sum(undecided.values())} of {total} undecided ({kinds}); decided by check "
            f"{decided['check']}, by person {decided['person']}, by certified judge {decided['judge']}. "
            "An undecided criterion never passes."
        )
    base, cand = conditions["baseline"], conditions["candidate"]
    if cand["passed"] * base["criteria"] < base["passed"] * cand["criteria"]:
        reasons.append(
            f"Criteria: the candidate passes a smaller share of its criteria than baseline "
            f"({cand['passed']}/{cand['criteria']} against {base['passed']}/{base['criteria']})."
        )
    return reasons


def condition_cells(name: str, c: CriteriaCounts, *, arrow: str, undecided: str) -> list[str]:
    """One condition's row of the criteria table, for score's text and the report alike: passed of
    decided by check, person and judge, what stayed undecided (as the caller words it), and the
    judge's pass rate, raw `arrow` corrected with its interval."""
    by = [c["decided"].get(d, {"pass": 0, "fail": 0}) for d in DECIDERS[:3]]
    rate = c.get("judge_rate")
    shown = (
        "-"
        if rate is None
        else f"{rate['raw']:.3f} {arrow} "
        + (
            "not correctable"
            if rate["corrected"] is None
            else f"{rate['corrected']:.3f} [{rate['interval'][0]:.3f}, {rate['interval'][1]:.3f}]"
        )
    )
    return [
        name,
        str(c["criteria"]),
        str(c["passed"]),
        *(f"{d['pass']}/{d['pass'] + d['fail']}" for d in by),
        undecided,
        shown,
    ]


def table(found: CriteriaSummary) -> list[str]:
    """The criteria as `score` prints them under its own table."""
    from ...text import table as text_table

    rows = [
        [
            "condition",
            "criteria",
            "passed",
            "by check",
            "by person",
            "by judge",
            "undecided",
            "judge pass rate: raw -> corrected [95%]",
        ]
    ]
    rows += [
        condition_cells(name, c, arrow="->", undecided=str(sum(c["undecided"].values())))
        for name, c in found["conditions"].items()
    ]
    undecided = [
        f"{plural(n, 'criterion', 'criteria')} {s} ({name})"
        for name, c in found["conditions"].items()
        for s, n in c["undecided"].items()
        if n
    ]
    paired = found.get("paired")
    delta = (
        []
        if not paired
        else [
            f"Per case, share of criteria passed, candidate minus baseline: mean {paired['mean_delta']:+.3f}"
            + ("" if paired["ci"] is None else f", 95% CI {paired['ci'][0]:+.3f}..{paired['ci'][1]:+.3f}")
            + f", {plural(paired['n'], 'case')}."
        ]
    )
    corrected_by_ppi = [
        line
        for name, c in found["conditions"].items()
        if "judge_ppi" in c and (line := _ppi_line(name, c["judge_ppi"])) is not None
    ]
    return [
        "Criteria (passed / decided, by who decided):",
        *text_table(rows),
        *corrected_by_ppi,
        *delta,
        *([f"Undecided: {'; '.join(undecided)}."] if undecided else []),
    ]


def _decided(counts: CriteriaCounts, decider: Decider) -> int:
    by = counts["decided"].get(decider)
    return 0 if by is None else by["pass"] + by["fail"]


def _ppi_line(name: str, three: ThreeJson) -> str | None:
    """The judge's pass rate three ways (None: no labelled case, so no PPI figure)."""
    ppi, labels = three["ppi"], three["labels"]
    if ppi is None or labels is None:  # both or neither: a labelled case gives both
        return None
    return (
        f"Judge pass rate, {name}, prediction-powered ({ppi['labelled']} labelled cases of "
        f"{ppi['cases']}): judge {_rate(three['judge'])}, PPI {_rate(ppi)}, labels only {_rate(labels)}."
    )


def _rate(figure: EstimateJson) -> str:
    ci = figure["ci"]
    return f"{figure['estimate']:.3f}" + ("" if ci is None else f" [{ci[0]:.3f}, {ci[1]:.3f}]")
