"""Start-up builds only the command being run: what a person sees must not change."""

from __future__ import annotations

import pytest
import typer

from adhd_evals import cli

NAMES = [info.name for info in cli.app.registered_commands]


def _shown(app: typer.Typer, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """What a person sees: the output, and a usage error's message."""
    try:
        app(args=argv, prog_name="adhd-evals", standalone_mode=False)
    except typer.TyperException as exc:
        return capsys.readouterr().out + exc.format_message()
    except typer.Exit:
        pass
    return capsys.readouterr().out


def test_a_named_command_gets_an_app_of_its_own_and_anything_else_the_whole_app() -> None:
    assert len(NAMES) == len(set(NAMES)) and "import" in NAMES  # lint is dispatched before typer
    assert [info.name for info in cli._registry(["import", "x"]).registered_commands] == ["import"]
    for argv in ([], ["--help"], ["imprt"], ["--version"]):
        assert cli._registry(argv) is cli.app


@pytest.mark.parametrize("name", NAMES)
def test_help_of_each_command_is_unchanged(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    shown = _shown(cli._registry([name]), [name, "--help"], capsys)
    assert shown == _shown(cli.app, [name, "--help"], capsys) and f"adhd-evals {name}" in shown


@pytest.mark.parametrize(
    "argv",
    [
        ["import", "--bogus"],
        ["import"],
        ["import", "--format", "nope", "x"],
        ["plan", "--trials", "0"],
        ["score"],
        ["check", "--json", "--json"],
    ],
)
def test_usage_errors_are_unchanged(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    shown = _shown(cli._registry(argv), argv, capsys)
    assert shown == _shown(cli.app, argv, capsys) and shown
