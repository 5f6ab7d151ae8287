"""Trigger cases, as every reader makes them: the prompt is the query, the one criterion is
"the skill NAME is invoked" (or "is not invoked"), checked over the run's trace by
`tool_used("Skill", input_match=<the skill's name>)`, with `min=0, max=0` for a query that
must not trigger it. The skill's name is --skill, else the file's own, else the `name:` of
the SKILL.md beside the file (or beside its evals/ folder)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ...triggering import SKILL_TOOL, criterion, skill_pattern
from ..model import Check, CheckKind

_NAME_LINE = re.compile(r"(?m)^name:[ \t]*(['\"]?)(?P<name>[^'\"\n]+?)\1[ \t]*$")


def trigger_check(skill: str, should_trigger: bool) -> Check:
    """The one check of a trigger case."""
    options: tuple[tuple[str, Any], ...] = (("input_match", skill_pattern(skill)),)
    if not should_trigger:
        options += (("min", 0), ("max", 0))
    return Check(criterion(skill, should_trigger), CheckKind.TOOL_USED, (SKILL_TOOL,), options, "trigger")


def skill_md_name(source: Path) -> str | None:
    """The `name:` in the front matter of the SKILL.md beside `source`, or beside the evals/
    folder holding it; None when there is none."""
    folder = source.resolve().parent
    for place in (folder, folder.parent) if folder.name == "evals" else (folder,):
        try:
            text = (place / "SKILL.md").read_text(encoding="utf-8", errors="replace")[:4096]
        except OSError:
            continue
        if text.startswith("---"):
            front = text[3:].split("\n---", 1)[0]
            found = _NAME_LINE.search(front)
            if found is not None:
                return found["name"].strip()
    return None
