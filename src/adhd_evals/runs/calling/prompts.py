"""The prompt each condition sends: baseline the task alone; candidate and
comparator wrap it with a skill file exactly as i-have-adhd's runner does:
the file as Python's `read_text` gives it (frontmatter included; CRLF and a
lone CR read as LF), inside the same template, byte for byte."""

from __future__ import annotations

from pathlib import Path

from ...errors import UsageError
from ...files import read_text_limited


def skill_text(condition: str, skill: Path | None) -> str | None:
    if condition == "baseline":
        return None
    if skill is None:
        raise UsageError(f"--condition-skill is required for the {condition} condition")
    try:
        return read_text_limited(skill)
    except OSError as exc:
        raise UsageError(f"--condition-skill {skill}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"--condition-skill {skill}: not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from exc


def condition_prompt(task: str, instructions: str | None) -> str:
    if instructions is None:
        return task
    return (
        "Follow the response-style skill below while completing the task. "
        "Do not discuss or quote the skill.\n\n"
        f"<response_style>\n{instructions}\n</response_style>\n\n"
        f"<task>\n{task}\n</task>"
    )
