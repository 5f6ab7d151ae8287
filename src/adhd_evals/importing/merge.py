"""Re-import into a check module a person already owns, losing nothing they wrote.

The module is a run of regions, each closed by a marker line
`# adhd-evals: <kind> <key> <fingerprint>` (see checkgen.Unit). A region
whose text still has its fingerprint is untouched: the generator owns it and
regenerates it from the new source without parsing it. A region whose text
changed was edited by a person: it is kept verbatim, marker and all, so the
next re-import still sees it as edited. Only those edited or orphaned regions
are read with ast (to learn which cases they register); the proven-
untouched rest is never parsed. Text after the last marker is the person's
too, and stays at the end.

- a case that vanished from the source: all its regions are kept and
  reported, unless `prune` is set;
- a generated check whose criterion left the source: dropped when untouched,
  kept (and reported) when edited;
- new cases and criteria: added in source order.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import OutputError
from .checkgen import MARKER, Unit, assemble, comment, fingerprint, region, units
from .merge_report import MergeReport
from .model import ImportResult
from .registrations import registered_in

if TYPE_CHECKING:
    from .generated import Generated

_MARKER_LINE = re.compile(rf"^{re.escape(MARKER)}(preamble|case|check) (\S+) ([0-9a-f]{{16}})$", re.MULTILINE)


@dataclass
class Region:
    """A region of the existing module, as read (never changed once read). Not a frozen
    dataclass: that sets each field through object.__setattr__ (1.6 us a region against 0.5),
    and a module of 200,000 cases holds close to a million regions."""

    kind: str
    key: str
    text: str  # everything between the previous marker line and this one
    marker: str
    as_written: bool  # its text hashes to its marker's fingerprint: exactly as an import wrote it

    @property
    def print_(self) -> str:
        return self.marker.rsplit(" ", 1)[1]

    @functools.cached_property
    def untouched(self) -> bool:
        """As generated, or only reformatted (a formatter is not a person: see generated.py)."""
        if self.as_written:
            return True
        from .generated import formatted_only

        return formatted_only(self.kind, self.text, self.print_)

    @functools.cached_property
    def generated(self) -> Generated | None:
        """In a check region: the function the import wrote (see generated.py)."""
        from .generated import generated_function

        return generated_function(self.text, self.key, self.print_) if self.kind == "check" else None

    @property
    def case_key(self) -> str:
        return self.key.split(".", 1)[0]


def _refuse_disorder(text: str, regions: list[Region], starts: list[int]) -> None:
    """Markers the merge cannot trust: a repeated key, or one out of the order the
    generator writes (the preamble first and only once; checks after a case)."""
    seen: set[tuple[str, str]] = set()
    cases_seen = False
    for index, (found, start) in enumerate(zip(regions, starts, strict=True)):
        problem = None
        if (found.kind, found.key) in seen:
            problem = f"repeats the key of an earlier {found.kind} marker"
        elif (index == 0) != (found.kind == "preamble"):
            problem = "is out of order (the preamble's marker comes first, and only once)"
        elif found.kind == "check" and not cases_seen:
            problem = "is out of order (a check's marker comes after a case's marker)"
        if problem:
            line = text.count("\n", 0, start) + 1
            raise OutputError(
                f"the existing check module's marker on line {line} {problem}; "
                "markers are written by adhd-evals: restore it, or move checks.py aside"
            )
        seen.add((found.kind, found.key))
        cases_seen = cases_seen or found.kind == "case"


def split(text: str) -> tuple[list[Region], str]:
    """The regions of a module, and the text after its last marker."""
    regions: list[Region] = []
    starts: list[int] = []
    start = 0
    for match in _MARKER_LINE.finditer(text):
        found = text[start : match.start()]
        as_written = fingerprint(found) == match.group(3)
        regions.append(Region(match.group(1), match.group(2), found, match.group(0), as_written))
        starts.append(match.start())
        start = match.end() + 1
    _refuse_disorder(text, regions, starts)
    return regions, text[start:]


def _case_label(region_: Region, by_case: dict[str, list[Region]]) -> str:
    for candidate in by_case.get(region_.case_key, []):
        ids = registered_in(candidate.text) if candidate.kind == "check" else []
        if ids:
            return ids[0]
    first = next((line for line in region_.text.splitlines() if line.startswith("# case ")), "")
    return first[len("# case ") :] or region_.case_key


def merge(
    existing: str, result: ImportResult, *, prune: bool = False, old_prompts: dict[str, str] | None = None
) -> tuple[str, MergeReport]:
    """The new module text, keeping every region a person edited (and moving an edited
    check to its criterion when the source reworded it: see retarget.py)."""
    old, trailing = split(existing)
    if not old:  # not a module this tool wrote: never guess, never overwrite
        raise OutputError(
            "the existing check module has no '# adhd-evals:' markers, so a re-import "
            "cannot tell what it generated; move it aside and import again"
        )
    report = MergeReport()
    fresh = units(result)
    old_by_key = {r.key: r for r in old}
    # A module written before keys were 64 bits wide is matched by its old keys.
    new_keys = {key for u in fresh for key in (u.key, u.legacy_key) if key}
    new_cases = {key.split(".", 1)[0] for key in new_keys if key != "-"}
    previous = {u.key: old_by_key.get(u.key) or old_by_key.get(u.legacy_key or u.key) for u in fresh}
    moves = _retargets(old, fresh, previous, new_keys, result, old_prompts or {})
    parts = [
        _moved(unit, moves[unit.key], report)
        if unit.key in moves
        else _choose(unit, previous[unit.key], i == 0, report)
        for i, unit in enumerate(fresh)
    ]
    consumed = {region.key for region, _ in moves.values()}
    # A renamed case whose checks moved leaves nothing of a person's behind: its untouched
    # comments go with it (an edited piece would stay, as ever).
    moved_from = {region.case_key for region, _ in moves.values()} - new_cases
    remaining = [r for r in old if r.key not in consumed and not (r.case_key in moved_from and r.untouched)]
    leftovers, moved = _leftovers(remaining, new_keys, new_cases, prune, report)
    kept_text = "".join(moved)
    merged = assemble(parts + leftovers) + kept_text + trailing
    if parts and parts[0][1] in report.kept_markers:  # a preamble a person edited: can its checks run?
        _refuse_missing_helpers(parts[0][0] + kept_text + trailing, result)
    if old[0].print_ != fingerprint(fresh[0].text):  # the generated helpers changed (a dialect came or went)
        kept = [text for text, marker in parts[1:] if marker in report.kept_markers]
        _refuse_lost_helpers(parts[0][0], [*kept, *(text for text, _ in leftovers), kept_text, trailing])
    # What the generator wrote is safe by construction; only what a person wrote can break
    # the module, so only that is compiled (a 50,000-case module is never parsed whole).
    written_by_people = [text for text, marker in parts if marker in report.kept_markers]
    _refuse_broken([*written_by_people, *(text for text, _ in leftovers), kept_text, trailing], merged)
    return merged, report


def _retargets(
    old: list[Region],
    fresh: list[Unit],
    previous: dict[str, Region | None],
    new_keys: set[str],
    result: ImportResult,
    old_prompts: dict[str, str],
) -> dict[str, tuple[Region, str]]:
    """Fresh check units -> (an edited orphan, its retargeted text), where the match is sure."""
    from .retarget_pairing import Old, pair

    old_cases, new_cases = _checks_by_case(old, fresh)
    pairs = _moved_cases(old_cases, new_cases, result, old_prompts)
    pairs |= {key: key for key in new_cases if key in old_cases}
    moves: dict[str, tuple[Region, str]] = {}
    for new_case, old_case in pairs.items():
        regions, units_ = old_cases.get(old_case, []), new_cases[new_case]
        olds = [
            Old(found.key, found.generated.case_id, found.generated.criterion, position)
            for position, found in enumerate(regions)
            # Only the function the import wrote follows a reworded criterion: what it registers
            # decides the pairing, never a check a person added beside it.
            if found.key not in new_keys and not found.untouched and found.generated is not None
        ]
        open_units = [(u.key, u.criterion, i) for i, u in enumerate(units_) if previous[u.key] is None]
        by_key = {u.key: u for u in units_}
        for old_key, unit_key in pair(olds, open_units, len(regions), len(units_)).items():
            orphan = next(r for r in regions if r.key == old_key)
            text = _moved_text(orphan, by_key[unit_key])
            if text is not None:
                moves[unit_key] = (orphan, text)
    return moves


def _checks_by_case(
    old: list[Region], fresh: list[Unit]
) -> tuple[dict[str, list[Region]], dict[str, list[Unit]]]:
    """The old module's check regions and the fresh check units, each by case (an old region
    under the case key its legacy key now names)."""
    legacy_case = {u.legacy_key.split(".", 1)[0]: u.key.split(".", 1)[0] for u in fresh if u.legacy_key}
    old_cases: dict[str, list[Region]] = {}
    for found in old:
        if found.kind == "check":
            old_cases.setdefault(legacy_case.get(found.case_key, found.case_key), []).append(found)
    new_cases: dict[str, list[Unit]] = {}
    for unit in fresh:
        if unit.kind == "check":
            new_cases.setdefault(unit.key.split(".", 1)[0], []).append(unit)
    return old_cases, new_cases


def _moved_text(orphan: Region, unit: Unit) -> str | None:
    """An edited orphan's text for the unit it pairs with (None: not sure it can follow)."""
    from .retarget import retarget

    generated = orphan.generated
    assert generated is not None
    if generated.untouched:  # a person only added beside it: regenerate it in place
        return _spliced(orphan.text, generated, unit.text)
    return retarget(orphan.text, generated.name, unit.case_id, unit.criterion, unit.name)


def _spliced(text: str, generated: Generated, replacement: str | None) -> str:
    """`text` with the generated function's lines replaced (or removed), every other line as it is."""
    lines = text.split("\n")
    middle = [] if replacement is None else replacement.split("\n")
    return "\n".join(lines[: generated.first - 1] + middle + lines[generated.last :])


def _moved_cases(
    old_cases: dict[str, list[Region]],
    new_cases: dict[str, list[Unit]],
    result: ImportResult,
    old_prompts: dict[str, str],
) -> dict[str, str]:
    """New case key -> old case key, for a case whose id changed but whose prompt did not."""
    gone = {key for key in old_cases if key not in new_cases}
    if not gone or not old_prompts:
        return {}
    old_by_prompt: dict[str, list[str]] = {}
    for key in gone:
        ids = {found.generated.case_id for found in old_cases[key] if found.generated is not None}
        prompt = old_prompts.get(ids.pop()) if len(ids) == 1 else None
        if prompt is not None:
            old_by_prompt.setdefault(prompt, []).append(key)
    new_by_prompt: dict[str, list[str]] = {}
    for case in result.cases:
        new_key = next((u.key.split(".", 1)[0] for u in new_cases.get(_case_key(case.id), [])), None)
        if new_key is not None and new_key not in old_cases:
            new_by_prompt.setdefault(case.prompt, []).append(new_key)
    return {
        new[0]: old_by_prompt[prompt][0]
        for prompt, new in new_by_prompt.items()
        if len(new) == 1 and len(old_by_prompt.get(prompt, [])) == 1
    }


def _case_key(case_id: str) -> str:
    from .checkgen import short_hash

    return short_hash(case_id)


def _moved(unit: Unit, move: tuple[Region, str], report: MergeReport) -> tuple[str, str]:
    """An edited check retargeted to its reworded criterion: still the person's (edited);
    one whose generated function was untouched carries the fresh function's fingerprint."""
    region, text = move
    generated = region.generated
    print_ = fingerprint(unit.text) if generated is not None and generated.untouched else region.print_
    marker = f"{MARKER}check {unit.key} {print_}"
    report.retargeted.append(unit.key)
    report.kept_markers.add(marker)
    return text, marker


def _choose(unit: Unit, previous: Region | None, first: bool, report: MergeReport) -> tuple[str, str]:
    if previous is None:
        report.added += 1
        return region(unit, first=first), unit.marker
    if not previous.untouched:
        report.kept_edited.append(unit.key)
        if unit.kind == "preamble":
            text, marker = _preamble(unit, previous)
        elif (generated := previous.generated) is not None and generated.untouched:
            # A person added beside the generated function: it is regenerated, the rest kept.
            text, marker = _spliced(previous.text, generated, unit.text), unit.marker
        else:
            # Kept as the person left it; a 32-bit key of an older module becomes today's key
            # (the fingerprint stays, so the region still reads as edited next time).
            text, marker = previous.text, previous.marker.replace(f" {previous.key} ", f" {unit.key} ", 1)
        report.kept_markers.add(marker)
        return text, marker
    report.regenerated += 1
    fresh = region(unit, first=first)
    return (previous.text, previous.marker) if _as_before(unit, previous, fresh) else (fresh, unit.marker)


def _as_before(unit: Unit, previous: Region, fresh: str) -> bool:
    """An untouched region that is generated again exactly as it was: its marker is the one the
    unit would write (the same text hashes to the same fingerprint), so it is not hashed again.
    Only a region whose text hashed to its marker's fingerprint: one a formatter only reformatted
    carries an older fingerprint, which the fresh marker replaces."""
    return (
        previous.as_written
        and previous.text == fresh
        and previous.marker == f"{MARKER}{unit.kind} {unit.key} {previous.print_}"
    )


def _preamble(unit: Unit, previous: Region) -> tuple[str, str]:
    """An edited preamble: the generated part updated, the person's lines kept where they
    were (a three-way merge against what was generated), or a refusal naming them."""
    from .generated import generated_preamble
    from .threeway import Conflict, three_way

    base = generated_preamble(previous.text, previous.print_)
    if base is None or base == unit.text:  # nothing to update, or no telling what was generated
        return previous.text, previous.marker
    try:
        merged = three_way(base, previous.text.strip("\n"), unit.text)
    except Conflict as conflict:
        raise OutputError(
            f"the check module's preamble has lines a person changed ({conflict.where}) where this "
            "import changes the generated helpers too, so they cannot be kept in place: move them "
            "below the preamble's '# adhd-evals:' line (or move checks.py aside) and import again"
        ) from None
    return merged + "\n\n\n", unit.marker


def _refuse_missing_helpers(kept: str, result: ImportResult) -> None:
    """A preamble a person edited must still define every helper the checks call:
    never a module whose checks fail with NameError."""
    from .generated import defined_names

    defined = defined_names(kept)
    if defined is None:  # no telling (a star import, a piece that parses only with its neighbours)
        return
    needed = {"check"} | {item.kind.value for case in result.cases for item in case.checks}
    missing = sorted(needed - defined)
    if missing:
        raise OutputError(
            "the check module's preamble was edited, and this import's checks call "
            f"{', '.join(missing)}, which it does not define; restore the preamble (or move "
            "checks.py aside) and import again"
        )


def _refuse_lost_helpers(preamble: str, kept: list[str]) -> None:
    """Code kept from before (edited checks, a vanished case's regions, moved lines) must
    still find the generated helpers it calls once the preamble's helpers change."""
    from .generated import called_names, defined_names, helper_names

    called = set().union(*(called_names(text) for text in kept)) & helper_names()
    if not called:
        return
    defined: set[str] = set()
    for text in [preamble, *kept]:
        found = defined_names(text)
        if found is None:  # no telling what it defines
            return
        defined |= found
    missing = sorted(called - defined)
    if missing:
        raise OutputError(
            f"checks kept in the check module call {', '.join(missing)}, which the helpers this import "
            "generates do not define (the dialect changed); import with the dialect that made them, "
            "prune the cases that left (--prune), or move checks.py aside"
        )


def _leftovers(
    old: list[Region], new_keys: set[str], new_cases: set[str], prune: bool, report: MergeReport
) -> tuple[list[tuple[str, str]], list[str]]:
    """Regions the new source has no place for: kept (with their markers), and under
    `prune`, the lines a person wrote in a pruned case's regions (moved, without markers)."""
    kept: list[tuple[str, str]] = []
    moved: list[str] = []
    gone = [r for r in old if r.key not in new_keys and r.kind != "preamble"]
    by_case: dict[str, list[Region]] = {}
    for leftover in gone:
        by_case.setdefault(leftover.case_key, []).append(leftover)
    labelled: set[str] = set()
    for leftover in gone:
        if leftover.case_key in new_cases:  # the case stayed; this criterion left
            if not leftover.untouched:
                report.kept_orphans.append(leftover.key)
                kept.append((leftover.text, leftover.marker))
            continue
        label = _case_label(leftover, by_case)
        if leftover.case_key not in labelled:
            labelled.add(leftover.case_key)
            (report.pruned_cases if prune else report.vanished_cases).append(label)
        if not prune:
            kept.append((leftover.text, leftover.marker))
            continue
        if leftover.untouched:  # all the import's: pruned
            continue
        if (generated := leftover.generated) is not None and not generated.untouched:
            report.pruned_edited.append(generated.name)  # pruned as asked, and named
        if rest := _written_by_a_person(leftover).strip("\n"):
            report.moved.append((label, len([line for line in rest.split("\n") if line.strip()])))
            note = comment(
                f"Kept by adhd-evals from pruned case {label} (--prune): written beside its checks."
            )
            moved.append("\n\n" + "\n".join(note) + "\n" + rest + "\n")
    return kept, moved


def _written_by_a_person(leftover: Region) -> str:
    """A pruned region without what the import wrote in it (all of it, when that cannot be told)."""
    from .generated import generated_comments

    if leftover.kind == "check":
        generated = leftover.generated
        return leftover.text if generated is None else _spliced(leftover.text, generated, None)
    return generated_comments(leftover.text, leftover.print_)


def _refuse_broken(pieces: list[str], merged: str) -> None:
    """Compile each piece a person wrote; if one only makes sense with its neighbours
    (a construct spanning two regions), fall back to compiling the whole module."""
    try:
        for piece in pieces:
            if piece.strip():
                compile(piece, "checks.py", "exec", dont_inherit=True)
        return
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    try:
        compile(merged, "checks.py", "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise OutputError(
            f"the merged check module would not compile (line {exc.lineno}: {exc.msg}); "
            "the existing checks.py likely has a syntax error there: fix it and import again"
        ) from exc
    except (ValueError, RecursionError, MemoryError) as exc:  # a NUL byte; nesting past the compiler
        raise OutputError(
            f"the merged check module would not compile ({_why(exc)}); "
            "fix the existing checks.py and import again"
        ) from exc


def _why(exc: BaseException) -> str:
    if isinstance(exc, ValueError):
        return str(exc)
    return "an expression nested too deeply for Python's compiler"


__all__ = ["MARKER", "MergeReport", "merge", "split"]
