"""A promptfoo config: a `.yaml` with a top-level `prompts:` or `providers:` key (bare or
quoted: `export --to promptfoo` quotes its keys), or a named `.json` with `prompts` beside
`tests` or `providers`. Its reader takes one config at a time, never a folder."""

from __future__ import annotations

import re

from ...exitcodes import RefusalCode
from .declare import Format, Head

# a pattern, compiled (by re, cached) when a file is asked about: not on every hook's start
_KEYS = rb"^([\"']?)(prompts|providers)\1\s*:"


def _config(head: Head) -> bool:
    if head.name.endswith(".json"):
        data = head.json()
        return isinstance(data, dict) and "prompts" in data and ("tests" in data or "providers" in data)
    return re.search(_KEYS, head.bytes, re.MULTILINE) is not None


FORMAT = Format(
    name="promptfoo",
    description="a promptfoo config",
    reader="adhd_evals.importing.formats.promptfoo",
    refusal=RefusalCode.NOT_PROMPTFOO,
    by_shape=("*.yaml", "*.yml"),
    by_shape_if_named=("*.json",),
    looks_like=_config,
    yields_to=("plugin-eval",),  # a plugin eval case.yaml is told by keys promptfoo never has
    hook=("promptfooconfig*.{yaml,yml,json}",),
    folders=False,
)
