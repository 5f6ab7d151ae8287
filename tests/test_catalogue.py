"""The catalogue of formats: its detection rule on the files where formats overlap, the hook
glob rule, the manifest's `files:` pattern, and what it refuses to load.

The expected format of each file below is worked from the declarations' rule (by name, then
by shape with `yields_to`, then what a named file's name allows) and the old detector's
precedence it keeps: a plugin eval case.yaml before a promptfoo config before a YAML case; a
named JSON file an evalflow dataset before a promptfoo config before a trigger list before an
evals.json.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from adhd_evals.errors import UsageError
from adhd_evals.importing import catalogue
from adhd_evals.importing.catalogue import Format, Head, hook
from adhd_evals.importing.catalogue.declare import path_regex
from adhd_evals.importing.detect import detect
from helpers import FIXTURES, ROOT

MANIFEST = ROOT / ".pre-commit-hooks.yaml"


@pytest.mark.parametrize(
    ("name", "text", "explicit", "expected"),
    [
        pytest.param("cases.JSONL", "", False, "catalog", id="jsonl-by-name-any-case"),
        pytest.param(
            "evals.json", '{"test_cases": [], "version": "1"}', True, "evals-json", id="name-beats-shape"
        ),
        pytest.param("dataset.json", "[]", False, "evalflow", id="dataset-by-name"),
        pytest.param("x.yaml", "task: t\nprompts: [p]\n", False, "promptfoo", id="yaml-yields-to-promptfoo"),
        pytest.param("case.yaml", "task: t\ngraders: []\n", False, "plugin-eval", id="yaml-yields-to-plugin"),
        pytest.param("case.yaml", "prompts: [p]\ngraders: []\n", False, "plugin-eval", id="promptfoo-yields"),
        pytest.param("case.yaml", "prompts: [p]\n", False, "promptfoo", id="case-yaml-of-promptfoo"),
        pytest.param("x.yml", "task: t\n", False, "yaml", id="yaml-by-task"),
        pytest.param("x.yaml", "name: n\n", False, None, id="yaml-unclaimed-in-folder"),
        pytest.param("x.yaml", "name: n\n", True, "yaml", id="yaml-named"),
        pytest.param(
            "x.json",
            '{"prompts": [], "tests": [], "test_cases": [], "version": 1}',
            True,
            "evalflow",
            id="json-evalflow-first",
        ),
        pytest.param("x.json", '{"prompts": [], "providers": []}', True, "promptfoo", id="json-promptfoo"),
        pytest.param(
            "x.json", '[{"query": "q", "should_trigger": true}]', True, "trigger-list", id="json-triggers"
        ),
        pytest.param("x.json", '{"should_not_trigger": []}', True, "trigger-list", id="json-two-lists"),
        pytest.param("x.json", "[]", True, "evals-json", id="json-empty-list"),
        pytest.param("x.json", "{not json", True, "evals-json", id="json-broken"),
        pytest.param("x.json", '{"prompts": []}', False, None, id="json-in-folder-unread"),
        pytest.param("checks.py", "# adhd-evals: module\n", False, "module", id="py-marked"),
        pytest.param("checks.py", "x = 1\n", False, None, id="py-unmarked-in-folder"),
        pytest.param("checks.py", "x = 1\n", True, "module", id="py-named"),
        pytest.param("notes.md", "", True, None, id="unknown"),
    ],
)
def test_detection(tmp_path: Path, name: str, text: str, explicit: bool, expected: str | None) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert catalogue.format_of(path, explicit=explicit) == expected


def test_a_plugin_eval_prompt_by_its_folder(tmp_path: Path) -> None:
    """A prompt.md is a case beside a graders/ folder and no case.yaml (then the case.yaml is
    the one linted); named, it is one whatever its folder holds."""
    prompt = tmp_path / "prompt.md"
    prompt.write_text("Say hi.\n", encoding="utf-8")
    assert catalogue.format_of(prompt, explicit=False) is None
    assert catalogue.format_of(prompt, explicit=True) == "plugin-eval"
    (tmp_path / "graders").mkdir()
    assert catalogue.format_of(prompt, explicit=False) == "plugin-eval"
    (tmp_path / "case.yaml").write_text("graders: []\n", encoding="utf-8")
    assert catalogue.format_of(prompt, explicit=False) is None


def test_a_named_file_only_one_format_can_be_is_not_read(tmp_path: Path) -> None:
    """A named checks.py can only be a check module: told without reading it (the hook's path
    then loads no marker reader); one that could be several formats is read."""
    head = Head(tmp_path / "checks.py")  # does not exist: reading it would give b""
    assert catalogue.recognise(head, catalogue.formats(), explicit=True) == catalogue.named("module")
    assert head._bytes is None
    head = Head(tmp_path / "x.yaml")
    assert catalogue.recognise(head, catalogue.formats(), explicit=True) == catalogue.named("yaml")
    assert head._bytes == b""


def test_head_parses_json_once(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"a": 1}', encoding="utf-8")
    head = Head(path)
    first = head.json()
    path.write_text("[]", encoding="utf-8")
    assert first == {"a": 1} and head.json() is first


@pytest.mark.parametrize(
    ("glob", "regex"),
    [
        ("evals/*.jsonl", r"(^|/)evals/[^/]*\.jsonl$"),
        ("evals/**/{case.yaml,prompt.md}", r"(^|/)evals/(.+/)?(case\.yaml|prompt\.md)$"),
        ("a?.{yaml,yml}", r"(^|/)a[^/]\.(yaml|yml)$"),
        ("odd{name", r"(^|/)odd\{name$"),
    ],
)
def test_hook_glob_to_regex(glob: str, regex: str) -> None:
    """Worked by the rule: `**/` any folders or none, `*` and `?` within one name, `{a,b}`
    either, everything else literal (a lone `{` too); anchored at a `/` or the start."""
    assert path_regex(glob) == regex


def test_the_manifest_says_what_the_catalogue_says() -> None:
    """.pre-commit-hooks.yaml's `files:` is the catalogue's pattern; regenerate it with
    `python -m adhd_evals.importing.catalogue.hook .pre-commit-hooks.yaml`."""
    [manifest] = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    assert manifest["files"] == catalogue.hook_pattern()


def test_regenerating_the_manifest_changes_only_its_files_line(tmp_path: Path) -> None:
    copy = tmp_path / "hooks.yaml"
    text = MANIFEST.read_text(encoding="utf-8")
    stale = re.sub(r"(?m)^  files: .*$", "  files: old", text)
    copy.write_text(stale, encoding="utf-8")
    target = [sys.executable, "-m", "adhd_evals.importing.catalogue.hook", str(copy)]
    assert subprocess.run(target, capture_output=True, check=False).returncode == 0
    assert copy.read_text(encoding="utf-8") == text
    assert hook.with_pattern("  files: x\n", "it's") == "  files: 'it''s'\n"


def test_regenerating_refuses_what_it_cannot_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No argument: usage (2); a manifest without one `files:` line, or none there: 1, and
    nothing written."""
    assert hook.main([]) == 2
    bare = tmp_path / "bare.yaml"
    bare.write_text("- id: x\n", encoding="utf-8")
    assert hook.main([str(bare)]) == 1
    assert bare.read_text(encoding="utf-8") == "- id: x\n"
    assert hook.main([str(tmp_path / "absent.yaml")]) == 1
    err = capsys.readouterr().err
    assert "expected one line starting 'files:', found 0" in err and "absent.yaml" in err


@pytest.mark.parametrize(
    "fmt", [pytest.param(fmt, id=fmt.name) for fmt in catalogue.formats() if fmt.reader is not None]
)
def test_each_declared_refusal_is_one_its_bad_fixtures_get(fmt: Format) -> None:
    """The code a format declares is one its own golden bad fixtures (fixtures/NAME/bad/*/
    fixture.json, which tests/test_golden.py holds the reader to) are refused with."""
    codes = {
        json.loads(path.read_text(encoding="utf-8"))["code"]
        for path in (FIXTURES / fmt.name / "bad").glob("*/fixture.json")
    }
    assert fmt.refusal is not None and fmt.refusal.value in codes


def test_what_adhd_evals_writes_has_no_reader() -> None:
    """The catalog and the check module are linted, never imported: no reader, no refusal."""
    written = [fmt for fmt in catalogue.formats() if fmt.reader is None]
    assert [(fmt.name, fmt.refusal) for fmt in written] == [("catalog", None), ("module", None)]


def _module(monkeypatch: pytest.MonkeyPatch, name: str, found: object) -> str:
    """A module `name` whose FORMAT is `found`, importable for the test's length."""
    module = types.ModuleType(name)
    module.__dict__["FORMAT"] = found
    monkeypatch.setitem(sys.modules, name, module)
    return name


def test_loading_refuses_a_module_without_a_format(monkeypatch: pytest.MonkeyPatch) -> None:
    """A registered module whose FORMAT is not a Format (or that has none) is named."""
    registered = catalogue.REGISTERED
    monkeypatch.setattr(catalogue, "REGISTERED", (*registered, "adhd_evals.schema"))
    with pytest.raises(TypeError, match=r"adhd_evals\.schema\.FORMAT is not a catalogue Format"):
        catalogue.formats()
    monkeypatch.setattr(catalogue, "REGISTERED", (*registered, _module(monkeypatch, "catalogue_not_one", 1)))
    with pytest.raises(TypeError, match=r"catalogue_not_one\.FORMAT is not a catalogue Format"):
        catalogue.formats()


def test_loading_refuses_two_formats_of_one_name(monkeypatch: pytest.MonkeyPatch) -> None:
    twin = Format(name="yaml", description="another", reader=None, refusal=None)
    monkeypatch.setattr(
        catalogue, "REGISTERED", (*catalogue.REGISTERED, _module(monkeypatch, "catalogue_twin", twin))
    )
    with pytest.raises(ValueError, match="two formats share a name"):
        catalogue.formats()


FOLDERS = st.sampled_from(["evals", "tasks", "cases", "agent_tasks", "pkg", "more"])
STEMS = st.sampled_from(
    ["cases", "evals", "dataset", "checks", "case", "prompt", "promptfooconfig", "promptfooconfig.ci", "x"]
)
SUFFIXES = st.sampled_from([".jsonl", ".json", ".yaml", ".yml", ".py", ".md", ".txt"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(folders=st.lists(FOLDERS, max_size=3), stem=STEMS, suffix=SUFFIXES)
@example(folders=["evals", "a"], stem="prompt", suffix=".md")  # selected: a plugin eval case's prompt
@example(folders=["cases"], stem="promptfooconfig", suffix=".yml")  # selected twice: yaml and promptfoo
def test_every_file_the_hook_selects_lint_can_read(
    tmp_path: Path, folders: list[str], stem: str, suffix: str
) -> None:
    """pre-commit names each selected file to `lint`: a file the hook's pattern selects must
    have a format when named, however empty (else the commit fails with "cannot tell its
    format")."""
    relative = "/".join([*folders, stem + suffix])
    if not re.search(catalogue.hook_pattern(), relative):
        return
    path = tmp_path.joinpath(*folders, stem + suffix)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("", encoding="utf-8")
    assert catalogue.format_of(path, explicit=True) is not None, relative


def test_a_folder_is_no_source_of_a_format_read_one_file_at_a_time(tmp_path: Path) -> None:
    """promptfoo declares `folders=False`: a folder whose only case file is a promptfoo config
    is not told a promptfoo source; beside a YAML case, the folder is the YAML case's."""
    (tmp_path / "promptfooconfig.yaml").write_text("prompts: [p]\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"holds promptfoo files, read one file at a time: name the file"):
        detect([tmp_path])
    (tmp_path / "t.yaml").write_text("name: n\ntask: t\n", encoding="utf-8")
    assert detect([tmp_path]) == "yaml"
