"""The common evals-json case, read in one step: an integer or text id, a text prompt and a
non-empty `assertions` list, in a file read without a dialect and with no lone surrogate in it.

Most cases of most files are this case, and the general reader (`_FileReading.case`) reads it
through a dozen calls, each asking about a dialect's alternatives, dotted paths, trigger cases and
refusals that cannot apply. `plain_case` makes exactly the Case the general reader makes of it
(tests/test_perf_import2_plain.py holds it to that), and None for anything else: the general
reader then reads that case, and finds what is wrong with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import Case, Check, Note
from ._common import placeholder
from ._typed import Reading

if TYPE_CHECKING:
    from ._evals_json_cases import _FileReading

FILES_REMARK = (
    "fixture files are not copied into the catalog: the prompt may refer to files the model will not see"
)

# The keys the format reads: every other key of a case becomes a note. `expectations` is the
# other spelling of the assertion list; a case holding it is the general reader's.
_READ = frozenset({"id", "prompt", "assertions", "expectations"})


def plain_case(
    file: _FileReading, raw: dict[str, object], index: int, at: tuple[str | int, ...]
) -> Case | None:
    """The case as `file.case` reads it, or None when it is not the common case."""
    id_value = raw.get("id")
    if type(id_value) is int:  # not a bool: its type is bool
        label, case_id = f"case {id_value}", f"{file.id_prefix}-{id_value}"
    elif type(id_value) is str and id_value.strip():
        label = f'case "{id_value}"'
        case_id = f"{file.id_prefix}-{id_value}" if id_value.isdigit() else id_value
    else:
        return None
    prompt, items = raw.get("prompt"), raw.get("assertions")
    if not (type(prompt) is str and prompt.strip()) or type(items) is not list or not items:
        return None
    if "expectations" in raw or "should_trigger" in raw:
        return None
    checks, notes = _listed(file, label, at, items)
    for key, value in raw.items() if len(raw) > 3 else ():  # three: id, prompt and assertions alone
        if key not in _READ:
            remark = FILES_REMARK if key == "files" and value else ""
            if type(value) is dict or type(value) is list:  # note() refuses one nested too deep
                notes.append(Reading(file.refuse, label, at).note(key, value, (*at, key), remark))
            else:
                notes.append(Note(key, value, remark))
    origin = f"{file.display}, {label}"
    return Case(case_id, file.file_category, prompt, file.risk, tuple(checks), tuple(notes), origin)


def _listed(
    file: _FileReading, label: str, at: tuple[str | int, ...], items: list[object]
) -> tuple[list[Check], list[Note]]:
    """The assertion list's checks and notes, as `file.listed` makes them (one check an item).
    The case's Reading is built at its first item that is not prose: many lists hold none."""
    checks: list[Check] = []
    notes: list[Note] = []
    reading: Reading | None = None
    for position, item in enumerate(items):
        if type(item) is str and item and not item.isspace():  # prose: no surrogate in this file
            checks.append(placeholder(item))
            continue
        if reading is None:
            reading = Reading(file.refuse, label, at)
        check, extra = file.assertion(
            reading, item, f"assertions[{position}]", (*reading.at, "assertions", position)
        )
        checks.append(check)
        notes += extra
    return checks, notes
