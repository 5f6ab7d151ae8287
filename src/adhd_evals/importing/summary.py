"""The summary a person reads on stderr after an import."""

from __future__ import annotations

from .model import ImportResult


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def import_summary(result: ImportResult) -> list[str]:
    cases = len(result.cases)
    lines = [f"Read {_plural(cases, 'case')} from {result.source} ({result.format}), "
             f"converted {_plural(result.converted, 'assertion')} into checks."]
    if result.unconverted:
        lines.append(
            f"{_plural(result.unconverted, 'assertion')} could not be converted and "
            f"{'needs' if result.unconverted == 1 else 'need'} a human: "
            "each is written as prose, and its check fails until you write it.")
    if result.cases_without_criteria:
        lines.append(
            f"{_plural(result.cases_without_criteria, 'case')} had no criteria in the source; "
            "each got one placeholder that fails until you say what a good answer is.")
    if result.risk_was_default:
        lines.append(f"Risk: {result.risk} for every case (the default: no source format "
                     "carries risk; pass --risk low|medium|high to choose).")
    else:
        lines.append(f"Risk: {result.risk} for every case (from --risk).")
    lines.append(f"Kept {_plural(result.notes, 'source field')} as notes in the check module.")
    with_files = sum(any(n.key == "files" and n.value for n in case.notes) for case in result.cases)
    if with_files:
        lines.append(f"{_plural(with_files, 'case')} name fixture files; the files were not copied, "
                     "so give the model what the prompt refers to before you run them.")
    return lines
