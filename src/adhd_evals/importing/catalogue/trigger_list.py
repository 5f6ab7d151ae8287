"""A trigger list: a named `.json` holding skill-creator's `[{query, should_trigger}]`, or
`{should_trigger: [...], should_not_trigger: [...]}`. The hook selects none by name: one
named `evals/evals.json` is read as an evals.json, whose hint names this format."""

from __future__ import annotations

from ...exitcodes import RefusalCode
from .declare import Format, Head


def _triggers(head: Head) -> bool:
    data = head.json()
    if isinstance(data, list):
        return bool(data) and all(
            isinstance(x, dict) and "should_trigger" in x and "query" in x for x in data
        )
    lists = ("should_trigger", "should_not_trigger")
    return (
        isinstance(data, dict) and "evals" not in data and any(isinstance(data.get(k), list) for k in lists)
    )


FORMAT = Format(
    name="trigger-list",
    description="a trigger list",
    reader="adhd_evals.importing.formats.trigger_list",
    refusal=RefusalCode.NOT_TRIGGER_LIST,
    by_shape_if_named=("*.json",),
    looks_like=_triggers,
)
