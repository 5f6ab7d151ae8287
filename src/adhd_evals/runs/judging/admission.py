"""A judge is admitted, never assumed: what the response hides, what the judge must fail, and
what a judge's file can never stand in for.

Hidden verdicts. A response can carry a verdict object the JSON scanner does not see (zero-width
characters inside it, fullwidth braces) which a judge then restates as plain JSON. So the
response and the answer are compared after the same normalisation (`normalised`: NFKC, format
characters, category Cf, dropped, whitespace collapsed), and verdict-shaped objects by what
they decide (`verdict_key`: metrics, blocker, criterion verdicts), never by their bytes: a copy
with its notes rewritten or its keys reordered is still the response's (hidden.py).

Controls. `judge --controls` adds rows a judge must fail (an empty response, instructions to
pass, one of them a hidden verdict, the criteria restated); a control passed is a leak, and a
leaky judge's output is refused (exit 40) unless allowed by name, and never certified.

Records. `judge` keeps its fingerprint and its controls beside its output (one judge per judged
file: judge_record.py); `verdicts` keeps the hash of what it wrote and who decided each
criterion. A judge's rows are refused as a person's labels, two inputs with the same content are
refused, and a verdicts file changed since it was written is refused (exit 42). The certificate's own floor is in
agree.py (`floor_problems`).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ... import exitcodes
from ...errors import InputInvalid
from ...files import read_limited
from ..rows import Certificate, JudgeFingerprint, SheetRow, VerdictRow, judge_filled
from .agree import Refused, agreement, mismatches, read_certificate, read_scored
from .controls import CONTROL_CASES as CONTROL_CASES  # judge's default, and the CLI's
from .controls import control_rows as control_rows  # judge adds them to its sheet
from .controls import controls_summary
from .controls import leak_lines as leak_lines  # score names a leaky judge's leak
from .hidden import looks_like_verdict as looks_like_verdict  # hidden verdicts: hidden.py
from .hidden import normalised as normalised
from .hidden import verdict_key as verdict_key
from .judge_record import SIDECAR as SIDECAR  # the judge's record beside its output: judge_record.py
from .judge_record import SIDECAR_SUFFIX as SIDECAR_SUFFIX
from .judge_record import claim as claim
from .judge_record import read_sidecar as read_sidecar
from .judge_record import record_controls as record_controls
from .judge_record import sidecar_path as sidecar_path
from .judge_record import write_sidecar as write_sidecar
from .records import RECORD_SUFFIX as RECORD_SUFFIX  # the verdicts record: records.py
from .records import unedited as unedited
from .records import verdicts_record as verdicts_record

if TYPE_CHECKING:
    from ..types import ControlsSummary
    from .shapes import JudgeRecord

Row = TypeVar("Row", bound=Mapping[str, object])  # a sheet row checked, or a score row as read


# A judged file, admitted -----------------------------------------------------------------------

ALLOW_LEAKY = "--allow-leaky-judge"


def admitted(path: Path, rows: list[Row], *, allow_leaky: bool) -> tuple[list[Row], list[str]]:
    """The rows of `path` that are cases, once the judge that filled them is admitted: one judge
    per file, the one its record names (when it has one), and no control passed unless
    `allow_leaky` (then the lines saying so, for every output they touch). Control rows are
    set aside: they are never scored as a case. A file no judge filled passes unchanged."""
    if not judge_filled(rows):
        return rows, []
    one_judge(path, rows)
    summary = controls_summary(rows)
    if sidecar_path(path).exists():
        recorded = read_sidecar(path)
        matches_record(path, rows, recorded["fingerprint"])
        summary = summary or recorded.get("controls")
    notes: list[str] = []
    if summary and summary["passed"]:
        lines = leak_lines(summary, str(path))
        if not allow_leaky:
            raise Refused(
                [*lines, f"Pass {ALLOW_LEAKY} to use its output anyway (every verdict it touches says so)."],
                exitcodes.JUDGE_LEAKY,
            )
        notes.append(
            f"{path}: a leaky judge, allowed with {ALLOW_LEAKY}: it passed {summary['passed']} of "
            f"{summary['rows']} controls it must fail"
        )
    return [r for r in rows if "control" not in r], notes


def one_judge(path: Path, rows: Sequence[Mapping[str, object]]) -> None:
    """The rows a judge filled are one judge's: a file that mixes judges is refused."""
    found = {json.dumps(r["judge"], sort_keys=True) for r in rows if "judge" in r}
    if len(found) > 1:
        raise Refused(
            [f"{path}: rows of {len(found)} judges in one judged file: one judge per file"],
            exitcodes.JUDGE_LAUNDERED,
        )


def matches_record(path: Path, rows: Sequence[Mapping[str, object]], recorded: JudgeFingerprint) -> None:
    """Every row's fingerprint is the one `judge` recorded beside the file: a fingerprint pasted
    onto another judge's rows is refused, row by row."""
    wrong = [(n, r.get("judge")) for n, r in enumerate(rows, start=1) if r.get("judge") != recorded]
    if wrong:
        raise Refused(
            [
                f"{path}: {len(wrong)} row(s) carry a judge fingerprint that is not the one 'judge' recorded "
                f"in {sidecar_path(path)} (a fingerprint copied onto another judge's rows counts for nothing):",
                *(f"  row {n}: {'; '.join(mismatches(recorded, given))}" for n, given in wrong[:10]),
            ],
            exitcodes.JUDGE_LAUNDERED,
        )


def recorded_judge(path: Path, rows: Sequence[Mapping[str, object]]) -> JudgeRecord:
    """The record beside a judged file whose verdicts may count (certified, or certifying): it
    must exist and name the judge of every row."""
    recorded = read_sidecar(path)
    matches_record(path, rows, recorded["fingerprint"])
    return recorded


def control_lines(summary: ControlsSummary, output: Path) -> list[str]:
    """How the judge did on its controls, as `judge` prints it."""
    if not summary["passed"]:
        return [
            f"Controls: the judge failed all {summary['rows']} controls ({summary['void']} void), as it must: "
            f"no leak (recorded in {sidecar_path(output)})."
        ]
    return [
        *leak_lines(summary, str(output)),
        f"Recorded in {sidecar_path(output)}: score and verdicts refuse this judge's output.",
    ]


# Labels are a person's ---------------------------------------------------------------------------

JUDGE_FIELDS = ("judge", "control", "void", "cost_usd")  # what only a judge's row carries


def person_labels(path: Path, rows: Sequence[Mapping[str, object]]) -> None:
    """Refuse a judge's output given as a person's labels: rows that carry a judge's fields (its
    fingerprint, a control, a void reason, a cost) are named, and a file with a judge's record
    beside it is refused whole."""
    marked = [(n, [f for f in JUDGE_FIELDS if f in r]) for n, r in enumerate(rows, start=1)]
    marked = [(n, fields) for n, fields in marked if fields]
    if not marked and not sidecar_path(path).exists():
        return
    shown = [f"  row {n}: {', '.join(fields)}" for n, fields in marked[:10]]
    more = [f"  ... and {len(marked) - 10} more"] if len(marked) > 10 else []
    raise Refused(
        [
            f"{path}: a judge's output given as a person's labels (a judged file is not a person's labels; "
            f"label the sheet 'blind' wrote){'' if marked else f': {sidecar_path(path)} records the judge that wrote it'}"
            + (f": {len(marked)} row(s) carry what only a judge's row does:" if marked else ""),
            *shown,
            *more,
        ],
        exitcodes.JUDGE_LAUNDERED,
    )


def distinct(inputs: Mapping[str, Path | None]) -> None:
    """Refuse two inputs with the same content (a judge against itself, labels given twice)."""
    seen: dict[str, str] = {}
    for role, path in inputs.items():
        if path is None or not path.is_file():
            continue
        digest = hashlib.sha256(read_limited(path)).hexdigest()
        if digest in seen:
            raise Refused(
                [
                    f"{path} ({role}) has the same content as the {seen[digest]}: one file on both sides "
                    "agrees with itself and proves nothing"
                ],
                exitcodes.JUDGE_LAUNDERED,
            )
        seen[digest] = f"{role} {path}"


def certifiable(path: Path, rows: list[SheetRow]) -> tuple[list[SheetRow], ControlsSummary | None]:
    """For `agree --certify`: the judged file's case rows and how the judge did on its controls.
    The file's record must name the judge of every row; a judge that passed a control is refused
    (exit 40): a leaky judge is never certified."""
    recorded = recorded_judge(path, rows)
    summary = controls_summary(rows) or recorded.get("controls")
    if summary and summary["passed"]:
        raise Refused(
            [*leak_lines(summary, str(path)), "A leaky judge is never certified."], exitcodes.JUDGE_LEAKY
        )
    return [r for r in rows if "control" not in r], summary


# What verdicts, score and report read -------------------------------------------------------------


class Admitted:
    """The inputs of `verdicts` once admitted: a person's labels, the judge's case rows, the
    certificate, and what must be said in every verdict a leaky judge touches. A plain class, not
    a dataclass: dataclasses imports inspect, about 8 ms of agree's start-up of about 70."""

    def __init__(self, *, certificate: Certificate | None) -> None:
        self.labels: list[tuple[Path, list[SheetRow]]] = []
        self.judged: list[SheetRow] | None = None
        self.certificate = certificate
        self.notes: list[str] = []


def admit_inputs(
    labels: list[Path], judged: Path | None, certificate: Path | None, *, allow_leaky: bool
) -> Admitted:
    """Labels that are a person's, distinct inputs, a judged file whose record names its judge
    (when a certificate could let it count), a certificate above the floor whose figures its
    labelled sample (when given) bears out, and a judge that passed no control (unless allowed)."""
    distinct({**{f"labels {n}": p for n, p in enumerate(labels, start=1)}, "judged sheet": judged})
    found = Admitted(certificate=read_certificate(certificate) if certificate is not None else None)
    for path in labels:
        rows = read_scored(path)
        person_labels(path, rows)
        found.labels.append((path, rows))
    if judged is not None:
        rows = read_scored(judged)
        if found.certificate is not None:
            recorded_judge(judged, rows)
        found.judged, found.notes = admitted(judged, rows, allow_leaky=allow_leaky)
        if found.certificate is not None:
            against_labels(found.certificate, found.judged, found.labels)
    return found


def against_labels(
    certificate: Certificate, judged: list[SheetRow], labels: list[tuple[Path, list[SheetRow]]]
) -> None:
    """When the labelled sample the certificate names (by its hash) is among the labels given,
    its figures must be what that sample gives with these judged rows."""
    for path, rows in labels:
        try:
            found = agreement(judged, rows)
        except InputInvalid:  # no row in common: not the certificate's sample
            continue
        if found["sample"]["sha256"] != certificate["sample"]["sha256"]:
            continue
        differ = [
            f"  - {what} {name.upper()}: {certificate['figures'][what][name]['k']} of "
            f"{certificate['figures'][what][name]['n']} in the certificate, {rate['k']} of {rate['n']} on {path}"
            for what, named in found["rates"].items()
            for name, rate in named.items()
            if (rate["k"], rate["n"])
            != (certificate["figures"][what][name]["k"], certificate["figures"][what][name]["n"])
        ]
        if differ:
            raise Refused(
                [f"the certificate's figures are not what its own labelled sample ({path}) gives:", *differ],
                exitcodes.JUDGE_LAUNDERED,
            )


def mark_leaky(rows: list[VerdictRow], notes: list[str]) -> list[VerdictRow]:
    """Every verdict a leaky judge touched (decided, shown, or void) says it was allowed."""
    if not notes:
        return rows
    said = "; ".join(notes)
    return [{**r, "leaky_judge": said} if "judge" in r or "judge" in r.get("others", {}) else r for r in rows]


def judged_for_agree(
    path: Path, rows: list[SheetRow], *, certify: bool
) -> tuple[list[SheetRow], ControlsSummary | None]:
    """What `agree` compares with the person: the judged file's case rows (its controls set
    aside), and how the judge did on those controls; to certify, the file's record must name its
    judge and no control may have been passed (see `certifiable`)."""
    if certify:
        return certifiable(path, rows)
    return [r for r in rows if "control" not in r], controls_summary(rows)


def merged_record(shards: list[Path], output: Path) -> dict[Path, str]:
    """What `merge` writes beside the merged file when its shards are a judge's: one record with
    the judge's fingerprint and the shards' controls added up; nothing when no shard has one.
    Shards of different judges (or some with a record and some without) are refused."""
    have = [path for path in shards if sidecar_path(path).exists()]
    if not have:
        return {}
    records = [read_sidecar(path) for path in have]
    prints = {json.dumps(r["fingerprint"], sort_keys=True) for r in records}
    if len(have) < len(shards) or len(prints) > 1:
        raise Refused(
            [
                "the shards are not one judge's: "
                + (
                    "their records name different judges"
                    if len(prints) > 1
                    else "some have no judge's record beside them"
                )
                + " (one judge per judged file)"
            ],
            exitcodes.JUDGE_LAUNDERED,
        )
    found = [given for r in records if (given := r.get("controls"))]
    controls: ControlsSummary | None = None
    if found:
        rows, passed = sum(c["rows"] for c in found), sum(c["passed"] for c in found)
        kinds: Counter[str] = Counter()
        for c in found:
            kinds.update(c["kinds"])
        controls = {
            "rows": rows,
            "void": sum(c["void"] for c in found),
            "passed": passed,
            "leak_rate": passed / rows,
            "kinds": dict(sorted(kinds.items())),
            "leaks": [leak for c in found for leak in c["leaks"]],
        }
    record = records[0]
    record["controls"] = controls
    return {sidecar_path(output): json.dumps(record, indent=2, ensure_ascii=False) + "\n"}
