"""A `claude plugin eval` case, linted once by its `case.yaml` (by its `prompt.md` when it has
none): a `case.yaml` by its keys, a `prompt.md` beside a `graders/` folder and no `case.yaml`,
or a `prompt.md` named on the command line."""

from __future__ import annotations

import re

from ...exitcodes import RefusalCode
from .declare import Format, Head

# a pattern, compiled (by re, cached) when a file is asked about: not on every hook's start
_KEYS = rb"^(graders|execution|schema_version)\s*:"


def _case(head: Head) -> bool:
    if head.name == "case.yaml":
        return re.search(_KEYS, head.bytes, re.MULTILINE) is not None
    folder = head.path.parent
    return not (folder / "case.yaml").is_file() and (folder / "graders").is_dir()


FORMAT = Format(
    name="plugin-eval",
    description="a claude plugin eval case",
    reader="adhd_evals.importing.formats.plugin_eval",
    refusal=RefusalCode.NOT_PLUGIN_EVAL,
    by_shape=("case.yaml", "prompt.md"),
    if_named=("prompt.md",),
    looks_like=_case,
    hook=("evals/**/{case.yaml,prompt.md}",),
)
