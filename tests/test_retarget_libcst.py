"""A re-import loads libcst only to rewrite a check it paired with a reworded criterion.

The pairing (which edited check follows which criterion) is text work in
importing/retarget_pairing.py; the codemod that rewrites a paired check's `@check(...)` is
libcst's (about 0.2 s to import). Each re-import runs in a fresh interpreter, which says whether
libcst was imported: the pytest process has imported it long ago.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.long  # two fresh interpreters, each importing libcst's check or not

# The source as first imported; the module's placeholder for "Names the verison" is then edited
# by hand, so a re-import has a person's check to keep (and, if reworded, to retarget).
BEFORE = [{"id": 1, "prompt": "Write notes for 2.4", "assertions": ["Names the verison", "Is short"]}]
EDITED = ('    return unwritten("Names the verison")', "    return '2.4' in answer")

REIMPORT = """
import sys
from pathlib import Path
from adhd_evals.importing.importer import Request, import_sources
outcome = import_sources("evals-json", [Path(sys.argv[1])], Request(out=Path(sys.argv[2])))
print(len(outcome.merge_report.retargeted), "libcst" in sys.modules)
"""


def _edited_import(tmp_path: Path, after: list[dict[str, object]]) -> str:
    """Import BEFORE, edit one check by hand, write `after` as the source and re-import it in a
    fresh interpreter: its "retargeted count, libcst imported" line."""
    from adhd_evals.importing.importer import Request, import_sources

    source, out = tmp_path / "evals.json", tmp_path / "evals"
    source.write_text(json.dumps({"skill_name": "notes", "evals": BEFORE}))
    import_sources("evals-json", [source], Request(out=out))
    module = out / "checks.py"
    module.write_text(module.read_text().replace(*EDITED, 1))
    source.write_text(json.dumps({"skill_name": "notes", "evals": after}))
    done = subprocess.run(
        [sys.executable, "-c", REIMPORT, str(source), str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_reimport_that_retargets_nothing_leaves_libcst_out(tmp_path: Path) -> None:
    """The same criteria again: the edited check stays where it is, nothing is rewritten, so
    the pairing runs (an edited check is there) and libcst is never imported."""
    assert _edited_import(tmp_path, BEFORE) == "0 False"


def test_a_reworded_criterion_still_takes_its_edited_check_along_through_libcst(tmp_path: Path) -> None:
    """The control: "verison" reworded to "version" pairs the edited check with it, and its
    rewrite imports libcst (so the probe above can see libcst when it is there)."""
    after = [{"id": 1, "prompt": "Write notes for 2.4", "assertions": ["Names the version", "Is short"]}]
    assert _edited_import(tmp_path, after) == "1 True"
