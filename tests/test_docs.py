"""Every command the docs show is run, so the docs cannot drift from the tool.

What a page marks, and what this test does with it:
- a fenced ```console block (on a page not in RUN_ELSEWHERE): each `$ ` line is a shell command (a trailing backslash continues
  it), run with bash in order, in one scratch folder per page holding a copy of fixtures/; it
  must exit 0, or N when the line says `# exit N` (`# exit N: why`); each other non-blank line in the block is
  output the command before it must print (stdout or stderr, as a substring; `...` skips).
- `<!-- write: PATH -->` on the line before a fenced block: the block's text is written to PATH
  first (the dialect a tutorial asks you to edit, say).
Other blocks (```sh install lines, ```yaml examples, ```text output) are prose, not run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from helpers import FIXTURES, ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\s*$")
WRITE = re.compile(r"^<!-- write: (\S+) -->\s*$")
EXIT = re.compile(r"#\s*exit (\d+)\b")  # `# exit 1` or `# exit 1: why`


@dataclass
class Step:
    line: int
    command: str = ""
    write: str | None = None  # a file to write, with `command` as its text
    expected: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        found = EXIT.search(self.command)
        return int(found.group(1)) if found else 0


def steps_of(page: Path) -> list[Step]:
    """The console commands and file blocks of a page, in page order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    steps: list[Step] = []
    n = 0
    while n < len(lines):
        fence = FENCE.match(lines[n])
        if not fence:
            n += 1
            continue
        end = next(i for i in range(n + 1, len(lines)) if lines[i].startswith("```"))
        body = lines[n + 1 : end]
        wanted = WRITE.match(lines[n - 1]) if n else None
        if wanted:
            steps.append(Step(n + 1, "\n".join(body) + "\n", write=wanted.group(1)))
        elif fence.group(1) == "console":
            steps += _console(body, n + 2)
        n = end + 1
    return steps


def _console(body: list[str], first: int) -> list[Step]:
    steps: list[Step] = []
    continuing = False
    for offset, text in enumerate(body):
        if continuing:
            steps[-1].command += "\n" + text
        elif text.startswith("$ "):
            steps.append(Step(first + offset, text[2:]))
        elif text.strip() and text.strip() != "..." and steps:
            steps[-1].expected.append(text.strip())
        continuing = text.endswith("\\") and (continuing or text.startswith("$ "))
    return steps


def _environment(work: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    bin_dir = str(Path(sys.executable).parent)  # the adhd-evals installed beside this Python
    env.update({"PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", "NO_COLOR": "1", "COLUMNS": "100"})
    env["ADHD_EVALS_CACHE"] = str(work / ".cache")
    return env


# Pages whose commands a test of their own runs (with what the page asks the reader to supply)
RUN_ELSEWHERE = {
    "docs/verdicts.md": "tests/test_verdicts_tour.py (its judges.json holds the checkout's absolute path)",
}

PAGES_WITH_STEPS = [
    pytest.param(page, id=page.relative_to(ROOT).as_posix())
    for page in PAGES
    if steps_of(page) and page.relative_to(ROOT).as_posix() not in RUN_ELSEWHERE
]


@pytest.mark.long  # each page's commands are processes run one after another
@pytest.mark.parametrize("page", PAGES_WITH_STEPS)
def test_every_command_of_the_page_runs_as_shown(page: Path, tmp_path: Path) -> None:
    """In page order: each command exits as marked and prints the lines shown under it."""
    work = tmp_path / "work"
    shutil.copytree(FIXTURES, work / "fixtures")
    env = _environment(tmp_path)
    where = page.relative_to(ROOT).as_posix()
    for step in steps_of(page):
        if step.write is not None:
            (work / step.write).parent.mkdir(parents=True, exist_ok=True)
            (work / step.write).write_text(step.command, encoding="utf-8")
            continue
        done = subprocess.run(
            ["bash", "-c", step.command],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=120,
            check=False,
        )
        said = done.stdout + done.stderr
        assert done.returncode == step.exit_code, (
            f"{where}:{step.line}: `{step.command}` exited {done.returncode}:\n{said}"
        )
        for line in step.expected:
            assert line in said, f"{where}:{step.line}: `{step.command}` did not print {line!r}:\n{said}"


def test_the_docs_show_commands_and_the_parser_finds_them() -> None:
    """The README and the tutorial carry runnable commands (a parser finding none would pass vacuously)."""
    readme = steps_of(ROOT / "README.md")
    assert any(step.command.startswith("adhd-evals import") for step in readme)
    assert len(steps_of(ROOT / "docs" / "tutorial.md")) >= 8


def test_console_blocks_are_parsed_into_commands_exits_and_output(tmp_path: Path) -> None:
    """A page by hand: two commands (one continued, one expecting exit 1), output, a file block."""
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- write: a.txt -->\n```text\nhello\n```\n\n"
        "```console\n$ cat a.txt \\\n  | tr h H\nHello\n...\n$ false  # exit 1\n```\n"
        "```sh\n$ not run\n```\n",
        encoding="utf-8",
    )
    steps = steps_of(page)
    assert [(s.write, s.command, s.expected, s.exit_code) for s in steps] == [
        ("a.txt", "hello\n", [], 0),
        (None, "cat a.txt \\\n  | tr h H", ["Hello"], 0),
        (None, "false  # exit 1", [], 1),
    ]


def test_the_exit_codes_page_lists_every_exit_code() -> None:
    """Each int in exitcodes.py (and each refusal's code) has its row `| N |` in docs/exit-codes.md."""
    from adhd_evals import exitcodes

    codes = {v for k, v in vars(exitcodes).items() if k.isupper() and isinstance(v, int)}
    codes |= set(exitcodes.REFUSAL.values())
    page = (ROOT / "docs" / "exit-codes.md").read_text(encoding="utf-8")
    listed = {int(n) for n in re.findall(r"^\| (\d+) \|", page, re.MULTILINE)}
    missing = sorted(codes - listed)
    assert not missing, (
        f"docs/exit-codes.md has no row for exit code(s) {missing}: add `| N | code | meaning |`"
    )
