"""Round trips: import(export(catalog)) gives back every case's five fields, and every check
promptfoo can state comes back as the same vocabulary call with the same needles.

Random catalogs (hypothesis) of ids, categories, risks, prompts with template
characters, newlines and non-ASCII text, and criteria that are prose or one of
the mechanical checks export can say in promptfoo's words; ADHD_EVALS_FUZZ
raises the number of examples.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import promptfoo_cli
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from adhd_evals.importing import checkgen
from adhd_evals.importing.export import export
from adhd_evals.importing.importer import read_source
from adhd_evals.importing.model import Case, Check, CheckKind, ImportResult

EXAMPLES = int(os.environ.get("ADHD_EVALS_FUZZ", "25"))
TEXT = st.text(alphabet=st.sampled_from(list("ab Z09{}%#-,\"'\\\n\té日😀$&`:")), min_size=1, max_size=24)
WORDS = st.text(alphabet=st.sampled_from(list("abcxyz ")), min_size=1, max_size=10)


def _nonblank(text: str) -> bool:
    return bool(text.strip()) and "endraw" not in text


needle = TEXT.filter(_nonblank)
needles = st.lists(TEXT.filter(lambda t: "endraw" not in t), min_size=1, max_size=3)
IC = st.booleans()
EXACT = (("ignore_case", False), ("strip", False))


def _checks(criterion: str) -> st.SearchStrategy[Check]:
    return st.one_of(
        st.builds(lambda n, i: Check(criterion, CheckKind.CONTAINS, (n,), (("ignore_case", i),)), needle, IC),
        st.builds(
            lambda n, i: Check(criterion, CheckKind.CONTAINS_ANY, (n,), (("ignore_case", i),)), needles, IC
        ),
        st.builds(
            lambda n, i: Check(criterion, CheckKind.CONTAINS_ALL, (n,), (("ignore_case", i),)), needles, IC
        ),
        st.builds(
            lambda n, i: Check(criterion, CheckKind.CONTAINS_NONE, (n,), (("ignore_case", i),)), needles, IC
        ),
        st.builds(
            lambda n, i: Check(criterion, CheckKind.NOT_CONTAINS_ALL, (n,), (("ignore_case", i),)),
            needles,
            IC,
        ),
        st.builds(
            lambda n, k: Check(criterion, k, (n,), EXACT),
            needle,
            st.sampled_from(
                [CheckKind.EQUALS, CheckKind.NOT_EQUALS, CheckKind.STARTS_WITH, CheckKind.NOT_STARTS_WITH]
            ),
        ),
        st.builds(
            lambda p, k: Check(criterion, k, (p,), (("ignore_case", False),)),
            WORDS,
            st.sampled_from([CheckKind.REGEX, CheckKind.NOT_REGEX]),
        ),
        st.sampled_from(
            [
                Check(criterion, CheckKind.IS_JSON, ()),
                Check(criterion, CheckKind.NOT_IS_JSON, ()),
                Check(criterion, CheckKind.IS_JSON, (), (("schema", '{"type":"object"}'),)),
            ]
        ),
        st.just(Check(criterion, CheckKind.UNWRITTEN, (criterion,))),
    )


@st.composite
def catalogs(draw: st.DrawFn, *, prose_only: bool = False, one_category: bool = False) -> list[Case]:
    count = draw(st.integers(1, 4))
    ids = draw(st.lists(TEXT.filter(_nonblank), min_size=count, max_size=count, unique=True))
    category = draw(TEXT.filter(_nonblank))
    cases = []
    for case_id in ids:
        prompt = draw(TEXT.filter(_nonblank))
        assume("{{" not in prompt.replace(" ", "") or "prompt" not in prompt)
        criteria = draw(st.lists(TEXT.filter(_nonblank), min_size=1, max_size=4, unique=True))
        checks = tuple(
            Check(c, CheckKind.UNWRITTEN, (c,)) if prose_only else draw(_checks(c)) for c in criteria
        )
        risk = "low" if one_category else draw(st.sampled_from(["low", "medium", "high"]))
        own = category if one_category else draw(TEXT.filter(_nonblank))
        cases.append(Case(case_id, own, prompt, risk, checks))
    return cases


def _write(cases: list[Case], folder: Path) -> None:
    result = ImportResult("catalog", "promptfoo", tuple(cases), "medium", False)
    (folder / "cases.jsonl").write_text("".join(c.catalog_line() + "\n" for c in cases), encoding="utf-8")
    (folder / "checks.py").write_text(checkgen.render(result), encoding="utf-8")


def _fields(cases: list[Case] | tuple[Case, ...]) -> list[str]:
    return [c.catalog_line() for c in cases]


@pytest.mark.long
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(cases=catalogs(), as_json=st.booleans())
def test_promptfoo_round_trip_keeps_the_five_fields_and_every_mechanical_check(
    cases: list[Case], as_json: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _write(cases, folder)
        exported = export("promptfoo", folder / "cases.jsonl", folder / "checks.py", as_json=as_json)
        config = folder / ("promptfooconfig.json" if as_json else "promptfooconfig.yaml")
        config.write_text(exported.text, encoding="utf-8")
        back = read_source("promptfoo", config).cases
    assert _fields(back) == _fields(cases)
    for before, after in zip(cases, back, strict=True):
        assert [(c.kind, c.args, c.options) for c in after.checks if c.mechanical] == [
            (c.kind, tuple(list(a) if isinstance(a, list) else a for a in c.args), c.options)
            for c in before.checks
            if c.mechanical
        ]


@pytest.mark.long
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(cases=catalogs(prose_only=True, one_category=True))
def test_evals_json_round_trip_keeps_the_five_fields_of_prose_catalogs(cases: list[Case]) -> None:
    # evals-json's own rules: digit ids take the skill as prefix, skill_name is read stripped
    assume(all(not c.id.strip().isdigit() and c.category == c.category.strip() for c in cases))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _write(cases, folder)
        exported = export("evals-json", folder / "cases.jsonl", None)
        (folder / "evals.json").write_text(exported.text, encoding="utf-8")
        back = read_source("evals-json", folder / "evals.json", risk="low").cases
    assert _fields(back) == _fields(cases)
    assert json.loads(exported.text)["skill_name"] == cases[0].category


FINAL_NEWLINES = ["none", "one\n", "two\n\n", "three\n\n\n", "\n\nleading only"]


@pytest.mark.parametrize("as_json", [False, True], ids=["yaml", "json"])
def test_every_final_newline_survives_the_promptfoo_round_trip(tmp_path: Path, as_json: bool) -> None:
    """promptfoo drops one final newline from a var, so the export moves all of a prompt's final
    newlines into `options.suffix` (by hand: "two\\n\\n" goes as the var "two" with the suffix
    "\\n\\n"). Moving only one lost the next to the same drop: hypothesis found "0\\n\\n" coming
    back as "0\\n"."""
    cases = [
        Case(f"c{n}", "cat", prompt, "low", (Check("ok", CheckKind.UNWRITTEN, ("ok",)),))
        for n, prompt in enumerate(FINAL_NEWLINES)
    ]
    _write(cases, tmp_path)
    exported = export("promptfoo", tmp_path / "cases.jsonl", tmp_path / "checks.py", as_json=as_json)
    config = tmp_path / ("promptfooconfig.json" if as_json else "promptfooconfig.yaml")
    config.write_text(exported.text, encoding="utf-8")
    tests = json.loads(exported.text)["tests"] if as_json else None
    if tests is not None:
        assert [(t["vars"]["prompt"], t.get("options")) for t in tests] == [
            ("none", None),
            ("one", {"suffix": "\n"}),
            ("two", {"suffix": "\n\n"}),
            ("three", {"suffix": "\n\n\n"}),
            ("\n\nleading only", None),
        ]
    assert [c.prompt for c in read_source("promptfoo", config).cases] == FINAL_NEWLINES


@pytest.mark.long
def test_promptfoo_itself_renders_the_exported_final_newlines(tmp_path: Path) -> None:
    """The same export, run by promptfoo 0.120.0's echo provider: the prompt it sends is the
    catalog's prompt, final newlines included (skips, saying why, without node or promptfoo)."""
    main, why = promptfoo_cli.find()
    if main is None:
        pytest.skip(why)
    cases = [
        Case(f"c{n}", "cat", prompt, "low", (Check("ok", CheckKind.UNWRITTEN, ("ok",)),))
        for n, prompt in enumerate(FINAL_NEWLINES)
    ]
    _write(cases, tmp_path)
    exported = export("promptfoo", tmp_path / "cases.jsonl", tmp_path / "checks.py", as_json=False)
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(exported.text, encoding="utf-8")
    results = promptfoo_cli.run_echo(main, config, tmp_path)
    assert [r["prompt"]["raw"] for r in results] == FINAL_NEWLINES
