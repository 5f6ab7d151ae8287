"""lint's fast command-line reading (lint/argv.py) against argparse's (lint/usage.py).

The rule: for any line, the fast reading either defers (None) or gives exactly the arguments
argparse gives (compared by repr, so a Path is not a str and a list not a tuple). Lines are
hand-written (one per refusal, each with why) and built by hypothesis from lint's declared
options, their values, near misses and paths.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.files import DEFAULT_MAX_BYTES
from adhd_evals.lint import FORMATS, cli
from adhd_evals.lint.argv import LintArgs, parse

OUTPUTS = tuple(cli.RENDERERS)


def _fast(argv: list[str]) -> LintArgs | None:
    return parse(argv, formats=FORMATS, outputs=OUTPUTS)


def _argparse(argv: list[str]) -> LintArgs | None:
    """argparse's arguments, or None where it prints help or a usage error and exits."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return LintArgs(**vars(cli._parser().parse_args(argv)))
        except SystemExit:
            return None


def test_the_hooks_line_is_read_fast() -> None:
    """pre-commit's line: two paths, nothing else; the defaults are usage.py's (max bytes
    256 MiB, no select or ignore)."""
    expected = LintArgs([Path("evals/cases.jsonl"), Path("evals/checks.py")], [], [])
    assert repr(_fast(["evals/cases.jsonl", "evals/checks.py"])) == repr(expected)
    assert expected.max_bytes == DEFAULT_MAX_BYTES == 256 * 1024 * 1024


def test_every_option_is_read_fast() -> None:
    """Each declared option once, both spellings of a value; --select twice and comma'd kept as given."""
    argv = ["--strict", "--select", "E1,W", "--select=W202", "--ignore", "Case", "--format-of=catalog"]
    argv += ["--output-format", "json", "--max-bytes", "007", "--dialect=d.yaml", "a", "b"]
    expected = LintArgs(
        [Path("a"), Path("b")],
        ["E1,W", "W202"],
        ["Case"],
        format_of="catalog",
        output_format="json",
        strict=True,
        max_bytes=7,
        dialect=Path("d.yaml"),
    )
    assert repr(_fast(argv)) == repr(expected) == repr(_argparse(argv))


# Each line the fast reading leaves to argparse, and why.
DEFERRED = [
    pytest.param([], id="no path: argparse's usage error"),
    pytest.param(["--help"], id="help"),
    pytest.param(["-h", "a"], id="short help"),
    pytest.param(["--stric", "a"], id="an abbreviation argparse may take"),
    pytest.param(["--bogus", "a"], id="an unknown option"),
    pytest.param(["--", "a"], id="the end of options"),
    pytest.param(["-"], id="a dash as a path"),
    pytest.param(["-1"], id="a path that starts with a dash"),
    pytest.param(["a", "--strict", "b"], id="paths split by an option"),
    pytest.param([""], id="an empty path"),
    pytest.param(["--strict=yes", "a"], id="a flag given a value"),
    pytest.param(["--strict", "--strict", "a"], id="a flag twice"),
    pytest.param(["--format-of", "catalog", "--format-of", "yaml", "a"], id="an option twice"),
    pytest.param(["--select", "-W", "a"], id="a value that starts with a dash"),
    pytest.param(["a", "--select"], id="an option with no value"),
    pytest.param(["--format-of", "csv", "a"], id="a format not among the choices"),
    pytest.param(["--output-format", "JSON", "a"], id="an output not among the choices"),
    pytest.param(["--max-bytes", "+5", "a"], id="a signed number"),
    pytest.param(["--max-bytes", "1_000", "a"], id="a number with an underscore"),
    pytest.param(["--max-bytes", "\u0665", "a"], id="a number in other digits"),
    pytest.param(["--max-bytes=", "a"], id="an empty number"),
    pytest.param(["--dialect=", "a"], id="an empty dialect path"),
]


@pytest.mark.parametrize("argv", DEFERRED)
def test_what_the_fast_reading_defers(argv: list[str]) -> None:
    assert _fast(argv) is None


def test_paths_split_by_an_option_are_argparses_usage_error() -> None:
    """Why the fast reading defers them: argparse takes `nargs="+"` paths as one run only."""
    assert _argparse(["a", "--strict", "b"]) is None
    assert _argparse(["--strict", "a", "b"]) is not None


OPTIONS = ["--strict", "--select", "--ignore", "--format-of", "--output-format", "--max-bytes", "--dialect"]
NEAR = ["-h", "--help", "--", "-", "--stric", "--selec", "--strict=1", "-x", "--output"]
VALUES = ["E1", "W,E", "", "json", "sarif", "text", "JSON", "catalog", "yaml", "0", "12", "007", "+3", "1_0"]
PATHS = ["a", "b/c.jsonl", "x=y", "-1", ""]
WORDS = st.one_of(
    st.sampled_from(OPTIONS + NEAR + VALUES + PATHS),
    st.builds("{}={}".format, st.sampled_from(OPTIONS), st.sampled_from(VALUES)),
    st.text(alphabet="ab-=1 ", max_size=4),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, max_size=7))
def test_fast_reading_defers_or_agrees_with_argparse(argv: list[str]) -> None:
    fast = _fast(argv)
    if fast is not None:
        assert repr(fast) == repr(_argparse(argv))


GOOD_VALUE = {
    "--select": ["E1", "W,E", ""],
    "--ignore": ["Case", "W202"],
    "--format-of": ["catalog", "yaml"],
    "--output-format": ["json", "github"],
    "--max-bytes": ["0", "12", "007"],
    "--dialect": ["d.yaml"],
}
OPTION = st.one_of(
    st.just(["--strict"]),
    st.sampled_from(sorted(GOOD_VALUE)).flatmap(
        lambda name: st.sampled_from(GOOD_VALUE[name]).flatmap(
            lambda value: st.sampled_from([[name, value], [f"{name}={value}"]])
        )
    ),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(OPTION, max_size=4),
    st.lists(st.sampled_from(["a", "b/c.jsonl", "x=y"]), min_size=1, max_size=3),
    st.integers(min_value=0, max_value=4),
)
def test_clean_lines_are_read_as_argparse_reads_them(
    options: list[list[str]], paths: list[str], where: int
) -> None:
    """Declared options with values they take, and one run of paths placed among them: read
    fast unless an option other than --select/--ignore repeats, and then as argparse reads them."""
    argv = [word for option in options[:where] for word in option] + paths
    argv += [word for option in options[where:] for word in option]
    names = [option[0].partition("=")[0] for option in options]
    repeated = any(names.count(name) > 1 for name in names if name not in ("--select", "--ignore"))
    fast = _fast(argv)
    assert (fast is None) == repeated
    assert fast is None or repr(fast) == repr(_argparse(argv))
