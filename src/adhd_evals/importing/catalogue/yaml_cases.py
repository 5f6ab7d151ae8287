"""A YAML case file (one case per file, `name` and `task`): a `.yaml` with a top-level `task:`
line; a `.yaml` named on the command line whatever it holds."""

from __future__ import annotations

import re

from ...exitcodes import RefusalCode
from .declare import Format, Head

_TASK = re.compile(rb"^task\s*:", re.MULTILINE)


def _task(head: Head) -> bool:
    return _TASK.search(head.bytes) is not None


FORMAT = Format(
    name="yaml",
    description="a YAML case file",
    reader="adhd_evals.importing.formats.yaml_cases",
    refusal=RefusalCode.NOT_YAML_CASE,
    by_shape=("*.yaml", "*.yml"),
    if_named=("*.yaml", "*.yml"),
    looks_like=_task,
    # a plugin eval case.yaml or a promptfoo config with a `task:` key is theirs: their keys
    # (graders:, prompts:) are ones a YAML case never has
    yields_to=("plugin-eval", "promptfoo"),
    hook=("{agent_tasks,tasks,cases}/*.{yaml,yml}",),
)
