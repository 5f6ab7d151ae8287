"""What a re-import says it did to the check module (see merge.py): one line per kind of change."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..text import plural


@dataclass
class MergeReport:
    regenerated: int = 0
    added: int = 0
    kept_edited: list[str] = field(default_factory=list)  # keys of edited regions kept
    kept_orphans: list[str] = field(default_factory=list)  # edited checks whose criterion left
    vanished_cases: list[str] = field(default_factory=list)  # case ids kept although gone
    pruned_cases: list[str] = field(default_factory=list)
    kept_markers: set[str] = field(default_factory=set)  # markers of regions kept as a person left them
    retargeted: list[str] = field(default_factory=list)  # edited checks moved to a reworded criterion
    moved: list[tuple[str, int]] = field(default_factory=list)  # (pruned case, lines a person wrote moved)
    pruned_edited: list[str] = field(default_factory=list)  # generated checks a person edited, pruned

    def lines(self) -> list[str]:
        out = []
        if self.retargeted:
            out.append(
                f"Retargeted {plural(len(self.retargeted), 'check')}: edited checks now follow their "
                "reworded criteria (their bodies unchanged)."
            )
        if self.kept_edited:
            out.append(
                f"Kept {plural(len(self.kept_edited), 'hand-edited part')} of the check module as they are."
            )
        if self.kept_orphans:
            out.append(
                f"Kept {plural(len(self.kept_orphans), 'hand-edited check')} whose criterion is no longer "
                "in the source; delete them when they are not needed."
            )
        if self.vanished_cases:
            out.append(
                f"{plural(len(self.vanished_cases), 'case')} gone from the source but kept in the check "
                "module: " + ", ".join(self.vanished_cases) + ". Re-import with --prune to remove them."
            )
        if self.moved:
            out.append(
                f"Moved {plural(sum(n for _, n in self.moved), 'line')} a person wrote beside the checks of "
                "pruned cases to the end of the check module: "
                + ", ".join(f"{label} ({plural(n, 'line')})" for label, n in self.moved)
                + "."
            )
        if self.pruned_edited:
            out.append(
                f"Removed {plural(len(self.pruned_edited), 'generated check')} a person had edited, with "
                "their pruned cases: " + ", ".join(self.pruned_edited) + "."
            )
        if self.pruned_cases:
            out.append(
                f"Removed {plural(len(self.pruned_cases), 'vanished case')} from the check module (--prune): "
                + ", ".join(self.pruned_cases)
                + "."
            )
        return out
