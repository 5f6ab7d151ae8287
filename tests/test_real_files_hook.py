"""The hook never blocks another tool's valid file, and still blocks a broken file of ours.

A scratch git repository holds, under the names the hook selects (`tasks/`, `cases/`,
`promptfooconfig*`): waza task files (`name:` and `inputs.prompt`, no `task:`), an Ansible
task list, a Tekton Task, a Kubernetes Deployment, a date parser's `cases/*.yaml` with
`name:`, and promptfoo configs whose prompts a Python file makes. The real `pre-commit`
runs the hook on the staged files, as a commit does: it passes. One YAML case of ours with
`judge_context` as a string is then staged: the hook fails, naming it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from adhd_evals.entry import main
from helpers import ROOT

WAZA = """\
id: explain-join-001
name: Explain a SQL join
inputs:
  prompt: Explain what INNER JOIN does in this query.
expected:
  output_contains: ["join"]
graders:
  - {name: long_enough, type: code, config: {assertions: ["len(output) > 10"]}}
"""
ANSIBLE = "- name: install nginx\n  apt:\n    name: nginx\n    state: present\n"
TEKTON = """\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: build
spec:
  steps:
    - name: compile
      image: golang:1.22
      script: go build ./...
"""
K8S = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
"""
PARSER_CASE = (
    'name: ISO date with offset\ninput: "2024-03-01T10:00:00+02:00"\nexpected: {year: 2024, month: 3}\n'
)
PROMPTFOO_PY = """\
prompts:
  - file://prompts.py:build_prompt
providers: [openai:gpt-4o-mini]
tests:
  - vars: {topic: tides}
    assert:
      - {type: contains, value: moon}
"""
PROMPTFOO_REDTEAM = """\
prompts:
  - file://prompt_gen.py:make
providers: [openai:gpt-4o-mini]
redteam:
  plugins: [harmful]
"""
OTHER_TOOLS = {
    "evals/waza/tasks/explain-join.yaml": WAZA,
    "evals/waza/tasks/explain-index.yaml": WAZA.replace("join", "index"),
    "roles/web/tasks/main.yml": ANSIBLE,
    "ci/tasks/build.yaml": TEKTON,
    "deploy/cases/web.yaml": K8S,
    "parser/tests/cases/iso-offset.yaml": PARSER_CASE,
    "promptfooconfig.yaml": PROMPTFOO_PY,
    "redteam/promptfooconfig.redteam.yaml": PROMPTFOO_REDTEAM,
    "prompts.py": "def build_prompt(context):\n    return 'Tell me about ' + context['vars']['topic']\n",
}
OURS_BROKEN = {
    "evals/tasks/pricing.yaml": "name: Pricing\ntask: Find the pricing page.\njudge_context: one string\n"
}


def test_lint_passes_other_tools_files_in_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The hook's command on the same files, in-process: exit 0; the YAML is skipped as another
    tool's, the promptfoo configs warn (the import cannot run Python), nothing errs."""
    for name, text in OTHER_TOOLS.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    linted = [str(tmp_path / n) for n in OTHER_TOOLS if not n.endswith(".py")]
    assert main(["lint", *linted]) == 0
    out = capsys.readouterr().out
    assert out.count("not a YAML case file; skipped") == 6
    assert out.count("adhd-evals cannot import this config (promptfoo may still run it)") == 2
    assert main(["lint", "--strict", *linted]) == 1
    capsys.readouterr()
    broken = tmp_path / "evals/tasks/pricing.yaml"
    broken.parent.mkdir(parents=True)
    broken.write_text(OURS_BROKEN["evals/tasks/pricing.yaml"], encoding="utf-8")
    assert main(["lint", *linted, str(broken)]) == 1
    assert "pricing.yaml:3:16: CaseFileNotYamlCase" in capsys.readouterr().out


# ---- the real pre-commit ---------------------------------------------------------------------

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def _stage(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)


def _hook_on_staged(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """`pre-commit try-repo` on the staged files (no --all-files): what a commit runs. This
    checkout is the hook's repository (try-repo takes its uncommitted state too)."""
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PIP_COMPILE": "0", **GIT_ENV}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run(
        ["pre-commit", "try-repo", str(ROOT), "adhd-evals-lint"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


@pytest.mark.long
@pytest.mark.skipif(
    shutil.which("pre-commit") is None or shutil.which("git") is None or not (ROOT / ".git").exists(),
    reason="needs the pre-commit tool, git and a git checkout",
)
def test_the_real_hook_lets_other_tools_files_through_and_stops_ours(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    _stage(repo, OTHER_TOOLS)
    home = tmp_path / "pre-commit-home"
    passed = _hook_on_staged(repo, home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
    _stage(repo, OURS_BROKEN)
    blocked = _hook_on_staged(repo, home)
    assert blocked.returncode == 1
    assert "Failed" in blocked.stdout
    assert "evals/tasks/pricing.yaml:3:16: CaseFileNotYamlCase" in blocked.stdout


# ---- the evidence, rule by rule ------------------------------------------------------------


def _why(tmp_path: Path, text: str, dialect_text: str | None = None) -> str | None:
    from adhd_evals.importing import dialect
    from adhd_evals.lint import dialect_keys
    from adhd_evals.lint.lookalike import why_not_ours

    path = tmp_path / "tasks" / "t.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    declared = None
    if dialect_text is not None:
        (tmp_path / "d.yaml").write_text(
            "adhd-evals-dialect: 1\nformat: yaml\n" + dialect_text, encoding="utf-8"
        )
        declared = dialect.load(tmp_path / "d.yaml")
    return why_not_ours(path, "yaml", dialect_keys(declared) if declared is not None else None)


@pytest.mark.parametrize(
    ("text", "ours"),
    [
        pytest.param("name: a\ntask: b\n", True, id="task-and-name"),
        pytest.param("task: b\njudge_context: [x]\n", True, id="task-and-judge-context"),
        pytest.param("task: b\nmax_steps: 3\n", True, id="task-and-max-steps"),
        pytest.param("name: a\ninput: b\n", False, id="name-alone"),
        pytest.param("task: build\nimage: go\n", False, id="task-alone"),
        pytest.param("", True, id="empty: the reader says so"),
    ],
)
def test_yaml_evidence(tmp_path: Path, text: str, ours: bool) -> None:
    assert (_why(tmp_path, text) is None) is ours


def test_under_a_dialect_its_keys_are_the_evidence(tmp_path: Path) -> None:
    """cases.prompt inputs.prompt: a top-level inputs: line is ours; a file without it is not."""
    shape = "cases:\n  prompt: inputs.prompt\n  id: id\n"
    assert _why(tmp_path, "id: a\ninputs: {prompt: x}\n", shape) is None
    assert _why(tmp_path, "name: a\ntask: x\n", shape) == "no top-level inputs: (the dialect's keys)"


def test_under_a_dialect_with_a_case_list_its_list_key_is_the_evidence(tmp_path: Path) -> None:
    shape = "cases:\n  at: [tasks, cases]\n  prompt: prompt\n  id: id\n"
    assert _why(tmp_path, "skill: s\ntasks: []\n", shape) is None
    assert _why(tmp_path, "skill: s\n", shape) == "no top-level tasks:, cases: (the dialect's keys)"


def test_a_file_that_is_the_list_is_ours_under_its_dialect(tmp_path: Path) -> None:
    assert _why(tmp_path, "- {q: x}\n", 'cases:\n  at: "."\n  id: "#"\n  prompt: q\n') is None


def test_a_dialect_of_another_format_does_not_change_yaml_evidence(tmp_path: Path) -> None:
    """lint --dialect for evals-json beside a tasks/ YAML file: yaml's own evidence decides."""
    from adhd_evals.importing import dialect
    from adhd_evals.lint import lint_paths

    (tmp_path / "d.yaml").write_text("adhd-evals-dialect: 1\nformat: evals-json\n", encoding="utf-8")
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "t.yaml").write_text("name: a\ninput: b\n", encoding="utf-8")
    report = lint_paths([tmp_path / "tasks" / "t.yaml"], dialect=dialect.load(tmp_path / "d.yaml"))
    assert [why for _, _, why in report.skipped] == [
        "no top-level task: beside name:, judge_context: or max_steps:"
    ]
