"""Helpers the tests share: the repository's folders, fixture discovery, the corpus."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# Beside the checkout (../shared/corpus), or beside the folder of worktrees holding it.
CORPUS = next(
    (p for p in (ROOT.parent / "shared" / "corpus", ROOT.parent.parent / "shared" / "corpus") if p.is_dir()),
    ROOT.parent / "shared" / "corpus",
)


class Case(TypedDict):
    """A catalog row: the five fields, as the tests write them."""

    id: str
    category: str
    prompt: str
    risk: str
    criteria: list[str]


@dataclass(frozen=True)
class Fixture:
    format: str
    folder: Path
    meta: dict[str, Any]

    @property
    def source(self) -> Path:
        return self.folder / str(self.meta["source"])

    @property
    def display(self) -> str:
        """The source as a user in the repository root would type it."""
        return self.source.relative_to(ROOT).as_posix()

    @property
    def name(self) -> str:
        return f"{self.format}/{self.folder.name}"

    def dialect(self) -> Any:
        """The fixture's dialect, shown by its name as a user in its folder would type it."""
        if "dialect" not in self.meta:
            return None
        from adhd_evals.importing.dialect import load

        return load(self.folder / self.meta["dialect"], self.meta["dialect"])


def fixtures(kind: str) -> list[Fixture]:
    found = []
    for meta_file in sorted(FIXTURES.glob(f"*/{kind}/*/fixture.json")):
        folder = meta_file.parent
        found.append(Fixture(folder.parent.parent.name, folder, json.loads(meta_file.read_text())))
    return found


def fixture_params(kind: str) -> list[Any]:
    return [pytest.param(f, id=f.name) for f in fixtures(kind)]


def unmeasured_environment() -> dict[str, str]:
    """This process's environment without coverage's subprocess hooks (`.ci/run` measures the
    suite with `patch = ["subprocess"]`): for a probe of which modules adhd-evals imports, since
    a measured process holds coverage's own imports (dataclasses, inspect, json, sqlite3)."""
    hooks = ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START")
    return {k: v for k, v in os.environ.items() if k not in hooks}


# A fresh `adhd-evals ARGV...` that prints what it prints and writes its exit code and the parser
# packages it imported (typer, click, rich, pydantic) as JSON to the file named first: whether help
# was served pre-rendered or by typer (tests/test_cli_fast_help.py, test_help_terminal_served.py).
PARSER_PROBE = (
    "import json, sys\n"
    "from adhd_evals.entry import main\n"
    "code = main(sys.argv[2:])\n"
    "sys.stdout.flush()\n"
    "parser = sorted({m.partition('.')[0] for m in sys.modules} & {'typer', 'click', 'rich', 'pydantic'})\n"
    "open(sys.argv[1], 'w', encoding='utf-8').write(json.dumps([code, parser]))\n"
)


# A fresh `adhd-evals ARGV...` that writes the code it ended with and sorted(sys.modules) to
# the file named first: a real process, so nothing a test imported can hide or add a module.
MODULES_PROBE = (
    "import json, sys\n"
    "from adhd_evals.entry import main\n"
    "code = main(sys.argv[2:])\n"
    "found = {'code': code, 'modules': sorted(sys.modules)}\n"
    "open(sys.argv[1], 'w', encoding='utf-8').write(json.dumps(found))\n"
)


def modules_after(
    tmp: Path,
    *argv: str,
    code: int = 0,
    cwd: Path | None = None,
    extra: dict[str, str] | None = None,
) -> tuple[str, set[str]]:
    """What a fresh `adhd-evals ARGV...` printed, and the modules it had imported when it ended
    with `code` (run in `cwd`, `extra` in its environment)."""
    found = tmp / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", MODULES_PROBE, str(found), *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        # a process coverage measures holds coverage's own imports (dataclasses, inspect, ...)
        env={**unmeasured_environment(), **(extra or {})},
    )
    assert done.returncode == 0, done.stderr
    ended = json.loads(found.read_text(encoding="utf-8"))
    assert ended["code"] == code, done.stderr
    return done.stdout, set(ended["modules"])


# Which string annotations typing compiled while `adhd-evals ARGV...` ran in a fresh process:
# typing.NamedTuple and TypedDict turn each one into a ForwardRef, compiling it (about 30 us a
# field, and a process's first compile sets the compiler up: about 1 ms). The probe counts them
# by wrapping ForwardRef's constructor before adhd-evals is imported, and writes the command's
# exit code and the annotations, in the order made, as JSON to the file named first.
FORWARD_REF_PROBE = (
    "import json, sys, typing\n"
    "made = []\n"
    "make = typing.ForwardRef.__init__\n"
    "def counted(self, arg, *args, **kwargs):\n"
    "    made.append(arg)\n"
    "    make(self, arg, *args, **kwargs)\n"
    "typing.ForwardRef.__init__ = counted\n"
    "from adhd_evals.entry import main\n"
    "code = main(sys.argv[2:])\n"
    "open(sys.argv[1], 'w', encoding='utf-8').write(json.dumps({'code': code, 'made': made}))\n"
)


def string_annotations_made(tmp: Path, *argv: str, probe: str = FORWARD_REF_PROBE) -> tuple[int, list[str]]:
    """(exit code, the string annotations compiled) of a fresh `adhd-evals ARGV...`, unmeasured
    by coverage (whose own imports would count). `probe`: FORWARD_REF_PROBE, or a variant of it
    that shows the count can fail."""
    found = tmp / "string-annotations.json"
    subprocess.run(
        [sys.executable, "-c", probe, str(found), *argv],
        capture_output=True,
        check=True,
        timeout=120,
        env=unmeasured_environment(),
    )
    ended = json.loads(found.read_text(encoding="utf-8"))
    made: list[str] = ended["made"]
    return ended["code"], made


def blind_folder(folder: Path, *extra: str, cases: Path | None = None) -> int:
    """`adhd-evals blind` of FOLDER/responses.jsonl into FOLDER's sheet.jsonl and key.jsonl,
    against FOLDER/cases.jsonl (or `cases`), with `extra` options: the exit code."""
    from adhd_evals.entry import main

    argv = ["blind", str(folder / "responses.jsonl"), "--sheet", str(folder / "sheet.jsonl")]
    argv += ["--key", str(folder / "key.jsonl"), "--cases", str(cases or folder / "cases.jsonl")]
    return main([*argv, *extra])
