"""Help on a stdout that cannot encode all of it: written with `?` for what does not fit, never a
crash (it was exit 70, an internal error, under PYTHONIOENCODING=latin-1: rich's `…` at a cut).

Off a terminal and not UTF-8, typer renders help (the pre-rendered texts are UTF-8's); rich then
draws ASCII boxes, and the text's own `…` and `—` are what latin-1 and ASCII cannot write.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from adhd_evals import exitcodes


def _adhd_evals(encoding: str, *argv: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    return subprocess.run(
        [sys.executable, "-m", "adhd_evals", *argv], capture_output=True, env=env, timeout=60
    )


@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
def test_help_that_does_not_fit_the_encoding_is_written_with_question_marks(encoding: str) -> None:
    """`run --help` holds `…` where rich cuts a long default (`$XDG_CACHE_HOME/adhd…`): in
    latin-1 and ASCII it is `?`; everything else of the help is there (its usage line)."""
    done = _adhd_evals(encoding, "run", "--help")
    assert done.returncode == exitcodes.OK, done.stderr
    text = done.stdout.decode(encoding)
    assert "Usage: adhd-evals run [OPTIONS]" in text
    assert "$XDG_CACHE_HOME/adhd?" in text
    assert "internal error" not in done.stderr.decode(encoding, "replace")


def test_in_utf_8_the_same_help_keeps_its_characters() -> None:
    """The control: where the encoding can write it, the `…` is there (so the `?` above is the
    replacement, not the text)."""
    done = _adhd_evals("utf-8", "run", "--help")
    assert done.returncode == exitcodes.OK
    assert "$XDG_CACHE_HOME/adhd…" in done.stdout.decode("utf-8")


def test_a_commands_data_is_never_changed_to_fit_the_encoding(tmp_path: Path) -> None:
    """Only help is replaced: an import to stdout under latin-1 still writes its catalog row as
    UTF-8 bytes, `東京` intact (the row is data: a `?` there would change a case silently)."""
    source = tmp_path / "evals.json"
    source.write_text(
        json.dumps({"skill_name": "s", "evals": [{"id": 1, "prompt": "東京?", "assertions": ["x"]}]})
    )
    done = _adhd_evals("latin-1", "import", "--format", "evals-json", str(source))
    assert done.returncode == exitcodes.OK, done.stderr
    assert json.loads(done.stdout.decode("utf-8"))["prompt"] == "東京?"


def test_no_command_at_all_prints_the_listing_and_no_empty_error() -> None:
    """`adhd-evals` alone: the listing, and exit 2 as click gives it (click before 8.2 exits 0:
    either way the listing is the answer); before, an empty `adhd-evals: ` line and a hint
    followed it on stderr, an error with nothing to say."""
    done = _adhd_evals("utf-8")
    assert done.returncode in (exitcodes.OK, exitcodes.USAGE)
    assert "Usage: adhd-evals [OPTIONS] COMMAND [ARGS]..." in done.stdout.decode("utf-8")
    assert "adhd-evals:" not in done.stderr.decode("utf-8")
