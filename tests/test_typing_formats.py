"""What typing the readers' raw YAML as `object` turned up (issue 36 item 4)."""

from __future__ import annotations

from pathlib import Path

from adhd_evals.lint import lint_paths


def test_a_number_as_a_case_yaml_key_is_warned_about_at_its_place(tmp_path: Path) -> None:
    """YAML 1.2 reads the keys `2` and `1` as numbers: lint once failed joining them into its
    messages (exit 70). Worked by hand: `2: y` under execution is line 3, its value at column
    6; `1: x` is line 4, its value at column 4; each message names the key as written."""
    path = tmp_path / "evals" / "c" / "case.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(
        "execution:\n  prompt: Hi\n  2: y\n1: x\ngraders:\n  - {name: g, type: llm, criteria: Ok.}\n"
    )
    problems = lint_paths([path]).problems
    assert [(p.code, p.line, p.column) for p in problems] == [
        ("PluginEvalUndocumentedKey", 3, 6),
        ("PluginEvalUndocumentedKey", 4, 4),
    ]
    assert [p.message.split(":")[0] for p in problems] == ["execution.2", "1"]
