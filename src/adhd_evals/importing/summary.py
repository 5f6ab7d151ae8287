"""The summary a person reads on stderr after an import."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ..text import plural
from ..triggering import polarity
from .formats._common import NO_TESTS, SUCCESS_VIA
from .model import TRACE_KINDS, ImportResult

if TYPE_CHECKING:
    from .importer import ImportOutcome


def import_summary(result: ImportResult) -> list[str]:
    # Every check's `via` counted in one pass (with a `via` of SUCCESS_VIA, "trigger" or a rule's
    # label): the lines below walk the cases again only when a count says there is something to find.
    vias = Counter(check.via for case in result.cases for check in case.checks)
    cases = len(result.cases)
    lines = [
        f"Read {plural(cases, 'case')} from {result.origin} ({result.format}), "
        f"converted {plural(result.converted, 'assertion')} into checks."
    ]
    if result.unconverted:
        lines.append(
            f"{plural(result.unconverted, 'assertion')} could not be converted and "
            f"{'needs' if result.unconverted == 1 else 'need'} a human: "
            "each is written as prose, and its check fails until you write it."
        )
    if result.cases_without_criteria:
        lines.append(
            f"{plural(result.cases_without_criteria, 'case')} had no criteria in the source; "
            "each got one placeholder that fails until you say what a good answer is."
        )
    from_success = vias[SUCCESS_VIA] and sum(
        any(c.via == SUCCESS_VIA for c in case.checks) for case in result.cases
    )
    if from_success:
        lines.append(
            f"{plural(from_success, 'case')}: criteria from expected_output (the source's statement "
            "of success, judged as prose; --no-default-criteria keeps it a note)."
        )
    untested = sum(case.origin.endswith(NO_TESTS) for case in result.cases)
    if untested:
        lines.append(
            f"The config has no tests: {plural(untested, 'case')}, one per prompt, with no vars "
            "(as promptfoo runs it)."
        )
    lines += _trigger_lines(result) if vias["trigger"] else []
    if result.risk_was_default:
        lines.append(
            f"Risk: {result.risk} for every case (the default: no source format "
            "carries risk; pass --risk low|medium|high to choose)."
        )
    else:
        lines.append(f"Risk: {result.risk} for every case (from --risk).")
    if len(result.sources) > 1:
        lines += _source_lines(result.sources)
    lines += _dialect_lines(result, vias)
    lines += _left_out_lines(result)
    lines.append(f"Kept {plural(result.notes, 'source field')} as notes in the check module.")
    with_files = _with_files(result)
    if with_files:
        lines.append(
            f"{plural(with_files, 'case')} name fixture files; the files were not copied, "
            "so give the model what the prompt refers to before you run them."
        )
    return lines


def _with_files(result: ImportResult) -> int:
    """How many cases name fixture files (a `files` note that is not empty)."""
    if not any(note.key == "files" and note.value for case in result.cases for note in case.notes):
        return 0  # one pass over every note: most imports have none
    return sum(any(n.key == "files" and n.value for n in case.notes) for case in result.cases)


def _trigger_lines(result: ImportResult) -> list[str]:
    """Per skill, how many trigger cases should invoke it and how many should not."""
    counts: dict[str, Counter[bool]] = {}
    for case in result.cases:
        for check in case.checks:
            found = polarity(check.criterion) if check.via == "trigger" else None
            if found is not None:
                counts.setdefault(found[0], Counter())[found[1]] += 1
    lines = [
        f"Trigger cases for the skill {skill}: {count[True]} should invoke it, {count[False]} should not."
        for skill, count in counts.items()
    ]
    if lines:
        lines.append(
            "Each is decided by tool_used over the run's trace: run them with a runner that records "
            "tool calls (response_format claude-stream-json, codex-jsonl or trace-jsonl; docs/traces.md)."
        )
    return lines


def _dialect_lines(result: ImportResult, vias: Counter[str]) -> list[str]:
    """Per dialect rule, what it converted; by shape, what stayed a placeholder (`vias`: every
    check's `via`, counted)."""
    made = vias.copy()
    del made[""]  # checks no rule or shape made (the order of the rest is kept)
    lines = []
    if result.dialect is not None:
        lines.append(f"Dialect {result.dialect.display}:")
        for rule in result.dialect.rules:
            what = "kept as placeholders" if rule.check == "unwritten" else "converted"
            lines.append(f"  {rule.label}: {made[rule.label]} {what}")
        skipped = Counter(label for case in result.cases for label in case.skipped)
        for place in result.dialect.cases.criteria:
            if made[place.label] or place.check is not None:
                lines.append(f"  {place.label}: {made[place.label]} converted")
            if place.missing == "skip":
                lines.append(
                    f"  {place.label}: {plural(skipped[place.label], 'case')} gave no criterion "
                    "(nothing there, null, or not what the path walks; missing: skip)"
                )
    by_type = [
        (via.removeprefix("promptfoo "), count)
        for via, count in made.most_common()
        if via.startswith("promptfoo ")
    ]
    if by_type:
        listed = ", ".join(f"{kind} {count}" for kind, count in by_type)
        lines.append(f"promptfoo assertions kept as placeholders, by type: {listed}.")
    lines += _plugin_eval_lines(made) + _trace_lines(result)
    shapes = [(via, count) for via, count in made.most_common() if via.startswith("{")]
    if shapes:
        listed = ", ".join(f"{via} {count}" for via, count in shapes)
        lines.append(
            f"Typed assertions that stayed placeholders, by shape: {listed}. "
            f"'adhd-evals survey --format {result.format} SOURCE --out dialect.yaml' "
            "drafts a dialect that says what they mean."
        )
    return lines


def _trace_lines(result: ImportResult) -> list[str]:
    """How to run the trace checks an import made (trigger cases say it in their own line)."""
    if not any(result.kinds[kind] for kind in TRACE_KINDS):
        return []
    traced = sum(c.kind.traced and c.via != "trigger" for case in result.cases for c in case.checks)
    if not traced:
        return []
    return [
        f"{plural(traced, 'check')} read the run's trace (tool calls): run them with a runner that "
        "records tool calls (response_format claude-stream-json, codex-jsonl or trace-jsonl; "
        "docs/traces.md); with any other runner they are errors, never passes or fails."
    ]


def _plugin_eval_lines(made: Counter[str]) -> list[str]:
    """plugin eval's graders by type, as the suite's files hold them (one criterion each)."""
    by_type = [
        (via.removeprefix("plugin-eval "), n)
        for via, n in made.most_common()
        if via.startswith("plugin-eval ")
    ]
    if not by_type:
        return []
    return [f"plugin eval graders, by type: {', '.join(f'{kind} {n}' for kind, n in by_type)}."]


def outcome_lines(outcome: ImportOutcome, *, dry_run: bool = False) -> list[str]:
    """Everything an import says after the catalog: the summary, the merge, what left."""
    lines = import_summary(outcome.result)
    lines += outcome.merge_report.lines() if outcome.merge_report else []
    if outcome.repaired:
        lines.append(
            f"Repaired: {outcome.repaired.removesuffix(': rerun it')}; both files are rewritten now."
        )
    if outcome.dropped:
        lines.append(
            f"{plural(len(outcome.dropped), 'case')} left the catalog: {', '.join(outcome.dropped)}."
        )
    if dry_run:
        lines.append("Dry run: nothing was written.")
    elif outcome.written:
        lines.append("Wrote " + " and ".join(str(p) for p in outcome.written) + ".")
    else:
        lines.append("The catalog went to stdout; pass --out DIR to write it with its check module.")
    return lines


def _left_out_lines(result: ImportResult) -> list[str]:
    """Each case the dialect's cases.skip left out, with its reason (remembered in the folder)."""
    if not result.left_out:
        return []
    how = (
        "--skip-test"
        if all(x.reason.startswith("--skip-test") for x in result.left_out)
        else "the dialect's cases.skip"
    )
    lines = [f"Left out {plural(len(result.left_out), 'case')} by {how}:"]
    shown = result.left_out[:SOURCES_SHOWN]
    lines += [f"  {x.source}, {x.case}: {x.reason}" for x in shown]
    if len(result.left_out) > SOURCES_SHOWN:
        lines.append(f"  ... and {len(result.left_out) - SOURCES_SHOWN} more")
    return lines


SOURCES_SHOWN = 20  # a 500-skill tree would otherwise bury the summary under its paths


def _source_lines(sources: tuple[str, ...]) -> list[str]:
    lines = ["Sources:", *(f"  {source}" for source in sources[:SOURCES_SHOWN])]
    if len(sources) > SOURCES_SHOWN:
        lines.append(f"  ... and {len(sources) - SOURCES_SHOWN} more")
    return lines
