"""The record `verdicts` keeps beside its output, and the check that the output is still what it
wrote: who decided each criterion is worked out from the inputs every time, never read back
from a file a person could edit, so an edited verdicts file is refused (exit 42) and its
changed rows named. Apart from admission.py, which admits the judges those verdicts come from.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from ... import exitcodes
from ...files import read_limited
from ..rows import VerdictRow
from .agree import Refused

VERDICTS_RECORD = "adhd-evals verdicts file"


RECORD_SUFFIX = ".inputs.json"


def verdicts_record(
    out: Path, rows: list[VerdictRow], text: str, inputs: Mapping[str, Path | None]
) -> tuple[Path, str]:
    """The record `verdicts` writes beside its output: the output's hash, who decided each
    criterion, and its inputs' hashes, so an edit to who decided a criterion is caught (and
    named) when score reads the file."""
    record = {
        "verdicts": VERDICTS_RECORD,
        "version": 1,
        "sha256": hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(),
        "inputs": {
            role: {"path": str(path), "sha256": hashlib.sha256(read_limited(path)).hexdigest()}
            for role, path in inputs.items()
            if path is not None
        },
        "decided": [_decided(row) for row in rows],
    }
    return out.with_name(out.name + RECORD_SUFFIX), json.dumps(record, indent=2, ensure_ascii=False) + "\n"


def unedited(verdicts: Path) -> None:
    """A verdicts file with its record beside it must be what `verdicts` wrote: who decided each
    criterion is worked out from the inputs, never read back from a file a person edited."""
    path = verdicts.with_name(verdicts.name + RECORD_SUFFIX)
    if not path.exists():
        return
    try:
        record = json.loads(read_limited(path))
    except (OSError, ValueError, RecursionError) as exc:
        raise Refused(
            [f"{path}: cannot be read as the record of a verdicts file ({exc})"], exitcodes.JUDGE_LAUNDERED
        ) from exc
    if not isinstance(record, dict) or record.get("verdicts") != VERDICTS_RECORD:
        raise Refused([f"{path}: not the record of a verdicts file"], exitcodes.JUDGE_LAUNDERED)
    content = read_limited(verdicts)
    if hashlib.sha256(content).hexdigest() != record.get("sha256"):
        raise Refused(
            [
                f"{verdicts} was changed after 'verdicts' wrote it (its content is not what {path} records): "
                "who decided each criterion (decided_by) is worked out from the inputs, never read back "
                "from an edited file; run 'adhd-evals verdicts' again",
                *_changed(content, record.get("decided")),
            ],
            exitcodes.JUDGE_LAUNDERED,
        )


def _decided(row: Mapping[str, object]) -> list[object]:
    return [row.get(k) for k in ("case_id", "trial", "condition", "criterion", "status", "decided_by")]


def _changed(content: bytes, decided: object) -> list[str]:
    """The rows whose status or decider is not what `verdicts` decided, by line (at most 10)."""
    if not isinstance(decided, list):
        return []
    found = []
    for number, line in enumerate(content.decode("utf-8", "replace").splitlines(), start=1):
        try:
            row = json.loads(line)
        except ValueError:
            continue
        said = _decided(row) if isinstance(row, dict) else None
        was = decided[number - 1] if number <= len(decided) else None
        if said is not None and was != said:
            shown = f"{was[4]} by {was[5]}" if isinstance(was, list) and len(was) == 6 else "nothing"
            found.append(
                f"  line {number}: {said[0]} trial {said[1]} {said[2]} {said[3]!r}: {said[4]} by {said[5]}, where verdicts decided {shown}"
            )
    return found[:10]
