"""promptfoo configs (`promptfooconfig.yaml`/`.yml`/`.json`), read as promptfoo 0.120.0 reads them.

One catalog case per (test x var combination x prompt): the prompt is the
prompt template rendered with the test's vars exactly as promptfoo renders it
(render.py), the criteria are its assertions mapped by promptfoo's own rules
(asserts.py). What promptfoo would run as code (prompt functions, JavaScript
or Python test generators and vars, transformVars) or read from the machine
(`env.X`) is refused by name; what cannot be rendered identically is refused
naming the file, the test, the field and the construct.

Ids: a test's `description` slugged, when no other test of the config has the
same description; otherwise `<config stem>-<test number>`. When a config has
several prompts, each case of a test adds `--<prompt>` (the prompt's id or
label slugged when they are unique, else `p<number>`), and several var
combinations add `--v<number>`: the cases of one test share its id as their
stem, and a note names the test they pair with.
"""

from __future__ import annotations

from pathlib import Path

from ...model import Case, LeftOut, Refusal, RefusalCode
from .._common import ReadOptions, Refuser, collecting, strict
from .cases import Shared, _cases
from .config import CONFIG_NAMES, NOT_CONFIG, _category, _config, _env, _header_notes
from .ids import _refuse_duplicates, _test_ids
from .lint import lint_warnings
from .prompts import _prompts, maybe_file_path
from .tests import _default_test, _tests, assertion_from_string

# What other modules and the tests import from the package.
__all__ = [
    "CONFIG_NAMES",
    "NAME",
    "assertion_from_string",
    "lint_warnings",
    "maybe_file_path",
    "problems",
    "read",
]


NAME = "promptfoo"


def _read(
    source: Path, display: str, options: ReadOptions, collect: bool
) -> tuple[list[Case], list[Refusal], bool]:
    config = _config(source, display)._replace(category_given=options.category is not None)
    data, refuse = config.data, config.source.refuse
    env = _env(refuse, data)
    prompts = _prompts(config, data.get("prompts"))
    default = _default_test(config, data.get("defaultTest"))
    tests = _tests(config, data.get("tests"))
    category = options.category or _category(data, source)
    ids = _test_ids(tests, source)
    header = _header_notes(data)
    cases: list[Case] = []
    refusals: list[Refusal] = []
    _refuse_unknown_skips(refuse, options.skip_tests, len(tests))
    shared = Shared(config, default, prompts, env, category, options.risk)
    for test, test_id in zip(tests, ids, strict=True):
        if test.number in options.skip_tests:  # left out by the person, with the test's own name
            options.left_out.append(LeftOut(display, test.label, test_id, f"--skip-test {test.number}"))
            continue
        try:
            cases += _cases(shared, test, test_id)
        except Refusal as refusal:
            if not collect:
                raise
            refusals.append(refusal)
    _refuse_duplicates(cases, config.source)
    if cases and header:
        cases[0] = cases[0]._replace(notes=(*header, *cases[0].notes))
    return cases, refusals, True


def _refuse_unknown_skips(refuse: Refuser, skips: tuple[int, ...], count: int) -> None:
    unknown = [n for n in skips if not 1 <= n <= count]
    if unknown:
        raise refuse(
            field_path="--skip-test",
            expected=f"a test number from 1 to {count}",
            actual=", ".join(map(str, unknown)),
        )


read = strict(_read, RefusalCode.NOT_PROMPTFOO, NOT_CONFIG)


problems = collecting(_read, RefusalCode.NOT_PROMPTFOO, NOT_CONFIG)
