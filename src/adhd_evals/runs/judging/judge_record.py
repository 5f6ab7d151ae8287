"""The record `judge` keeps beside its output (one judge per judged file): the judge's
fingerprint, claimed before any row is judged, and how it did on its controls, written after.
Apart from admission.py, which reads these records to admit a judged file: a judge, even one
resumed with every row already there, needs only this.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ... import exitcodes
from ...catalog import read_object_rows
from ...files import read_limited
from ...output import write_all_atomically
from ..calling.shard import JUDGE_RECORD_SUFFIX
from .certificates import FINGERPRINT, Refused, mismatches
from .controls import controls_summary, is_summary

if TYPE_CHECKING:
    from ..rows import JudgeFingerprint
    from ..types import ControlsSummary
    from .shapes import JudgeRecord

SIDECAR_SUFFIX = JUDGE_RECORD_SUFFIX
SIDECAR = "adhd-evals judged file"


def sidecar_path(judged: Path) -> Path:
    return judged.with_name(judged.name + SIDECAR_SUFFIX)


def claim(output: Path, fingerprint: JudgeFingerprint) -> None:
    """Record `fingerprint` beside `output` before judging into it: one judge per judged file. A
    file another judge wrote into (by its record, or by its rows when it has none) is refused."""
    path = sidecar_path(output)
    if path.exists():
        recorded = read_sidecar(output)["fingerprint"]
        if recorded != fingerprint:
            raise Refused(
                [
                    f"{output} was judged by another judge ({path} records "
                    f"{'; '.join(mismatches(recorded, fingerprint))}): one judge per judged file, "
                    "write to a new one"
                ],
                exitcodes.JUDGE_LAUNDERED,
            )
        return
    if output.exists() and output.stat().st_size:
        others = [r.get("judge") for r in read_object_rows(output) if r.get("judge") != fingerprint]
        if others:
            raise Refused(
                [f"{output} holds rows of another judge: one judge per judged file, write to a new one"],
                exitcodes.JUDGE_LAUNDERED,
            )
    write_sidecar(output, {"judged": SIDECAR, "version": 1, "fingerprint": fingerprint, "controls": None})


def write_sidecar(output: Path, record: JudgeRecord) -> None:
    write_all_atomically({sidecar_path(output): json.dumps(record, indent=2, ensure_ascii=False) + "\n"})


def read_sidecar(judged: Path) -> JudgeRecord:
    """The record `judge` keeps beside its output: the judge's fingerprint and its controls."""
    path = sidecar_path(judged)
    try:
        data = json.loads(read_limited(path))
    except FileNotFoundError:
        raise Refused(
            [
                f"{judged}: no {path} beside it, so nothing says which judge wrote its rows (a "
                "judged file is what 'adhd-evals judge' writes, with its record beside it)"
            ],
            exitcodes.JUDGE_LAUNDERED,
        ) from None
    except (OSError, ValueError, RecursionError) as exc:
        raise Refused(
            [f"{path}: cannot be read as a judge's record ({exc})"], exitcodes.JUDGE_LAUNDERED
        ) from exc
    if (
        not isinstance(data, dict)
        or data.get("judged") != SIDECAR
        or not _is_fingerprint(data.get("fingerprint"))
    ):
        raise Refused([f"{path}: not a judge's record of its output"], exitcodes.JUDGE_LAUNDERED)
    if data.get("controls") is not None and not is_summary(data["controls"]):
        raise Refused(
            [
                f"{path}: its controls are not a record of controls (rows, void, passed, leak_rate, kinds, leaks)"
            ],
            exitcodes.JUDGE_LAUNDERED,
        )
    # checked: its kind, its fingerprint's fields (compared whole, never read one by one), its controls
    return cast("JudgeRecord", data)


def _is_fingerprint(value: object) -> bool:
    return isinstance(value, dict) and set(value) == set(FINGERPRINT)


# The controls' record (the controls themselves: controls.py) ---------------------------------


def record_controls(output: Path) -> ControlsSummary | None:
    """Write how the judge did on the controls in `output` into its record; what was written."""
    summary = controls_summary(read_object_rows(output)) if output.exists() else None
    record = read_sidecar(output)
    record["controls"] = summary
    write_sidecar(output, record)
    return summary
