"""Smoke test of an installed adhd-evals, as a user gets it (a wheel, pipx, uv tool install).

    python tests/smoke/smoke.py --bin /path/to/venv/bin [--pre-commit /path/to/pre-commit]

Runs the `adhd-evals` found in --bin, from a scratch folder, never this checkout's source:
--version; every command's --help; the README's main job (the demo catalog reproduced byte for
byte); a re-import that retargets an edited check (libcst at run time); a lint of a good and a
bad fixture; the offline pipeline (stub run -> check -> blind -> stub judge -> score). With
--pre-commit, the hook is installed from this repository as pre-commit does and run on a
temporary repository. Standard library only: it runs with whatever Python drives it.
Exit 0 when every step holds; otherwise the first failing step and what it printed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEMO_SOURCE = "fixtures/evals-json/good/dialects/release-notes/evals/evals.json"


class SmokeFailed(Exception):
    pass


class Smoke:
    def __init__(self, bin_dir: Path, work: Path) -> None:
        self.exe = str(bin_dir / "adhd-evals")
        self.work = work
        # a user's environment: no test settings, no bytecode switch-off, no colour codes to parse
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "ADHD_EVALS"))}
        self.env.update({"NO_COLOR": "1", "COLUMNS": "120", "ADHD_EVALS_CACHE": str(work / ".cache")})

    def run(self, *args: str, ok: tuple[int, ...] = (0,), cwd: Path | None = None) -> str:
        done = subprocess.run(
            [self.exe, *args],
            cwd=cwd or self.work,
            env=self.env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=300,
            check=False,
        )
        if done.returncode not in ok:
            raise SmokeFailed(
                f"adhd-evals {' '.join(args)} exited {done.returncode} (expected {ok})\n"
                f"--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
            )
        return done.stdout + done.stderr


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise SmokeFailed(message)


def installed_commands(smoke: Smoke) -> list[str]:
    """The commands the installed app registers, asked of the Python behind the console script."""
    script = Path(smoke.exe).resolve()  # pipx and uv link the script from their own venv
    beside = script.parent / "python"
    shebang = script.read_text(encoding="utf-8").splitlines()[0].removeprefix("#!").strip()
    python = str(beside) if beside.exists() else shebang
    code = "from adhd_evals.cli import app; print(*(c.name for c in app.registered_commands))"
    done = subprocess.run([python, "-c", code], env=smoke.env, capture_output=True, text=True, check=True)
    return done.stdout.split()


def version_and_help(smoke: Smoke) -> None:
    out = smoke.run("--version")
    expect(out.startswith("adhd-evals "), f"--version printed {out!r}")
    listing = smoke.run("--help")
    commands = installed_commands(smoke)
    known = [
        "import",
        "survey",
        "validate",
        "plan",
        "run",
        "check",
        "blind",
        "judge",
        "agree",
        "score",
        "report",
    ]
    expect(set(known + ["lint"]) <= set(commands), f"the installed app registers only {commands}")
    for command in commands:
        expect(command in listing, f"--help does not list {command}")
        text = smoke.run(command, "--help")
        expect("usage" in text.lower(), f"{command} --help printed no usage:\n{text}")
    print(f"ok: {out.strip()}; --help of {len(commands)} commands")


def readme_main_job(smoke: Smoke) -> None:
    """The README's set-up import reproduces the demo catalog byte for byte."""
    shutil.copytree(ROOT / "fixtures", smoke.work / "fixtures")
    smoke.run("import", "--format", "evals-json", DEMO_SOURCE, "--out", "evals/")
    for name in ("cases.jsonl", "checks.py", ".adhd-evals-sources.json"):
        made, kept = (smoke.work / "evals" / name).read_bytes(), (ROOT / "evals" / name).read_bytes()
        expect(made == kept, f"evals/{name} differs from the repository's demo catalog")
    print("ok: the README's import reproduces evals/ byte for byte")


def retargeting_reimport(smoke: Smoke) -> Path:
    """A person's edited check follows its reworded criterion (the libcst codemod)."""
    source = smoke.work / "skills" / "notes" / "evals" / "evals.json"
    source.parent.mkdir(parents=True)

    def write(first: str) -> None:
        case = {
            "id": 1,
            "prompt": "Write release notes for 2.4.",
            "assertions": [first, "Mentions dark mode"],
        }
        source.write_text(json.dumps({"skill_name": "notes", "evals": [case]}), encoding="utf-8")

    write("Names the version")
    smoke.run("import", "--format", "evals-json", str(source), "--out", "ev/")
    module = smoke.work / "ev" / "checks.py"
    text = module.read_text(encoding="utf-8")
    # either quoting: the generator writes what the formatters a team runs would leave alone
    placeholder = re.search(r"return unwritten\((['\"])Names the version\1\)", text)
    if placeholder is None:
        raise SmokeFailed("the generated module lacks the placeholder to edit")
    module.write_text(
        text.replace(placeholder.group(0), 'return "2.4" in answer  # written by hand'), encoding="utf-8"
    )
    write("States the version number")
    out = smoke.run("import", "--format", "evals-json", str(source), "--out", "ev/")
    expect("Retargeted 1 check" in out, f"the re-import did not retarget:\n{out}")
    text = module.read_text(encoding="utf-8")
    decorator = r"@check\((['\"])notes-1\1, (['\"])States the version number\2\)"
    expect(re.search(decorator, text) is not None, "the edited check kept its old criterion")
    expect('return "2.4" in answer  # written by hand' in text, "the edited body was lost")
    print("ok: a re-import retargeted the edited check (libcst at run time)")
    return smoke.work / "ev"


def lint(smoke: Smoke) -> None:
    out = smoke.run("lint", "evals/cases.jsonl", "evals/checks.py")
    expect("W203" in out, f"lint of the demo catalog did not list its placeholders:\n{out}")
    bad = sorted((ROOT / "fixtures").glob("evals-json/bad/*/evals.json"))[0]
    out = smoke.run("lint", str(bad), ok=(1,))
    expect("Case" in out, f"lint of {bad} found no refusal:\n{out}")
    print("ok: lint of a good and a bad fixture")


def pipeline(smoke: Smoke, catalog: Path) -> None:
    """The offline comparison: stub runner, check, blind, stub judge, score with the key."""
    cases, suite = str(catalog / "cases.jsonl"), str(catalog / "checks.py")
    skill = smoke.work / "SKILL.md"
    skill.write_text("---\nname: notes\n---\nWrite short release notes.\n", encoding="utf-8")
    runs = smoke.work / "runs"
    for condition in ("baseline", "candidate"):
        extra = ["--condition-skill", str(skill)] if condition == "candidate" else []
        smoke.run(
            "run",
            "--runner",
            "stub",
            "--condition",
            condition,
            "--cases",
            cases,
            "--trials",
            "2",
            "--output",
            str(runs / "responses.jsonl"),
            *extra,
        )
    rows = (runs / "responses.jsonl").read_text(encoding="utf-8").splitlines()
    expect(len(rows) == 4, f"run wrote {len(rows)} rows, not 1 case x 2 trials x 2 conditions")
    smoke.run(
        "check",
        str(runs / "responses.jsonl"),
        "--cases",
        cases,
        "--suite",
        suite,
        "--output",
        str(runs / "checks.jsonl"),
        ok=(0, 1),
    )
    results = (runs / "checks.jsonl").read_text(encoding="utf-8").splitlines()
    expect(len(results) == 8, f"check wrote {len(results)} results, not 4 responses x 2 checks")
    smoke.run(
        "blind",
        str(runs / "responses.jsonl"),
        "--cases",
        cases,
        "--sheet",
        str(runs / "sheet.jsonl"),
        "--key",
        str(runs / "key.jsonl"),
    )
    smoke.run(
        "judge",
        str(runs / "sheet.jsonl"),
        "--runner",
        "stub",
        "--cases",
        cases,
        "--output",
        str(runs / "judged.jsonl"),
    )
    out = smoke.run(
        "score",
        str(runs / "judged.jsonl"),
        "--key",
        str(runs / "key.jsonl"),
        "--checks",
        str(runs / "checks.jsonl"),
        "--json",
        ok=(0, 1),
    )
    summary = json.loads(out[: out.rindex("}") + 1])
    expect("baseline" in json.dumps(summary), f"score's summary names no baseline:\n{out}")
    print("ok: stub run -> check -> blind -> stub judge -> score")


def hook(pre_commit: str, work: Path) -> None:
    """The hook installed from this repository as pre-commit does, on a fresh repository."""
    repo = work / "hook-repo"
    (repo / "evals").mkdir(parents=True)
    shutil.copy(ROOT / "evals" / "cases.jsonl", repo / "evals" / "cases.jsonl")
    (repo / "evals" / "bad.jsonl").write_text('{"id": "a"}\n', encoding="utf-8")
    env = {**os.environ, "PRE_COMMIT_HOME": str(work / ".pre-commit"), "GIT_CONFIG_GLOBAL": os.devnull}
    env.pop("GITHUB_ACTIONS", None)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    done = subprocess.run(
        [pre_commit, "try-repo", str(ROOT), "adhd-evals-lint", "--all-files"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    out = done.stdout + done.stderr
    expect(
        done.returncode == 1 and "evals/bad.jsonl:1:1: E103" in out,
        f"the hook did not report bad.jsonl:\n{out}",
    )
    print("ok: pre-commit installed the hook from the repository and it reported the bad catalog")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", type=Path, required=True, help="the folder holding the adhd-evals to test")
    parser.add_argument(
        "--pre-commit", help="a pre-commit executable: also try the hook from this repository"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="adhd-evals-smoke-") as tmp:
        smoke = Smoke(args.bin.resolve(), Path(tmp))
        try:
            version_and_help(smoke)
            readme_main_job(smoke)
            catalog = retargeting_reimport(smoke)
            lint(smoke)
            pipeline(smoke, catalog)
            if args.pre_commit:
                hook(args.pre_commit, Path(tmp))
        except SmokeFailed as failed:
            print(f"smoke test FAILED: {failed}", file=sys.stderr)
            return 1
    print(f"smoke test passed: {args.bin}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
