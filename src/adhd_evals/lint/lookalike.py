"""Files the hook matches by name that are plainly another tool's: skipped, said once.

The pre-commit hook selects files by name (`evals/*.jsonl`, `evals/dataset.json`,
`tasks/*.yaml`, `evals/checks.py`); other tools use the same names. A file is
another tool's only on positive evidence, read from its head (the first 64 KiB):

- a catalog (`*.jsonl`): at least one line is a JSON object, and no such line has
  any of the five fields (`id`, `category`, `prompt`, `risk`, `criteria`): a
  promptfoo `{"vars": ...}` test file, a dataset of `{"input", "output"}` rows;
- an evalflow `dataset.json`: it parses as JSON and is not an object holding
  `version` or `test_cases` (a list of rows, a Hugging Face dataset card);
- a YAML case (`tasks/*.yaml`): not a top-level `task:` line beside one of our other
  keys (`name:`, `judge_context:`, `max_steps:`): `name:` alone is no evidence (a waza
  task, a parser's test case, a CI workflow have one), and an Ansible `tasks/main.yml`
  is a list. Under a yaml dialect, a top-level line for the dialect's prompt or case-list
  key is the evidence instead (`inputs:` for `inputs.prompt`).

Anything else is ours, and a broken file of ours still fails: a file that does not
parse, a catalog row with `turns` instead of `prompt`, an evalflow file with
`version` and `test_cases` but another tool's case keys (the corpus's
llm-quality-gate dataset), an `evals.json` of any shape (skill-creator's name;
every one in the corpus is a case file, however broken), an `evals/checks.py` (lint
reports a module that is not one of ours by its own rules).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..files import open_limited
from ..schema import FIELDS  # the catalog's fields, defined once in the core

HEAD = 65536
# patterns, compiled (by re, cached) when a YAML file is met: not on every hook's start
_YAML_TASK = rb"^task\s*:"
_YAML_BESIDE = rb"^(name|judge_context|max_steps)\s*:"
NAMES = {"catalog": "a five-field catalog", "evalflow": "an evalflow dataset", "yaml": "a YAML case"}


def _head(path: Path) -> bytes:
    try:  # through the bounded door: a FIFO named like a catalog must not block the hook
        with open_limited(path) as stream:
            return stream.read(HEAD)
    except OSError:
        return b""  # lint reports the unreadable file itself (a FIFO, a device, past --max-bytes)


def why_not_ours(path: Path, kind: str, keys: tuple[str, ...] | None = None) -> str | None:
    """Why `path`, recognised as `kind` by its name, is another tool's file (None: it is ours);
    `keys`: the top-level keys a yaml dialect's files have (lint's `dialect_keys`)."""
    head = _head(path)
    if kind == "catalog":
        return _catalog(head)
    if kind == "evalflow":
        return _dataset(head)
    if kind == "yaml":
        return _yaml(head, keys)
    return None  # evals.json and checks.py: ours by name (see above)


def _yaml(head: bytes, keys: tuple[str, ...] | None) -> str | None:
    if not head:
        return None  # empty or unreadable: the reader says which
    if keys is not None:
        named = b"|".join(re.escape(key.encode()) for key in keys)
        if not keys or re.search(rb"^(" + named + rb")\s*:", head, re.MULTILINE):
            return None
        return "no top-level " + ", ".join(key + ":" for key in keys) + " (the dialect's keys)"
    if re.search(_YAML_TASK, head, re.MULTILINE) and re.search(_YAML_BESIDE, head, re.MULTILINE):
        return None
    return "no top-level task: beside name:, judge_context: or max_steps:"


def _catalog(head: bytes) -> str | None:
    lines = head.splitlines()
    if len(head) == HEAD and lines:
        lines = lines[:-1]  # the last line may be cut short
    rows = []
    for line in lines:
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(row, dict):
            rows.append(row)
    if rows and not any(field in row for row in rows for field in FIELDS):
        keys = sorted({str(k) for row in rows[:20] for k in row})[:6]
        return "its rows have none of the five fields; keys: " + ", ".join(keys)
    return None


def _dataset(head: bytes) -> str | None:
    try:
        data = json.loads(head)
    except (ValueError, RecursionError):
        return None  # not whole, or broken: the reader says which
    if isinstance(data, dict) and ("version" in data or "test_cases" in data):
        return None
    if isinstance(data, dict):
        return "no version or test_cases key; keys: " + ", ".join(list(map(str, data))[:6])
    return f"a JSON {type(data).__name__.replace('dict', 'object')}, not an object with test_cases"
