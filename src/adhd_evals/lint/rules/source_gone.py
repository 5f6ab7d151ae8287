"""E114 source-gone: a source the folder was built from is no longer on disk.

`import` records the sources of a catalog in `.adhd-evals-sources.json`; a
re-import must name them all (or pass --replace). A recorded source that is
gone means the next import will refuse, or, with --replace, drop its cases.

Passing: every path in `.adhd-evals-sources.json` exists.
Failing: `skills/old/evals/evals.json` is recorded but was deleted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from ...files import read_text_limited
from ...jsonpos import locate
from ...problem import ERROR, Finding
from ._contract import FOLDER, IN_RECORD, Folder

ID = "E114"
NAME = "source-gone"
SEVERITY = ERROR
SCOPE = FOLDER
FILE = IN_RECORD


def check(folder: Folder) -> Iterator[Finding]:
    record = folder.record
    if record is None:
        return
    try:
        text = read_text_limited(record)
        sources = json.loads(text)["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        yield Finding(1, 1, f"{record.name} is not a record adhd-evals wrote; delete it and import again")
        return
    for index, source in enumerate(sources):
        resolved = source.get("resolved") if isinstance(source, dict) else None
        if isinstance(resolved, str) and not (record.parent / resolved).exists():  # relative to the folder
            line, column = locate(text, ("sources", index, "path"))
            yield Finding(line or 1, column or 1, f"the recorded source {source.get('path')} is gone")
