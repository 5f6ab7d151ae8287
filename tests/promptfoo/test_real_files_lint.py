"""Lint's promptfoo rules for what promptfoo reads otherwise than its author meant: a top-level
`assert` (nothing is checked), a config with no tests (each prompt once, no vars), a prompt
variable no test sets (rendered empty). Positions worked by hand from the configs below."""

from __future__ import annotations

from pathlib import Path

import pytest

from adhd_evals.entry import main


def _lint(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(text, encoding="utf-8")
    assert main(["lint", str(config)]) == 0  # warnings: the hook passes
    return [
        line.split(": ", 1)[1]
        for line in capsys.readouterr().out.splitlines()
        if line.startswith(str(config))
    ]


def test_a_top_level_assert_is_told_at_its_first_item(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = 'prompts: ["Hi {{ who }}"]\nassert:\n  - {type: contains, value: x}\ntests:\n  - vars: {who: a}\n'
    assert _lint(tmp_path, text, capsys) == [
        "PromptfooTopLevelAssert a top-level assert checks nothing in promptfoo: move it under defaultTest "
        "(every test) or a test"
    ]


@pytest.mark.parametrize("tests", ["", "tests: []\n"], ids=["none", "empty"])
def test_no_tests(tests: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _lint(tmp_path, 'prompts: ["Hello"]\n' + tests, capsys) == [
        "PromptfooNoTests no tests: promptfoo runs each prompt once with no vars and no assertions (one case per prompt)"
    ]


def test_a_variable_no_test_sets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`who` is set by defaultTest, `topic` by the tests, `mood` by none: told once, at the
    second prompt (line 3, column 5)."""
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        "prompts:\n  - 'Hi {{ who }}'\n  - '{{ mood }} {{topic}} {{ mood }}'\n"
        "defaultTest:\n  vars: {who: a}\ntests:\n  - vars: {topic: t}\n  - vars: {topic: u}\n",
        encoding="utf-8",
    )
    assert main(["lint", str(config)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        f"{config}:3:5: PromptfooVarNotSet prompts: {{{{ mood }}}} is set by no test, so promptfoo renders it empty"
    )


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("prompts: 'Hi {{ who }}'\ntests: file://tests.yaml\n", id="tests in a file"),
        pytest.param(
            "prompts: ['{% for x in xs %}{{ x }}{% endfor %}']\ntests:\n  - vars: {xs: [a]}\n", id="a loop"
        ),
        pytest.param("prompts: ['file://p.txt']\ntests:\n  - vars: {}\n", id="a prompt file"),
        pytest.param("prompts: 'Hi {{ who }}'\ntests:\n  - vars: {who: a}\n", id="one prompt, set"),
    ],
)
def test_what_cannot_be_told_here_is_not_warned(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(text, encoding="utf-8")
    main(["lint", str(config)])
    assert "PromptfooVarNotSet" not in capsys.readouterr().out


def test_the_import_says_a_config_has_no_tests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text('prompts: ["Hello", "Bye"]\n', encoding="utf-8")
    assert main(["import", "--format", "promptfoo", str(config)]) == 0
    assert "The config has no tests: 2 cases, one per prompt, with no vars (as promptfoo runs it)." in (
        capsys.readouterr().err
    )
