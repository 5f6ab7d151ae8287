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

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled into
# ForwardRefs as it is made (a process's first compile is about 1.3 ms of start-up); names type
# checkers alone import are quoted where a function names them (docs/startup.md).
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypedDict, TypeGuard, get_args

from ...errors import InputInvalid
from ..rows import (
    LABELLED_FIELDS,
    VERDICTS,
    Certificate,
    Decider,
    JudgeFingerprint,
    KeyRow,
    Others,
    ResultRow,
    SheetRow,
    Undecided,
    Verdict,
    VerdictRow,
    VerdictStatus,
    field_problems,
    is_labelled,
    read_shaped,
)
from ..rows import read_key as read_key  # the key `blind` wrote, read as its shape
from .agree import mismatches

if TYPE_CHECKING:
    from ..summaries import CriteriaCounts

DECIDED: tuple[Verdict, ...] = VERDICTS
UNDECIDED: tuple[Undecided, ...] = get_args(Undecided)
STATUSES: tuple[VerdictStatus, ...] = DECIDED + UNDECIDED
DECIDERS: tuple[Decider, ...] = get_args(Decider)
CHECK_FIELDS = {"case_id": str, "trial": int, "condition": str, "criterion": str, "status": str}
Row = tuple[str, int, str]  # (case_id, trial, condition)
Criterion = tuple[str, int, str, str]  # (case_id, trial, condition, criterion)
CheckOutcome = Literal["fail", "error", "unwritten", "pass"]  # the worst first
OUTCOMES: tuple[CheckOutcome, ...] = get_args(CheckOutcome)


class Sources:
    """What the merge reads, every row already checked for its shape. A plain class, not a
    dataclass: dataclasses imports inspect, about 8 ms of verdicts' start-up."""

    def __init__(
        self,
        cases: dict[str, list[str]],  # case id -> its criteria
        *,
        judged: list[SheetRow] | None = None,
        key: list[KeyRow] | None = None,
        certificate: Certificate | None = None,
    ) -> None:
        self.cases = cases
        self.checks: list[ResultRow] = []
        self.labels: list[tuple[str, list[SheetRow]]] = []  # (file, rows)
        self.judged: list[SheetRow] = [] if judged is None else judged
        self.key = key
        self.certificate = certificate


def check_problems(row: Mapping[str, object]) -> list[str]:
    """A check result that names a criterion verdict: every key but runner and check, and no orphan."""
    found = field_problems(row, CHECK_FIELDS)
    status = row.get("status")
    if isinstance(status, str) and status not in OUTCOMES:
        found.append(f"status must be pass, fail, unwritten or error, not {status!r}")
    return found


def is_criterion_result(row: Mapping[str, object]) -> TypeGuard[ResultRow]:
    return not check_problems(row)


def read_checks(path: Path) -> list[ResultRow]:
    """`check --output` rows; every row that names no criterion verdict is named by line."""
    return read_shaped(path, is_criterion_result, check_problems, what="check results file")


def unblind(rows: Sequence[Mapping[str, object]], key: Sequence[KeyRow] | None, where: str) -> list[SheetRow]:
    """Labelled rows with their conditions back, through the key blind wrote; a row the key
    does not know is named."""
    if key is None:
        raise InputInvalid([f"{where} is a labelled sheet: pass the key blind wrote with --key KEY"])
    lookup = {(k["case_id"], k["trial"], k["label"]): k["condition"] for k in key}
    mapped: list[SheetRow] = []
    problems = []
    for index, row in enumerate(rows, start=1):
        label = (row.get("case_id"), row.get("trial"), row.get("condition"))
        if "control" in row:  # a control row the judge was given (issue 31): never a case
            continue
        if not is_labelled(row):
            problems += [f"{where}: row {index}: {p}" for p in field_problems(row, LABELLED_FIELDS)]
        elif label not in lookup:
            problems.append(
                f"{where}: row {index}: no key entry for {label[0]}/trial {label[1]} label {label[2]!r}"
            )
        else:
            mapped.append({**row, "condition": lookup[label], "label": row["condition"]})
    if problems:
        raise InputInvalid(problems)
    return mapped


def merge(sources: Sources) -> list[VerdictRow]:
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


def _row_of(row: SheetRow | ResultRow) -> Row:
    return (row["case_id"], row["trial"], row["condition"])


class _Checked(TypedDict):
    """A criterion's checks, as one status."""

    status: CheckOutcome
    check: str  # their names
    error: str  # what they raised


def _check_statuses(checks: list[ResultRow]) -> dict[Criterion, _Checked]:
    """One status per criterion: a fail if any of its checks fails, else an error if any raised,
    else unwritten if any is, else pass."""
    grouped: dict[Criterion, list[ResultRow]] = defaultdict(list)
    for row in checks:
        grouped[_row_of(row) + (row["criterion"],)].append(row)
    found: dict[Criterion, _Checked] = {}
    for key, rows in grouped.items():
        statuses = [r["status"] for r in rows]
        found[key] = {
            "status": next(s for s in OUTCOMES if s in statuses),
            "check": ", ".join(str(r.get("check", "?")) for r in rows),
            "error": "; ".join(str(r["error"]) for r in rows if r.get("error")),
        }
    return found


def _person_verdicts(labels: list[tuple[str, list[SheetRow]]]) -> dict[Criterion, Verdict]:
    found: dict[Criterion, tuple[Verdict, str]] = {}
    problems = []
    for where, rows in labels:
        for row in rows:
            for item in row.get("criteria") or []:
                if isinstance(item, str):
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


def _verdict_row(row: Row, criterion: str, status: VerdictStatus, decided_by: Decider) -> VerdictRow:
    return {
        "case_id": row[0],
        "trial": row[1],
        "condition": row[2],
        "criterion": criterion,
        "status": status,
        "decided_by": decided_by,
    }


def _decide(
    row: Row,
    criterion: str,
    check: _Checked | None,
    person: Verdict | None,
    judged: SheetRow | None,
    sources: Sources,
) -> VerdictRow:
    said = _judge_said(row, criterion, judged, sources.certificate)
    shown = said.get("verdict") if said is not None else None  # what the judge said, counted or not
    others: Others = {}
    if check is not None and check["status"] != "unwritten":
        out = _verdict_row(
            row, criterion, check["status"], "check" if check["status"] in DECIDED else "nobody"
        )
        out["check"] = check["check"]
        if check["error"]:
            out["error"] = check["error"]
        if person is not None:
            others["person"] = person
        if shown is not None:
            others["judge"] = shown
    elif person is not None:
        out = _verdict_row(row, criterion, person, "person")
        if shown is not None:
            others["judge"] = shown
    elif said is not None:
        out = said
    else:
        out = _verdict_row(row, criterion, "unwritten", "nobody")
        out["reason"] = "no written check, no person's label, no judge's verdict"
    if others:
        out["others"] = others
    return out


def _judge_said(
    row: Row, criterion: str, judged: SheetRow | None, certificate: Certificate | None
) -> VerdictRow | None:
    """What the judge's row says about the criterion, as a verdict row (None for nothing)."""
    if judged is None:
        return None
    fingerprint = judged.get("judge")
    if "void" in judged and isinstance(judged["void"], str):
        out = _verdict_row(row, criterion, "void", "nobody")
        out["reason"] = f"the judge's row is void: {judged['void']}"
        out["judge"] = fingerprint
        return out
    verdicts = [
        v for v in judged.get("criteria") or [] if not isinstance(v, str) and v.get("criterion") == criterion
    ]
    if len(verdicts) != 1 or verdicts[0].get("verdict") not in DECIDED:
        return None
    verdict = verdicts[0]
    why = not_counted(fingerprint, certificate)
    out = _verdict_row(
        row, criterion, "uncertified" if why else verdict["verdict"], "nobody" if why else "judge"
    )
    out["verdict"], out["evidence"], out["judge"] = verdict["verdict"], verdict.get("evidence"), fingerprint
    if why:
        out["reason"] = why
    return out


def not_counted(fingerprint: JudgeFingerprint | None, certificate: Certificate | None) -> str | None:
    """Why a judge's verdict does not count (None: it counts): no certificate, or a certificate
    for another judge (each differing field named)."""
    if certificate is None:
        return "no certificate for this judge (certify it: adhd-evals agree ... --certify)"
    differs = mismatches(certificate["fingerprint"], fingerprint)
    return "the certificate is for another judge: " + "; ".join(differs) if differs else None


def per_condition(rows: list[VerdictRow]) -> "dict[str, CriteriaCounts]":
    """condition -> {"criteria": n, "decided": {decider: {"pass", "fail"}}, "undecided": {status: n}}."""
    found: dict[str, CriteriaCounts] = {}
    for row in rows:
        counts = found.setdefault(row["condition"], {"criteria": 0, "decided": {}, "undecided": {}})
        counts["criteria"] += 1
        status = row["status"]
        if status == "pass" or status == "fail":  # DECIDED, spelled out so the type narrows
            by = counts["decided"].setdefault(row["decided_by"], {"pass": 0, "fail": 0})
            by[status] += 1
        else:
            counts["undecided"][status] = counts["undecided"].get(status, 0) + 1
    return dict(sorted(found.items()))


def summary_table(rows: list[VerdictRow]) -> list[str]:
    from ...text import table

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
