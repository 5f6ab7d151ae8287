"""A YAML case file (one case per file, `name` and `task`): a `.yaml` with a top-level `task:`
line; a `.yaml` named on the command line whatever it holds."""

from __future__ import annotations

import re

from ...exitcodes import RefusalCode
from .declare import Format, Head

# a pattern, compiled (by re, cached) when a file is asked about: not on every hook's start
_TASK = rb"^task\s*:"


def _task(head: Head) -> bool:
    return re.search(_TASK, head.bytes, re.MULTILINE) is not None


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
