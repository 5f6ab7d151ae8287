"""Every command the docs show is run, so the docs cannot drift from the tool.

What a page marks, and what this test does with it:
- a fenced ```console block (on a page not in RUN_ELSEWHERE): each `$ ` line is a shell command (a trailing backslash continues
  it), run in order in one scratch folder per page holding a copy of fixtures/ (a plain
  `adhd-evals ARGS` line in this process, as entry.main; any other line, or one with a pipe,
  redirect, variable or glob, with bash); it must exit 0, or N when the line says `# exit N` (`# exit N: why`); each other non-blank line in the block is
  output the command before it must print (stdout or stderr, as a substring; `...` skips).
- `<!-- write: PATH -->` on the line before a fenced block: the block's text is written to PATH
  first (the dialect a tutorial asks you to edit, say).
- `<!-- setup: COMMAND -->` lines just above a ```console block: commands run first, unseen by
  the reader, that put in place what the page assumes the reader has (their own `skills/`
  folder, a results file under a timestamped folder); they must exit 0.
- `<!-- not run: REASON -->` just above a ```sh block: its commands are shown, not run, because
  they need what a test cannot have. REASON is one of NOT_RUN's keys, and the block must hold a
  command that needs it (test_not_run_marks_only_what_needs_the_outside).
Every other block that holds a shell command (```sh, ```bash, ```shell, an indented block whose
line starts with a command) fails test_every_shell_command_is_run_or_marked: the docs hold no
command nobody runs. A usage line (`adhd-evals audit CHECKS [--json]`) is a ```text block:
grammar, not a command, and must read as one (a placeholder or an optional part).
"""

from __future__ import annotations

import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.entry import main
from helpers import FIXTURES, ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\s*$")
MARK = re.compile(r"^<!-- (write|setup|not run): (.+?) -->\s*$")
EXIT = re.compile(r"#\s*exit (\d+)\b")  # `# exit 1` or `# exit 1: why`
SHELL = {"sh", "bash", "shell", "console"}
# a line of an indented block that a reader would type at a shell
COMMAND = re.compile(
    r"^(?:\$ |adhd-evals [a-z]|python3? |pipx? |uv |npm |npx |coverage |ruff |mypy\b|lint-imports\b"
    r"|pre-commit |mkdocs |git |\. \S*activate)"
)
# a usage line's grammar: an optional part, a choice, a placeholder in capitals, or `...`
SYNOPSIS = re.compile(r"\[|\||\b[A-Z][A-Z_]+\b|\.\.\.")
# What a `not run` mark may say, and what a command of its block must do to need it
NOT_RUN = {
    "a real model": re.compile(r"--runner (?!stub\b)\S+"),
    "the network": re.compile(r"\b(?:pipx?|npm|uv tool) install\b|\bpython -m build\b"),
    "the project's own suite": re.compile(r"\b(?:pytest|mypy|lint-imports|ruff check)\b"),
}


@dataclass
class Block:
    """A code block of a page: fenced (its info string) or indented (language "indented")."""

    line: int  # 1-based, of the opening fence or of the first indented line
    language: str
    body: list[str]
    marks: list[tuple[str, str]] = field(default_factory=list)  # the comment lines just above

    def mark(self, kind: str) -> str | None:
        return next((value for found, value in self.marks if found == kind), None)


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


def blocks_of(page: Path) -> list[Block]:
    """The page's code blocks in page order, each with the marks written just above it."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    n = 0
    while n < len(lines):
        fence = FENCE.match(lines[n])
        if fence:
            end = next(i for i in range(n + 1, len(lines)) if lines[i].startswith("```"))
            blocks.append(Block(n + 1, fence.group(1), lines[n + 1 : end], _marks_above(lines, n)))
            n = end + 1
        elif lines[n].startswith("    ") and (n == 0 or not lines[n - 1].strip()):
            end = next((i for i in range(n, len(lines)) if not lines[i].startswith("    ")), len(lines))
            blocks.append(Block(n + 1, "indented", [text[4:] for text in lines[n:end]]))
            n = end
        else:
            n += 1
    return blocks


def _marks_above(lines: list[str], fence: int) -> list[tuple[str, str]]:
    marks: list[tuple[str, str]] = []
    n = fence - 1
    while n >= 0 and (found := MARK.match(lines[n])):
        marks.insert(0, (found.group(1), found.group(2)))
        n -= 1
    return marks


def steps_of(page: Path) -> list[Step]:
    """The console commands and file blocks of a page, in page order."""
    steps: list[Step] = []
    for block in blocks_of(page):
        wanted = block.mark("write")
        if wanted is not None:
            steps.append(Step(block.line, "\n".join(block.body) + "\n", write=wanted))
        elif block.language == "console":
            steps += [Step(block.line, value) for kind, value in block.marks if kind == "setup"]
            steps += _console(block.body, block.line + 1)
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
    # no scheduler's variables: `--shard auto` on a page must see only the one its command sets
    schedulers = ("GITHUB_", "CI_NODE_", "SLURM_", "JOB_COMPLETION_INDEX")
    env = {k: v for k, v in os.environ.items() if not k.startswith(schedulers)}
    bin_dir = str(Path(sys.executable).parent)  # the adhd-evals installed beside this Python
    env.update({"PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", "NO_COLOR": "1", "COLUMNS": "100"})
    env["ADHD_EVALS_CACHE"] = str(work / ".cache")
    env["XDG_CACHE_HOME"] = str(work / ".xdg")  # `run --cache` with no folder: never the user's own
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


@pytest.mark.long  # a page's commands run one after another (the shell's in processes)
@pytest.mark.parametrize("page", PAGES_WITH_STEPS)
def test_every_command_of_the_page_runs_as_shown(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In page order: each command exits as marked and prints the lines shown under it."""
    work = tmp_path / "work"
    shutil.copytree(FIXTURES, work / "fixtures")
    env = _environment(tmp_path)
    _enter(monkeypatch, work, env)
    where = page.relative_to(ROOT).as_posix()
    for step in steps_of(page):
        if step.write is not None:
            (work / step.write).parent.mkdir(parents=True, exist_ok=True)
            (work / step.write).write_text(step.command, encoding="utf-8")
            continue
        argv = in_process(step.command)
        code, said = _call(argv, capsys) if argv else _shell(step.command, work, env)
        assert code == step.exit_code, f"{where}:{step.line}: `{step.command}` exited {code}:\n{said}"
        for line in step.expected:
            assert line in said, f"{where}:{step.line}: `{step.command}` did not print {line!r}:\n{said}"


SHELL_SYNTAX = re.compile(r"[|&;<>()$`*?~!{}\[\]\\]")  # anything only a shell would read


def in_process(command: str) -> list[str] | None:
    """A plain `adhd-evals ARGS` line's ARGS, to run in this process (no interpreter start per
    command); None for anything a shell must read: a pipe, a redirect, a variable, a glob."""
    if not command.startswith("adhd-evals "):
        return None
    code = command.split("  #", 1)[0].replace("\\\n", " ")  # the comment, the continuations
    if SHELL_SYNTAX.search(code):
        return None
    words = shlex.split(code, comments=True)  # quotes, as the shell takes them off
    return words[1:]


def _enter(monkeypatch: pytest.MonkeyPatch, work: Path, env: dict[str, str]) -> None:
    """This process as the shell's commands see the world: the page's folder and environment."""
    monkeypatch.chdir(work)
    for name in set(os.environ) - set(env):
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))


def _call(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out + err


def _shell(command: str, work: Path, env: dict[str, str]) -> tuple[int, str]:
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def unrun_commands(page: Path) -> list[str]:
    """`line: command` for each shell command of the page that no test runs and no mark excuses."""
    found: list[str] = []
    for block in blocks_of(page):
        if block.mark("write") is not None or block.language == "console":
            continue
        for offset, text in enumerate(block.body, start=block.line + (block.language != "indented")):
            if _unrun(block, text):
                found.append(f"{offset}: {text.strip()}")
    return found


def _unrun(block: Block, text: str) -> bool:
    if block.language in SHELL:  # every line of a shell block is shell: run it, or say why not
        return block.mark("not run") is None and bool(text.strip()) and not text.lstrip().startswith("#")
    if block.language == "indented":
        return bool(COMMAND.match(text))
    usage = re.match(r"adhd-evals [a-z]", text)  # in a ```text block: a usage line, or a command hidden
    return bool(usage) and not SYNOPSIS.search(text)


@pytest.mark.parametrize("page", [pytest.param(p, id=p.relative_to(ROOT).as_posix()) for p in PAGES])
def test_every_shell_command_is_run_or_marked(page: Path) -> None:
    """Each command is in a ```console block (run above), or in a ```sh block marked `not run`."""
    unrun = unrun_commands(page)
    assert not unrun, (
        f"{page.relative_to(ROOT).as_posix()} shows commands no test runs: put them in a ```console "
        f"block (`$ ` lines, run in a scratch folder holding fixtures/), or mark a ```sh block "
        f"`<!-- not run: REASON -->` with a REASON of {sorted(NOT_RUN)}:\n" + "\n".join(unrun)
    )


@pytest.mark.parametrize("page", [pytest.param(p, id=p.relative_to(ROOT).as_posix()) for p in PAGES])
def test_not_run_marks_only_what_needs_the_outside(page: Path) -> None:
    """A `not run` mark names a known reason, sits on a ```sh block, and a command of that block
    needs what the reason says (a runner other than stub, an install, the project's own suite)."""
    for block in blocks_of(page):
        reason = block.mark("not run")
        if reason is None:
            continue
        where = f"{page.relative_to(ROOT).as_posix()}:{block.line}"
        assert block.language in SHELL - {"console"}, f"{where}: `not run` marks a ```sh block"
        assert reason in NOT_RUN, f"{where}: `not run: {reason}` is none of {sorted(NOT_RUN)}"
        assert any(NOT_RUN[reason].search(text) for text in block.body), (
            f"{where}: no command of the block needs {reason}: run it in a ```console block"
        )


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


def test_setup_lines_run_before_their_console_block(tmp_path: Path) -> None:
    """Two `setup` marks above a console block become its first two steps, in page order, with
    no output expected and exit 0; a `not run` mark makes no step (worked from the page's lines)."""
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- setup: mkdir skills -->\n<!-- setup: touch skills/a -->\n```console\n$ ls skills\na\n```\n"
        "<!-- not run: the network -->\n```sh\npip install x\n```\n",
        encoding="utf-8",
    )
    assert [(s.line, s.command, s.expected, s.exit_code) for s in steps_of(page)] == [
        (3, "mkdir skills", [], 0),
        (3, "touch skills/a", [], 0),
        (4, "ls skills", ["a"], 0),
    ]


def test_commands_nobody_runs_are_found_wherever_they_hide(tmp_path: Path) -> None:
    """Each place a command can sit unrun is named by its line: an unmarked ```bash block (each
    of its lines, comments aside), an indented command, a ```text line that is no usage line.
    Not named: console lines, a marked ```sh block, a usage line, prose in an indented block."""
    page = tmp_path / "page.md"
    page.write_text(
        "```bash\n# a comment\nadhd-evals lint evals/\n```\n\n"  # lines 1-4
        "    adhd-evals run --runner stub\n    some prose\n\n"  # 6-7
        "```text\nadhd-evals score runs/judged.jsonl\nadhd-evals score SCORES [--json]\n```\n"  # 9-12
        "```console\n$ adhd-evals lint evals/\n```\n"  # 13-15
        "<!-- not run: a real model -->\n```sh\nadhd-evals run --runner claude\n```\n",  # 16-19
        encoding="utf-8",
    )
    assert unrun_commands(page) == [
        "3: adhd-evals lint evals/",
        "6: adhd-evals run --runner stub",
        "10: adhd-evals score runs/judged.jsonl",
    ]


@pytest.mark.parametrize(
    ("reason", "command", "needs"),
    [
        pytest.param("a real model", "adhd-evals run --runner claude", True, id="model-claude"),
        pytest.param("a real model", "adhd-evals run --runner stub", False, id="model-stub"),
        pytest.param("the network", "npm install --prefix d promptfoo", True, id="network-npm"),
        pytest.param("the network", "python -m build", True, id="network-build"),
        pytest.param("the network", "adhd-evals lint evals/", False, id="network-lint"),
        pytest.param("the project's own suite", "python -m pytest -n auto", True, id="suite-pytest"),
        pytest.param("the project's own suite", "adhd-evals check r.jsonl", False, id="suite-check"),
    ],
)
def test_each_not_run_reason_excuses_only_commands_that_need_it(
    reason: str, command: str, needs: bool
) -> None:
    """By the reasons' meaning: only a runner other than stub needs a model, only an install or a
    build needs the network, only the project's checkers are its own suite."""
    assert bool(NOT_RUN[reason].search(command)) is needs


_WORDS = st.text(st.characters(min_codepoint=32, max_codepoint=126, exclude_characters="\\`#"), max_size=30)
_LINES = _WORDS.map(str.strip).filter(lambda t: t and t != "..." and not t.startswith(("$", "```")))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_LINES, st.lists(_LINES, max_size=3), st.none() | st.integers(0, 99)), max_size=5))
def test_a_console_block_gives_back_its_commands_outputs_and_exits(
    tmp_path_factory: pytest.TempPathFactory, shown: list[tuple[str, list[str], int | None]]
) -> None:
    """Any block of `$ ` lines, output lines and `# exit N` marks parses into exactly those
    commands, in order, with their output and exit (0 where none is marked)."""
    lines: list[str] = []
    for command, output, code in shown:
        lines += [f"$ {command}" + ("" if code is None else f"  # exit {code}"), *output]
    page = tmp_path_factory.mktemp("page") / "page.md"
    page.write_text("```console\n" + "\n".join(lines) + "\n```\n", encoding="utf-8")
    parsed = [(s.command.split("  # exit ")[0], s.expected, s.exit_code) for s in steps_of(page)]
    assert parsed == [(command, output, code or 0) for command, output, code in shown]


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        pytest.param("adhd-evals lint evals/  # exit 1: why", ["lint", "evals/"], id="comment-dropped"),
        pytest.param(
            "adhd-evals run --runner stub \\\n    --output a.jsonl",
            ["run", "--runner", "stub", "--output", "a.jsonl"],
            id="continued",
        ),
        pytest.param(
            "adhd-evals export --out 'my file.json'", ["export", "--out", "my file.json"], id="quoted"
        ),
        pytest.param("adhd-evals merge runs/shard-*.jsonl", None, id="glob"),
        pytest.param('adhd-evals run --output "runs/$CI_NODE_INDEX.jsonl"', None, id="variable"),
        pytest.param("adhd-evals plan > plan.jsonl", None, id="redirect"),
        pytest.param("export A=1; adhd-evals run", None, id="not-first"),
        pytest.param("printf 'x' > SKILL.md", None, id="another-command"),
    ],
)
def test_plain_adhd_evals_lines_run_in_process(command: str, argv: list[str] | None) -> None:
    """A line that is `adhd-evals` and words runs in this process with those words (as the
    shell would split them); anything a shell must expand or wire up goes to bash."""
    assert in_process(command) == argv


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
