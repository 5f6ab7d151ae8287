"""One test per refusal: the message names file, case and field; nothing is written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.importing.model import Refusal, RefusalCode
from helpers import Fixture, fixture_params, fixtures

# A refusal by its stable code, as a fixture names it (the enum's own lookup by value, typed)
BY_CODE = {code.value: code for code in RefusalCode}
PREVIOUS = {"cases.jsonl": '{"id": "keep-me"}\n', "checks.py": "# hand-written, keep me\n"}


def _run(fixture: Fixture, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    argv = ["import", "--format", fixture.format, fixture.meta["source"], "--out", str(out)]
    for key, value in fixture.meta["args"].items():
        argv += [f"--{key}", value]
    if "dialect" in fixture.meta:
        argv += ["--dialect", fixture.meta["dialect"]]
    cwd = os.getcwd()
    os.chdir(fixture.folder)
    try:
        code = main(argv)
    finally:
        os.chdir(cwd)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("fixture", fixture_params("bad"))
def test_bad_fixture_is_refused_whole(
    fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fresh = tmp_path / "fresh"
    code, err = _run(fixture, fresh, capsys)
    expected_code = BY_CODE[fixture.meta["code"]]
    assert code == exitcodes.REFUSAL[expected_code]
    assert f"({expected_code.value})" in err
    for mention in fixture.meta["mentions"]:
        assert mention in err
    assert "Traceback" not in err
    assert not fresh.exists()


@pytest.mark.parametrize("fixture", fixture_params("bad"))
def test_refused_import_leaves_existing_output_untouched(
    fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "evals"
    out.mkdir()
    for name, text in PREVIOUS.items():
        (out / name).write_text(text)
    code, _ = _run(fixture, out, capsys)
    assert code != 0
    assert {p.name: p.read_text() for p in out.iterdir()} == PREVIOUS


def test_every_refusal_code_has_a_fixture_or_a_test() -> None:
    covered = {BY_CODE[f.meta["code"]] for f in fixtures("bad")}
    # A directory that cannot be listed has no on-disk fixture (see below); a plugin eval results
    # file is refused by score, not import (tests/test_plugin_eval_results.py).
    assert covered | {RefusalCode.DIRECTORY_UNREADABLE, RefusalCode.NOT_PLUGIN_EVAL_RESULTS} == set(
        RefusalCode
    )


def test_unlistable_directory_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # As root, permission bits do not stop a listing, so the failure is injected.
    source = tmp_path / "tasks"
    source.mkdir()
    real_iterdir = Path.iterdir

    def failing_iterdir(self: Path):  # type: ignore[no-untyped-def]
        if self == source:
            raise PermissionError(13, "Permission denied", str(self))
        return real_iterdir(self)

    monkeypatch.setattr(Path, "iterdir", failing_iterdir)
    code = main(["import", "--format", "yaml", str(source)])
    err = capsys.readouterr().err
    assert code == exitcodes.REFUSAL[RefusalCode.DIRECTORY_UNREADABLE]
    assert "(CaseDirectoryUnreadable)" in err and str(source) in err and "Permission denied" in err


def test_deep_json_nesting_is_refused_without_recursion_error(tmp_path: Path) -> None:
    from adhd_evals.importing.importer import import_source

    source = tmp_path / "evals.json"
    depth = 100_000
    source.write_text(
        '{"skill_name": "x", "evals": [{"id": 1, "prompt": "p", "files": ' + "[" * depth + "]" * depth + "}]}"
    )
    with pytest.raises(Refusal) as caught:
        import_source("evals-json", source)
    assert caught.value.code is RefusalCode.NOT_JSON
    assert "nesting too deep" in caught.value.message


def test_deep_note_is_refused_naming_the_field(tmp_path: Path) -> None:
    from adhd_evals.importing.importer import import_source

    source = tmp_path / "evals.json"
    source.write_text(
        '{"skill_name": "x", "evals": [{"id": 1, "prompt": "p", "files": ' + "[" * 200 + "]" * 200 + "}]}"
    )
    with pytest.raises(Refusal) as caught:
        import_source("evals-json", source)
    assert caught.value.code is RefusalCode.NOT_EVALS_JSON
    assert caught.value.field_path == "files" and caught.value.case == "case 1"


def test_deep_yaml_nesting_is_refused_without_crashing(tmp_path: Path) -> None:
    from adhd_evals.importing.importer import import_source

    source = tmp_path / "task.yaml"
    depth = 100_000  # libyaml's C composer would crash the interpreter on this
    source.write_text("name: deep\ntask: t\nextra: " + "[" * depth + "]" * depth + "\n")
    with pytest.raises(Refusal) as caught:
        import_source("yaml", source)
    assert caught.value.code is RefusalCode.NOT_YAML
    # Ours ("nesting at most 100 levels") or, with a libyaml that has its own
    # limit, libyaml's ("exceeded maximum nesting depth"): refused either way.
    assert "nesting" in caught.value.message


def test_recursive_yaml_alias_is_refused(tmp_path: Path) -> None:
    from adhd_evals.importing.importer import import_source

    source = tmp_path / "task.yaml"
    source.write_text("name: loop\ntask: t\nextra: &a [*a]\n")
    with pytest.raises(Refusal) as caught:
        import_source("yaml", source)
    assert caught.value.code is RefusalCode.NOT_YAML


def test_module_without_markers_is_not_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = fixtures("good")[0]
    out = tmp_path / "evals"
    out.mkdir()
    (out / "checks.py").write_text("# my own checks\n")
    code = main(["import", "--format", good.format, str(good.source), "--out", str(out)])
    assert code == exitcodes.OUTPUT
    assert "no '# adhd-evals:' markers" in capsys.readouterr().err
    assert (out / "checks.py").read_text() == "# my own checks\n"
    assert not (out / "cases.jsonl").exists()


def test_out_that_is_a_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = fixtures("good")[0]
    target = tmp_path / "evals"
    target.write_text("not a directory")
    code = main(["import", "--format", good.format, str(good.source), "--out", str(target)])
    assert code == exitcodes.OUTPUT
    assert "is a file" in capsys.readouterr().err
    assert target.read_text() == "not a directory"


def test_unknown_format_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "--format", "toml", "x.toml"]) == exitcodes.USAGE
    assert "toml" in capsys.readouterr().err


@pytest.mark.parametrize("bad_category", ["", "   "])
def test_empty_category_is_a_usage_error(bad_category: str, capsys: pytest.CaptureFixture[str]) -> None:
    good = fixtures("good")[0]
    assert (
        main(["import", "--format", good.format, str(good.source), "--category", bad_category])
        == exitcodes.USAGE
    )
    assert "--category" in capsys.readouterr().err


def test_the_yaml_depth_probe_stops_reading_past_the_bound() -> None:
    """The probe answers "deeper than MAX_DEPTH" from the first MAX_DEPTH + 1 levels: an older
    libyaml (PyYAML 6.0's) reads deep nesting in time quadratic in its depth, so reading on
    would cost minutes for an answer already known. The document's mapping is one level and
    each `[` one more: `x:` over 500 brackets reports 101 (MAX_DEPTH is 100), not 501; over 7
    brackets, exactly 8."""
    from adhd_evals.importing.formats import _yaml_safe

    assert _yaml_safe.MAX_DEPTH == 100
    assert _yaml_safe._nesting("x: " + "[" * 500 + "]" * 500 + "\n") == 101
    assert _yaml_safe._nesting("x: " + "[" * 7 + "]" * 7 + "\n") == 8
