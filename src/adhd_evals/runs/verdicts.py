"""`adhd-evals verdicts`: one verdict per criterion of every (case, trial, condition), and who decided it.

Three sources can decide a criterion, in this order:

1. a written check (`check --output` rows): pass or fail decides; a check that
   raised stays `error` (a broken check is fixed, not outvoted);
2. a person's label (a filled sheet, JSONL or Markdown, mapped back through
   the key);
3. a judge's verdict (a judged sheet, mapped back through the key), counted
   only when its fingerprint is the one a certificate names.

Otherwise the criterion stays undecided, and its status says why: `unwritten`
(nobody decided it), `error` (its check raised), `void` (the judge could not
judge the row) or `uncertified` (the judge's verdict, shown but not counted).
Each row's `decided_by` is `check`, `person` or `judge` for a pass or a fail,
and `nobody` otherwise; what the sources that did not decide said is kept
under `others`. Nothing undecided is ever a pass.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..catalog import read_object_rows
from ..errors import InputInvalid
from .agree import mismatches
from .rows import LABELLED_FIELDS, field_problems, key_problems

DECIDED = ("pass", "fail")
UNDECIDED = ("unwritten", "error", "void", "uncertified")
STATUSES = DECIDED + UNDECIDED
DECIDERS = ("check", "person", "judge", "nobody")
CHECK_FIELDS = {"case_id": str, "trial": int, "condition": str, "criterion": str, "status": str}
Row = tuple[str, int, str]  # (case_id, trial, condition)


@dataclass
class Sources:
    """What the merge reads, every row already checked for its shape."""

    cases: dict[str, list[str]]  # case id -> its criteria
    checks: list[dict[str, Any]] = field(default_factory=list)
    labels: list[tuple[str, list[dict[str, Any]]]] = field(default_factory=list)  # (file, rows)
    judged: list[dict[str, Any]] = field(default_factory=list)
    key: list[dict[str, Any]] | None = None
    certificate: dict[str, Any] | None = None


def read_checks(path: Path) -> list[dict[str, Any]]:
    """`check --output` rows; every row that names no criterion verdict is named by line."""

    def problems(row: dict[str, Any]) -> list[str]:
        found = field_problems(row, CHECK_FIELDS)
        if isinstance(row.get("status"), str) and row["status"] not in ("pass", "fail", "unwritten", "error"):
            found.append(f"status must be pass, fail, unwritten or error, not {row['status']!r}")
        return found

    return read_object_rows(path, problems, what="check results file")


def read_key(path: Path) -> list[dict[str, Any]]:
    return read_object_rows(path, key_problems, what="key file")


def unblind(rows: list[dict[str, Any]], key: list[dict[str, Any]] | None, where: str) -> list[dict[str, Any]]:
    """Labelled rows with their conditions back, through the key blind wrote; a row the key
    does not know is named."""
    if key is None:
        raise InputInvalid([f"{where} is a labelled sheet: pass the key blind wrote with --key KEY"])
    lookup = {(k["case_id"], k["trial"], k["label"]): k["condition"] for k in key}
    mapped, problems = [], []
    for index, row in enumerate(rows, start=1):
        wrong = field_problems(row, LABELLED_FIELDS)
        label = (row.get("case_id"), row.get("trial"), row.get("condition"))
        if wrong:
            problems += [f"{where}: row {index}: {p}" for p in wrong]
        elif label not in lookup:
            problems.append(
                f"{where}: row {index}: no key entry for {label[0]}/trial {label[1]} label {label[2]!r}"
            )
        else:
            mapped.append({**row, "condition": lookup[label], "label": row["condition"]})
    if problems:
        raise InputInvalid(problems)
    return mapped


def merge(sources: Sources) -> list[dict[str, Any]]:
    """Every criterion of every (case, trial, condition) the sources know, decided by precedence."""
    checks = _check_statuses(sources.checks)
    people = _person_verdicts(sources.labels)
    judged = {_row_of(r): r for r in sources.judged}
    rows = sorted(
        {k[:3] for k in checks} | {k[:3] for k in people} | set(judged),
        key=lambda r: (str(r[0]), r[1], str(r[2])),
    )
    unknown = sorted({case_id for case_id, _, _ in rows if case_id not in sources.cases})
    if unknown:
        raise InputInvalid([f"case {case_id} is not in the catalog (pass --cases)" for case_id in unknown])
    extra: dict[Row, list[str]] = defaultdict(list)  # criteria a person's check added to the catalog's
    for case_id, trial, condition, criterion in checks:
        if criterion not in sources.cases[case_id]:
            extra[(case_id, trial, condition)].append(criterion)
    merged = []
    for row in rows:
        for criterion in dict.fromkeys([*sources.cases[row[0]], *sorted(extra[row])]):
            key = row + (criterion,)
            merged.append(_decide(row, criterion, checks.get(key), people.get(key), judged.get(row), sources))
    return merged


def _row_of(row: dict[str, Any]) -> Row:
    return (row["case_id"], row["trial"], row["condition"])


def _check_statuses(checks: list[dict[str, Any]]) -> dict[tuple[str, int, str, str], dict[str, Any]]:
    """One status per criterion: a fail if any of its checks fails, else an error if any raised,
    else unwritten if any is, else pass."""
    grouped: dict[tuple[str, int, str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in checks:
        grouped[_row_of(row) + (row["criterion"],)].append(row)
    found = {}
    for key, rows in grouped.items():
        statuses = [r["status"] for r in rows]
        status = next(s for s in ("fail", "error", "unwritten", "pass") if s in statuses)
        found[key] = {
            "status": status,
            "check": ", ".join(str(r.get("check", "?")) for r in rows),
            "error": "; ".join(str(r["error"]) for r in rows if r.get("error")),
        }
    return found


def _person_verdicts(labels: list[tuple[str, list[dict[str, Any]]]]) -> dict[tuple[str, int, str, str], str]:
    found: dict[tuple[str, int, str, str], tuple[str, str]] = {}
    problems = []
    for where, rows in labels:
        for row in rows:
            for item in row.get("criteria") or []:
                if not isinstance(item, dict):
                    continue  # the case's criteria as text: nothing labelled
                key = _row_of(row) + (item["criterion"],)
                if key in found and found[key][0] != item["verdict"]:
                    problems.append(
                        f"{key[0]} trial {key[1]} {key[2]}: {item['criterion']!r} is "
                        f"{found[key][0]} in {found[key][1]} and {item['verdict']} in {where}"
                    )
                found[key] = (item["verdict"], where)
    if problems:
        raise InputInvalid(["people's labels disagree (settle them, then merge):", *problems])
    return {key: verdict for key, (verdict, _) in found.items()}


def _decide(
    row: Row,
    criterion: str,
    check: dict[str, Any] | None,
    person: str | None,
    judged: dict[str, Any] | None,
    sources: Sources,
) -> dict[str, Any]:
    out: dict[str, Any] = {"case_id": row[0], "trial": row[1], "condition": row[2], "criterion": criterion}
    said = _judge_said(judged, criterion, sources.certificate)
    others: dict[str, Any] = {}
    if check is not None and check["status"] != "unwritten":
        out.update(
            status=check["status"],
            decided_by="check" if check["status"] in DECIDED else "nobody",
            check=check["check"],
        )
        if check["error"]:
            out["error"] = check["error"]
        others = {"person": person, "judge": said.get("verdict")}
    elif person is not None:
        out.update(status=person, decided_by="person")
        others = {"judge": said.get("verdict")}
    elif said:
        out.update(said)
    else:
        out.update(
            status="unwritten",
            decided_by="nobody",
            reason="no written check, no person's label, no judge's verdict",
        )
    others = {k: v for k, v in others.items() if v is not None}
    return {**out, "others": others} if others else out


def _judge_said(
    judged: dict[str, Any] | None, criterion: str, certificate: dict[str, Any] | None
) -> dict[str, Any]:
    """What the judge's row says about the criterion, as a verdict row's fields ({} for nothing)."""
    if judged is None:
        return {}
    fingerprint = judged.get("judge")
    if isinstance(judged.get("void"), str):
        return {
            "status": "void",
            "decided_by": "nobody",
            "reason": f"the judge's row is void: {judged['void']}",
            "judge": fingerprint,
        }
    verdicts = [
        v for v in judged.get("criteria") or [] if isinstance(v, dict) and v.get("criterion") == criterion
    ]
    if len(verdicts) != 1 or verdicts[0].get("verdict") not in DECIDED:
        return {}
    verdict = verdicts[0]
    shown = {"verdict": verdict["verdict"], "evidence": verdict.get("evidence"), "judge": fingerprint}
    why = not_counted(fingerprint, certificate)
    if why:
        return {"status": "uncertified", "decided_by": "nobody", **shown, "reason": why}
    return {"status": verdict["verdict"], "decided_by": "judge", **shown}


def not_counted(fingerprint: Any, certificate: dict[str, Any] | None) -> str | None:
    """Why a judge's verdict does not count (None: it counts): no certificate, or a certificate
    for another judge (each differing field named)."""
    if certificate is None:
        return "no certificate for this judge (certify it: adhd-evals agree ... --certify)"
    differs = mismatches(certificate["fingerprint"], fingerprint)
    return "the certificate is for another judge: " + "; ".join(differs) if differs else None


def per_condition(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """condition -> {"criteria": n, "decided": {decider: {"pass", "fail"}}, "undecided": {status: n}}."""
    found: dict[str, dict[str, Any]] = {}
    for row in rows:
        counts = found.setdefault(row["condition"], {"criteria": 0, "decided": {}, "undecided": {}})
        counts["criteria"] += 1
        if row["status"] in DECIDED:
            by = counts["decided"].setdefault(row["decided_by"], {"pass": 0, "fail": 0})
            by[row["status"]] += 1
        else:
            counts["undecided"][row["status"]] = counts["undecided"].get(row["status"], 0) + 1
    return dict(sorted(found.items()))


def summary_table(rows: list[dict[str, Any]]) -> list[str]:
    from ..text import table

    header = ["condition", "criteria", *(f"by {d} (pass/decided)" for d in DECIDERS[:3]), *UNDECIDED]
    body = [header]
    for condition, counts in per_condition(rows).items():
        decided = [counts["decided"].get(d, {"pass": 0, "fail": 0}) for d in DECIDERS[:3]]
        body.append(
            [
                condition,
                str(counts["criteria"]),
                *(f"{d['pass']}/{d['pass'] + d['fail']}" for d in decided),
                *(str(counts["undecided"].get(s, 0)) for s in UNDECIDED),
            ]
        )
    return table(body)
