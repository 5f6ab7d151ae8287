"""The fast path (cli.fast) reaches the same body with the same arguments as typer, or defers.

Each declared command's body is replaced by a recorder; a command line is given to typer (the
cli.typed app) and to the fast parser, and the keyword arguments each passes are compared by
repr (so a Path is not a str, a list not a tuple, 1 not 1.0). Deferring is always allowed; a
call typer would refuse must never be taken.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.cli import _declared, declare, fast, typed
from adhd_evals.cli.declaration import Command, Param
from adhd_evals.cli.plain import bare_cache
from adhd_evals.errors import UserError

DECLARED = _declared.COMMANDS


class Called(Exception):
    """Raised by the recorder, so nothing of a body runs."""

    def __init__(self, keywords: dict[str, object]) -> None:
        super().__init__()
        self.keywords = keywords


def _record(**keywords: object) -> int:
    raise Called(keywords)


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every declared command's body replaced by the recorder."""
    for command in DECLARED.values():
        module, _, function = command.body.partition(":")
        monkeypatch.setattr(importlib.import_module(module), function, _record)
    yield


def _typer_call(argv: list[str]) -> str | None:
    """repr of the keywords typer passes the body, or None when typer calls no body (both paths
    get the line as cli.main hands it on: a bare --cache made --cache=)."""
    try:
        typed.main(bare_cache(argv))
    except Called as called:
        return repr(called.keywords)
    except UserError:
        return None
    return None


def _fast_call(argv: list[str]) -> str | None:
    """repr of the keywords the fast path passes, or None when it defers."""
    try:
        assert fast.run(bare_cache(argv)) is None
    except Called as called:
        return repr(called.keywords)
    return None


def test_the_declarations_are_regenerated_byte_for_byte() -> None:
    """cli/_declared.py is what `python -m adhd_evals.cli.declare` writes from today's typer app:
    a changed option that was not regenerated fails here."""
    assert declare.render(declare.declarations()) == declare.TARGET.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "argv",
    [
        ["validate"],
        ["validate", "cases.jsonl"],
        ["validate", "--max-bytes", "10", "x.jsonl"],
        ["validate", "--max-bytes=1", "x.jsonl"],
        ["plan", "--cases", "c.jsonl", "--trials", "1"],
        ["plan", "--estimate", "--history", "a", "--history=b", "--runner", "r", "--jobs", "4"],
        ["plan", "--from-scores", "s.jsonl", "--effect", "0.5", "--effect", "1"],
        ["plan", "--cache=", "--estimate", "--json"],
        ["merge", "a", "b", "--output", "m.jsonl", "--plan", "p.jsonl"],
        ["cache", "prune", "--older-than", "30d", "--cache", "dir"],
        ["cache", "stats"],
        ["export", "--to", "evals-json", "--out", "e.json"],
        ["score", "s.jsonl"],
        [
            "run",
            "--runner",
            "stub",
            "--condition",
            "baseline",
            "--output",
            "o.jsonl",
            "--case",
            "a",
            "--case",
            "b",
        ],
        [
            "run",
            "--runner",
            "r",
            "--condition",
            "candidate",
            "--output",
            "o",
            "--cache",
            "--budget-usd",
            "2.5",
        ],
        [
            "run",
            "--runner",
            "r",
            "--condition",
            "comparator",
            "--output",
            "o",
            "-j",
            "4",
            "--stop-when-decided",
        ],
        ["judge", "s.jsonl", "--runner", "stub", "--output", "j.jsonl", "--swap-check", "--controls"],
        ["audit", "c.jsonl", "--flaky-above", "1", "--effect", "0.25", "--markdown"],
        ["audit", "--prompt-only", "--quarantine-out", "q.jsonl", "--json"],
        ["check", "r.jsonl", "--suite", "c.py", "--check-timeout", "0", "--shard", "1/2", "--junit", "j.xml"],
        ["check", "r.jsonl", "--shard", "auto", "--shard-count", "4", "--json", "--output", "o.jsonl"],
        ["blind", "r.jsonl", "--sheet", "s.jsonl", "--key", "k.jsonl", "--label-sample", "2", "--seed", "3"],
        ["score", "--checks", "c.jsonl", "--gate", "paired", "--min-effect", "0.5", "--seed", "7", "--json"],
        ["score", "s.jsonl", "--max-drop", "0", "--min-trials", "2", "--allow-leaky-judge"],
        ["verdicts", "--out", "v.jsonl", "--labels", "a.md", "--labels", "b.jsonl", "--checks", "c.jsonl"],
        ["report", "--responses", "r.jsonl", "--out", "r.html", "--format", "markdown", "--full"],
        ["import", "e.json"],
        ["import", "a", "b", "-f", "yaml", "--out", "evals", "--risk", "high", "--dry-run", "--prune"],
        ["import", "--format=promptfoo", "p.yaml", "--skip-test", "2", "--skip-test", "5", "--replace"],
        ["import", "d", "--dialect", "d.yaml", "--category", "c", "--skill", "s", "--no-default-criteria"],
        ["survey", "--format", "yaml", "cases", "--out", "dialect.yaml"],
        ["survey", "-f", "evals-json", "a.json", "b.json", "--max-bytes", "100"],
        ["agree", "judged.jsonl", "human.md", "--min-kappa", "0.6", "--json"],
        ["agree", "j.jsonl", "h.jsonl", "--certify", "--min-lower", "0.9", "--out", "cert.json"],
        ["agree", "--judges", "a.jsonl", "b.jsonl", "--key", "k.jsonl", "--allow-leaky-judge"],
    ],
)
def test_a_clean_line_takes_the_fast_path_with_typers_arguments(recorded: None, argv: list[str]) -> None:
    """Lines typer accepts, each option written as the docs write them: the fast path takes every
    one (none defers) and passes exactly the keywords typer passes."""
    fast_call = _fast_call(argv)
    assert fast_call is not None
    assert fast_call == _typer_call(argv)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["nope"],
        ["import"],  # SOURCES missing
        ["import", "x", "--format", "toy"],  # not a registered format (a toy registered later: typer's)
        ["import", "x", "-f=yaml"],
        ["import", "x", "--skip-test", "-1"],
        ["survey", "x"],  # --format missing
        ["agree", "--judges", "a.jsonl"],  # a pair, one short
        ["agree", "--judges", "a.jsonl", "-b"],
        ["agree", "--judges=a.jsonl", "b.jsonl"],  # click reads it so; nobody writes it
        ["agree", "--judges", "a", "b", "--judges", "c", "d"],
        ["agree", "--judges", "a", ""],  # an empty path
        ["validate", "--help"],
        ["validate", "a", "b"],  # one argument too many
        ["validate", "-"],
        ["validate", "--", "x"],
        ["validate", "--max-bytes", "0"],  # below min=1
        ["validate", "--max-bytes", "010"],
        ["validate", "--max-bytes", "+1"],
        ["validate", "--max-bytes", "1_0"],
        ["validate", "--max-bytes", "1", "--max-bytes", "2"],
        ["validate", "--max-bytes"],  # no value
        ["validate", "--max-bytes", "-1"],
        ["validate", "--max-bytes", "x"],
        ["validate", ""],  # an empty path
        ["plan", "--estimate=yes"],  # a flag with a value
        ["plan", "--estimate", "--estimate"],
        ["plan", "--effect", "1e3"],
        ["plan", "--effect", ".5"],
        ["plan", "--effect", "1."],
        ["plan", "--effect", "٣"],  # a digit, but not an ASCII one
        ["validate", "--max-bytes", "1.5"],
        ["merge", "--output", "m.jsonl"],  # SHARDS missing
        ["merge", "a"],  # --output missing
        ["cache", "trim"],  # not a choice
        ["score", "--gate", "Paired"],
        ["audit", "--flaky-above", "1.5"],  # above max=1
        ["run", "--runner", "r", "--output", "o"],  # --condition missing
        ["check", "r.jsonl", "--check-timeout", "-1"],
        ["blind", "r.jsonl", "--sheet", "s.jsonl"],  # --key missing
        ["score", "--min-trials", "0"],
        ["report", "--out", "r.html"],  # --responses missing
        ["export", "-f=x", "--to", "promptfoo", "--out", "o"],
    ],
)
def test_anything_else_is_left_to_typer(recorded: None, argv: list[str]) -> None:
    """A line the fast parser is not sure of (unknown, repeated, out of range, oddly written,
    missing) defers: typer parses it as before."""
    assert _fast_call(argv) is None


def test_a_completion_request_is_left_to_typer(recorded: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """With click's completion variable set, a clean line is still typer's: it answers with
    completions, and no body runs."""
    monkeypatch.setenv("_ADHD_EVALS_COMPLETE", "bash_complete")
    assert _fast_call(["validate", "x.jsonl"]) is None


def _words(param: Param) -> st.SearchStrategy[list[str]]:
    """How a person might write one parameter: clean values and every near miss."""
    if param.kind == "flag":
        return st.sampled_from([[param.flags[0]], [f"{param.flags[0]}=1"]])
    values = {
        "int": st.sampled_from(["0", "1", "3", "7", "10", "010", "-2", "+3", "1_0", " 4", "x", "1.5"]),
        "float": st.sampled_from(["0", "0.5", "1", "2.25", "-1", "1e2", ".5", "nan", "inf", "0.1"]),
        "path": st.sampled_from(["a", "dir/b.jsonl", "", "-", "a b", "--x", "é.jsonl"]),
        "str": st.sampled_from(["r", "", "dir", "-r", "30d", "auto"]),
        "choice": st.sampled_from(
            [*fast.choices(param), "nope", *(c.upper() for c in fast.choices(param)[:1])]
        ),
    }[param.kind]
    if not param.flags:
        return st.lists(values, min_size=0, max_size=3 if param.many else 1)
    flag = st.sampled_from(param.flags)
    spelled = st.one_of(
        st.tuples(flag, st.lists(values, min_size=param.nargs, max_size=param.nargs)).map(
            lambda fv: [fv[0], *fv[1]]
        ),
        st.tuples(flag, values).map(lambda fv: [f"{fv[0]}={fv[1]}"]),
        st.tuples(flag, st.lists(values, min_size=1, max_size=3)).map(lambda fv: [fv[0], *fv[1]]),
    )
    return st.lists(spelled, min_size=1, max_size=2).map(lambda parts: [w for part in parts for w in part])


@st.composite
def _lines(draw: st.DrawFn) -> list[str]:
    """A command and a shuffle of some of its parameters' words, sometimes with a stray word."""
    name = draw(st.sampled_from(sorted(DECLARED)))
    command: Command = DECLARED[name]
    # by position: a Param with a list default (import's --skip-test) cannot be hashed
    at = draw(st.lists(st.integers(0, len(command.params) - 1), max_size=5, unique=True))
    chosen = [command.params[n] for n in at]
    options = [draw(_words(p)) for p in chosen if p.flags]
    positional = [w for p in chosen if not p.flags for w in draw(_words(p))]
    words = draw(st.permutations([*options, *([positional] if positional else [])]))
    stray = draw(st.sampled_from([[], [], [], ["--help"], ["--bogus"], ["extra"], ["--"]]))
    return [name, *(w for part in words for w in part), *stray]


@settings(max_examples=150, deadline=None)
@given(argv=_lines())
def test_the_fast_path_agrees_with_typer_or_defers(argv: list[str]) -> None:
    """Whatever line hypothesis writes from the declarations, the fast path either defers or calls
    the body with exactly typer's arguments (and never takes a line typer refuses)."""
    with pytest.MonkeyPatch.context() as patch:
        for command in DECLARED.values():
            module, _, function = command.body.partition(":")
            patch.setattr(importlib.import_module(module), function, _record)
        fast_call = _fast_call(argv)
        if fast_call is not None:
            assert fast_call == _typer_call(argv)


def test_every_declared_body_takes_its_typer_commands_parameters() -> None:
    """Each declared command names a plain body whose keywords are the declaration's names."""
    for command in DECLARED.values():
        module, _, function = command.body.partition(":")
        body = getattr(importlib.import_module(module), function)
        assert list(inspect.signature(body).parameters) == [p.name for p in command.params]
        assert module.startswith("adhd_evals.cli.plain.")


def test_a_path_is_rendered_as_path_source() -> None:
    """Worked by hand: a Path default is written Path("..."), or by its name where schema.py holds
    it (one home per default path); a one-item tuple keeps its comma."""
    assert declare._literal(Path("evals/cases.jsonl")) == "Path(DEFAULT_CATALOG)"
    assert declare._literal(Path("a/b.jsonl")) == 'Path("a/b.jsonl")'
    assert declare._literal(("--x",)) == '("--x",)'
    assert declare._literal(("a", "b")) == '("a", "b")'
    assert declare._literal(("baseline", "candidate", "comparator")) == "CONDITIONS"


class _Colour(enum.Enum):
    RED = "red"


def _body_of_validate(*, cases: Path) -> int:
    return 0


@pytest.mark.parametrize(
    ("annotation", "info"),
    [
        (int, object()),  # not a typer parameter at all
        (int, typer.Option(1, "--x", envvar="X")),  # an envvar: typer's to read
        (int, typer.Option(1, "--x", callback=print)),
        (bool, typer.Option(False)),  # typer's own names: --x/--no-x
        (bool, typer.Option(False, "--x/--no-x")),
        (dict, typer.Option(None, "--x")),  # a type the fast path does not read
        (list[bool], typer.Option(None, "--x")),
        (Literal[1, 2], typer.Option(1, "--x")),
        (_Colour, typer.Option(_Colour.RED, "--x")),  # an enum default
        (str, typer.Option(object(), "--x")),
        (list[_Colour], typer.Option([_Colour.RED], "--x")),  # a list default of an enum
        (tuple[Path, Path], typer.Argument(None)),  # an argument of fixed arity
        (tuple[Path, int], typer.Option(None, "--x")),  # a pair of two types
        (tuple[bool, bool], typer.Option(None, "--x")),
    ],
)
def test_a_parameter_the_fast_path_cannot_read_keeps_its_command_on_typer(
    annotation: object, info: object
) -> None:
    with pytest.raises(declare.Undeclarable):
        declare._param("x", annotation, info)


def test_a_plain_parameter_is_declared_as_typer_reads_it() -> None:
    """Worked from the declaration: an optional list of floats given as --effect, default None."""
    param = declare._param("effect", list[float] | None, typer.Option(None, "--effect", "-e"))
    assert param == Param("effect", ("--effect", "-e"), "float", many=True)


def test_a_body_that_does_not_take_the_commands_parameters_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """validate's body must take cases and max_bytes, in that order: one short is a mistake, said
    when the declarations are written rather than at a user's command line."""
    from adhd_evals.cli.plain import catalog

    monkeypatch.setattr(catalog, "validate", _body_of_validate)
    with pytest.raises(ValueError, match="does not take validate's parameters"):
        declare._command("validate", "catalog")


def test_a_command_without_a_plain_body_stays_on_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    from adhd_evals.cli.plain import catalog

    monkeypatch.delattr(catalog, "validate")
    assert "validate" not in declare.declarations() and "export" in declare.declarations()
    with pytest.raises(declare.Undeclarable):
        declare._command("lint", "linting")  # a stage with no plain module


def test_the_generator_writes_the_declarations(tmp_path: Path) -> None:
    """`python -m adhd_evals.cli.declare PATH` writes what render gives (here to a scratch file,
    not over the package's own)."""
    target = tmp_path / "_declared.py"
    done = subprocess.run(
        [sys.executable, "-m", "adhd_evals.cli.declare", str(target)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert target.read_text(encoding="utf-8") == declare.render(declare.declarations())


def test_a_param_too_long_for_one_line_is_laid_out_one_argument_a_line() -> None:
    """As ruff lays out a call past 110 columns: each argument on its own line, trailing commas."""
    choices = tuple(f"choice-{n}" for n in range(12))
    source = declare._param_source(Param("fmt", ("--format",), "choice", choices=choices))
    lines = source.splitlines()
    assert lines[0] == "            Param(" and lines[-1] == "            ),"
    assert lines[1:4] == [
        '                "fmt",',
        '                ("--format",),',
        '                "choice",',
    ]
    assert lines[4].startswith("                choices=(") and len(lines) == 6


def test_a_pair_is_declared_as_an_option_of_two_words() -> None:
    """Worked from agree's --judges: tuple[Path, Path] | None, default None: two words, one path
    kind, not repeatable."""
    param = declare._param("judges", tuple[Path, Path] | None, typer.Option(None, "--judges"))
    assert param == Param("judges", ("--judges",), "path", nargs=2)


def test_a_list_default_is_declared_and_written_as_a_list() -> None:
    """import's --skip-test: list[int] defaulting to []; written back as `default=[]`, and the
    fast path hands each call a fresh list of its own (typer does)."""
    param = declare._param("skip_test", list[int], typer.Option([], "--skip-test"))
    assert param == Param("skip_test", ("--skip-test",), "int", many=True, default=[])
    assert declare._literal([1, 2]) == "[1, 2]"
    command = Command("m:f", (param,))
    first, second = fast.parse(command, []), fast.parse(command, [])
    assert first == second == {"skip_test": []}
    assert first is not None and second is not None
    assert first["skip_test"] is not second["skip_test"] is not param.default


def test_a_keyword_command_has_its_body_under_a_trailing_underscore() -> None:
    """`import` is a Python keyword: its body is import_, found by the generator."""
    assert DECLARED["import"].body == "adhd_evals.cli.plain.importing:import_"
    assert declare._command("import", "importing") == DECLARED["import"]


def test_the_source_formats_are_read_from_the_catalogue_when_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """import's --format names no list of its own: its choices are the catalogue's at the moment
    the line is parsed (a format registered at run time is one typer offers too)."""
    from adhd_evals.importing import catalogue

    (param,) = [p for p in DECLARED["import"].params if p.name == "format"]
    assert param.choices == () and param.choices_from == "adhd_evals.importing.catalogue:source_names"
    monkeypatch.setattr(catalogue, "source_names", lambda: ("toy", "yaml"))
    command = Command("m:f", (param,))
    assert fast.parse(command, ["--format", "toy"]) == {"format": "toy"}
    assert fast.parse(command, ["--format", "evals-json"]) is None
