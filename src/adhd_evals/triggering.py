"""Trigger cases, defined once for the readers that make them and the scorer that counts them.

A trigger case asks one thing: was the skill invoked. Its criterion is one of two fixed
sentences naming the skill, and its check is `tool_used("Skill", input_match=...)` (with
`max=0` for a case that must not trigger). The sentence is how `score` knows a check result
is a trigger verdict and which way it points, so it is written and read only here.
"""

from __future__ import annotations

import re

SKILL_TOOL = "Skill"  # the tool Claude Code invokes a skill with: input {"skill": NAME}
_INVOKED = "the skill {name} is invoked"
_NOT_INVOKED = "the skill {name} is not invoked"
_READ = re.compile(r"the skill (?P<name>.+?) is (?P<not>not )?invoked")
_JS_SPECIAL = re.compile(r"[\\^$.*+?()[\]{}|/]")


def criterion(skill: str, should_trigger: bool) -> str:
    """The criterion of a trigger case."""
    return (_INVOKED if should_trigger else _NOT_INVOKED).format(name=skill)


def polarity(text: str) -> tuple[str, bool] | None:
    """(skill, should_trigger) when `text` is a trigger criterion, else None."""
    found = _READ.fullmatch(text)
    if found is None:
        return None
    return found["name"], found["not"] is None


def skill_pattern(skill: str) -> str:
    """The `input_match` (a JavaScript regular expression over the JSON-encoded input) that
    finds the skill named as a JSON string value: `{"skill":"NAME"}`, or a plugin's
    `{"skill":"plugin:NAME"}`, and not a sibling whose name only begins with NAME."""
    escaped = _JS_SPECIAL.sub(lambda found: "\\" + found.group(), skill)
    return f':"(?:[^"]*:)?{escaped}"'
