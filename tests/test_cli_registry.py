"""Start-up builds only the command being run: what a person sees must not change."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
import typer

from adhd_evals import cli
from adhd_evals.cli import typed

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
    assert [info.name for info in typed._registry(["import", "x"]).registered_commands] == ["import"]
    for argv in ([], ["--help"], ["imprt"], ["--version"]):
        assert typed._registry(argv) is cli.app


@pytest.mark.long
@pytest.mark.parametrize("name", NAMES)
def test_help_of_each_command_is_unchanged(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    shown = _shown(typed._registry([name]), [name, "--help"], capsys)
    assert shown == _shown(cli.app, [name, "--help"], capsys) and f"adhd-evals {name}" in shown


@pytest.mark.parametrize(
    "argv",
    [
        ["import", "--bogus"],
        ["import"],
        ["import", "--format", "nope", "x"],
        ["plan", "--trials", "0"],
        ["score", "--gate", "nope"],  # SCORES may be absent now (--plugin-eval-results)
        ["check", "--json", "--json"],
    ],
)
def test_usage_errors_are_unchanged(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    shown = _shown(typed._registry(argv), argv, capsys)
    assert shown == _shown(cli.app, argv, capsys) and shown


def test_the_listing_keeps_its_order() -> None:
    """The commands in the order `adhd-evals --help` listed them before they were split by stage
    (copied from that listing): the pipeline's order, lint last."""
    assert NAMES == [
        "import",
        "survey",
        "validate",
        "check",
        "plan",
        "run",
        "merge",
        "cache",
        "score",
        "blind",
        "judge",
        "agree",
        "verdicts",
        "audit",
        "report",
        "export",
        "lint",
    ]


def test_the_registry_is_what_the_stage_modules_declare() -> None:
    """Every command a stage module declares is registered under that module, and no other name
    is: a command added to a stage without its line in cli.COMMANDS (or the other way round)
    fails here, not in front of a user."""
    declared: dict[str | None, str] = {}
    for stage in set(cli.COMMANDS.values()):
        commands: typer.Typer = importlib.import_module(f"adhd_evals.cli.{stage}").commands
        for info in commands.registered_commands:
            assert info.name not in declared, f"{info.name} is declared twice"
            declared[info.name] = stage
    assert declared == cli.COMMANDS


# Option names that two commands spell alike but that are not the same option: `cache`'s
# --cache is a folder always named (run's and plan's take [DIR]); report's --format is the
# report's own (html or markdown), not a source format.
NOT_SHARED = {("scale.py", "--cache"), ("scoring.py", "--format")}
# An option's first name where it is declared (after its default, if it has one).
OPTION = re.compile(r'typer\.Option\([^"]*"(--[a-z-]+)"')


def test_shared_options_are_declared_once() -> None:
    """An option more than one command takes is spelt in cli/options.py and in no command's
    module: the commands take it from there (an alias, or the option given its help)."""
    package = Path(cli.__file__).parent
    declared = set(OPTION.findall((package / "options.py").read_text()))
    assert len(declared) >= 25
    for module in sorted(package.glob("*.py")):
        if module.name == "options.py":
            continue
        spelt = set(OPTION.findall(module.read_text())) & declared
        assert spelt == {option for name, option in NOT_SHARED if name == module.name}, module.name
