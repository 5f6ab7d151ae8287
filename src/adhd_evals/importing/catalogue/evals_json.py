"""skill-creator's `evals.json`: an `evals.json` is one by its name, whatever it holds (the
reader's hints help with a broken one); a `.json` named on the command line that no other
format claims is read as one, so the reader reports what it finds."""

from __future__ import annotations

from ...exitcodes import RefusalCode
from .declare import Format

FORMAT = Format(
    name="evals-json",
    description="an evals.json",
    reader="adhd_evals.importing.formats.evals_json",
    refusal=RefusalCode.NOT_EVALS_JSON,
    by_name=("evals.json",),
    if_named=("*.json",),
    hook=("evals/evals.json",),
)
