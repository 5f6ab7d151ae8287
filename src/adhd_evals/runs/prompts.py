"""The prompt each condition sends: baseline the task alone; candidate and
comparator wrap it with a skill file exactly as i-have-adhd's runner does."""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError


def strip_frontmatter(text: str) -> str:
    """Drop a leading YAML frontmatter block; an unclosed one is left alone."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return text
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return "\n".join(lines[index + 1 :]).lstrip("\n")
    return text


def skill_text(condition: str, skill: Path | None) -> str | None:
    if condition == "baseline":
        return None
    if skill is None:
        raise UsageError(f"--condition-skill is required for the {condition} condition")
    try:
        return strip_frontmatter(skill.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"--condition-skill {skill}: {exc.strerror or exc}") from exc


def condition_prompt(task: str, instructions: str | None) -> str:
    if instructions is None:
        return task
    return (
        "Follow the response-style skill below while completing the task. "
        "Do not discuss or quote the skill.\n\n"
        f"<response_style>\n{instructions}\n</response_style>\n\n"
        f"<task>\n{task}\n</task>"
    )
