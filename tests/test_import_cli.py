"""The import command as a user runs it: stdout, --out, the summary, re-runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from adhd_evals.entry import main
from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import Refusal, RefusalCode
from helpers import ROOT, fixtures

DIALECTS = next(f for f in fixtures("good") if f.name == "evals-json/dialects")


def test_without_out_the_catalog_goes_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "--format", "evals-json", str(DIALECTS.source)]) == 0
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert [row["id"] for row in rows][:2] == ["release-notes-1", "release-notes-2"]
    assert "Read 6 cases" in captured.err
    assert "converted 3 assertions into checks" in captured.err
    # case 7 states success only in expected_output: that is its criterion (11 placeholders)
    assert "11 assertions could not be converted and need a human" in captured.err
    assert "1 case had no criteria" in captured.err
    assert "1 case: criteria from expected_output" in captured.err
    assert "Risk: medium for every case (the default" in captured.err
    assert "source fields as notes" in captured.err
    assert "2 cases name fixture files; the files were not copied" in captured.err


def test_out_writes_both_files_and_a_rerun_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "evals"
    args = ["import", "--format", "evals-json", str(DIALECTS.source), "--out", str(out)]
    assert main(args) == 0
    first = {p.name: p.read_bytes() for p in out.iterdir()}
    assert sorted(first) == [".adhd-evals-sources.json", "cases.jsonl", "checks.py"]
    assert main(args) == 0
    assert {p.name: p.read_bytes() for p in out.iterdir()} == first


def test_risk_flag_is_applied_and_reported(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "--format", "evals-json", str(DIALECTS.source), "--risk", "high"]) == 0
    captured = capsys.readouterr()
    assert all(json.loads(line)["risk"] == "high" for line in captured.out.splitlines())
    assert "Risk: high for every case (from --risk)" in captured.err


def test_category_comes_from_the_skill_folder_without_skill_name() -> None:
    folder_fixture = next(f for f in fixtures("good") if f.name == "evals-json/bom-crlf-no-skill-name")
    outcome = import_source("evals-json", folder_fixture.source)
    assert {case.category for case in outcome.result.cases} == {"acme-refactor"}


def test_lone_surrogate_in_a_prompt_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "evals.json"
    source.write_text('{"evals": [{"id": 1, "prompt": "half \\ud800 a pair"}]}')
    with pytest.raises(Refusal) as caught:
        import_source("evals-json", source)
    assert caught.value.code is RefusalCode.NOT_EVALS_JSON and caught.value.field_path == "prompt"


@pytest.mark.parametrize(
    ("where", "escape"),
    [("prompt", "\\uDFFF"), ("assertions[0]", "\\udA00"), ("assertions[1].text", "\\uDbFf")],
)
def test_every_spelling_of_a_surrogate_escape_is_refused(tmp_path: Path, where: str, escape: str) -> None:
    # The readers skip the per-string check when the file has no \uD800-\uDFFF escape: every
    # spelling of one (upper, lower, mixed hex) must still reach it.
    texts = {"prompt": "p", "assertions[0]": "a", "assertions[1].text": "b"}
    texts[where] = f"half {escape} a pair"
    case = {
        "id": 1,
        "prompt": texts["prompt"],
        "assertions": [texts["assertions[0]"], {"text": texts["assertions[1].text"], "type": "t"}],
    }
    source = tmp_path / "evals.json"
    source.write_text(json.dumps({"evals": [case]}).replace("\\\\", "\\"))
    with pytest.raises(Refusal) as caught:
        import_source("evals-json", source)
    assert caught.value.field_path == where


def test_an_escaped_backslash_before_ud800_is_no_surrogate(tmp_path: Path) -> None:
    source = tmp_path / "evals.json"
    source.write_text('{"evals": [{"id": 1, "prompt": "a path C:\\\\ud800", "assertions": ["x"]}]}')
    (case,) = import_source("evals-json", source).result.cases
    assert case.prompt == "a path C:\\ud800"


def test_lone_surrogate_in_a_note_is_kept_escaped(tmp_path: Path) -> None:
    source = tmp_path / "evals.json"
    source.write_text('{"evals": [{"id": 1, "prompt": "p", "expected_output": "half \\ud800"}]}')
    outcome = import_source("evals-json", source)
    assert "\\ud800" in outcome.module
    outcome.module.encode("utf-8")


@pytest.mark.long
def test_python_dash_m_runs_the_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "adhd_evals", "import", "--format", "evals-json", str(DIALECTS.source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.count("\n") == 6


@pytest.mark.long
def test_demo_catalog_in_evals_is_reproduced_byte_for_byte(tmp_path: Path) -> None:
    """evals/ is produced by the README's first command from fixtures/."""
    demo = ROOT / "evals"
    out = tmp_path / "evals"
    source = DIALECTS.source.relative_to(ROOT).as_posix()
    done = subprocess.run(
        [sys.executable, "-m", "adhd_evals", "import", "--format", "evals-json", source, "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for name in ("cases.jsonl", "checks.py"):
        assert (out / name).read_bytes() == (demo / name).read_bytes()


def test_import_to_a_text_stream_stdout_writes_the_catalog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Called from Python with stdout swapped for a StringIO (no .buffer): the catalog still arrives."""
    import io

    source = tmp_path / "evals.json"
    source.write_text(
        '{"skill_name": "s", "evals": [{"id": 1, "prompt": "Hi é", "assertions": ["Says hi"]}]}',
        encoding="utf-8",
    )
    captured = io.StringIO()
    monkeypatch.setattr(sys, "stdout", captured)
    assert main(["import", "--format", "evals-json", str(source)]) == 0
    assert json.loads(captured.getvalue())["prompt"] == "Hi é"


def test_version_is_the_installed_distributions(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"adhd-evals {version('adhd-evals')}\n"
