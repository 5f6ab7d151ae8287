"""The real pre-commit tool drives the hook against a temporary repository."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import ROOT

GOOD = '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["Answers 102."]}\n'
pytestmark = pytest.mark.skipif(
    shutil.which("pre-commit") is None or shutil.which("git") is None,
    reason="needs the pre-commit tool and git",
)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit cache for the module: the hook's environment is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    return repo


GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def _hook_repository(home: Path) -> Path:
    """This repository as pre-commit clones it: the checkout itself, or, where the tests run from
    an unpacked sdist (no .git), a git repository committed from a copy of it."""
    if (ROOT / ".git").exists():
        return ROOT
    copy = home.parent / "hook-repository"
    if not copy.exists():
        shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".venv", "__pycache__", "*.egg-info"))
        env = {**os.environ, **GIT_ENV}
        for argv in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "sdist"]):
            subprocess.run(["git", *argv], cwd=copy, env=env, check=True)
    return copy


def _try_repo(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    # PIP_COMPILE=0 (pip install --no-compile; PIP_NO_COMPILE=1 would not do it): the hook's
    # environment is used once, so pip need not byte-compile its packages (numpy's alone took
    # 28 s on a loaded machine); the hook runs the same
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PIP_COMPILE": "0", **GIT_ENV}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run(
        ["pre-commit", "try-repo", str(_hook_repository(home)), "adhd-evals-lint", "--all-files"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


@pytest.mark.long
def test_the_real_pre_commit_runs_the_hook_and_says_where(tmp_path: Path, home: Path) -> None:
    """One real `pre-commit try-repo` (it builds the hook's environment: the slow part,
    done once per run); everything else about the hook is tested in-process below."""
    bad = GOOD + GOOD.replace('"low"', '"severe"').replace('"a"', '"b"')
    done = _try_repo(
        _repo(
            tmp_path,
            {
                "evals/cases.jsonl": bad,
                "tests/agent_tasks/t.yaml": "name: n\ntask: t\nmax_steps: ten\n",
                "README.md": "not linted\n",
            },
        ),
        home,
    )
    assert done.returncode == 1
    assert "Failed" in done.stdout
    assert "evals/cases.jsonl:2:53: E107" in done.stdout
    assert "t.yaml:3:12: CaseFileNotYamlCase" in done.stdout
    assert "README.md" not in done.stdout
