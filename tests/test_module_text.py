"""Source text cannot alter the generated module: it compiles, reads back identical,
and defines exactly the expected names."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.importing.checkgen import comment, function_names, literal
from adhd_evals.importing.importer import render_module
from adhd_evals.importing.model import Case, Check, CheckKind, ImportResult, Note

# Every code point, lone surrogates included, with the troublemakers over-weighted.
HOSTILE = st.sampled_from(
    [
        '"""',
        "'''",
        "\\",
        "#",
        "\n",
        "\r",
        "\x0c",
        "\x00",
        "\u2028",
        "\u2029",
        "\x85",
        "\ud800",
        "'",
        '"',
        "{",
        "}",
        "\t",
    ]
)
texts = st.lists(st.one_of(HOSTILE, st.characters(), st.text(max_size=6)), max_size=12).map("".join)
nonblank = texts.filter(lambda t: t.strip() != "")

HELPER_NAMES = {
    "annotations",
    "re",
    "string",
    "Callable",
    "Sequence",
    "Check",
    "CHECKS",
    "check",
    "_fold",
    "_needles",
    "contains_any",
    "contains_all",
    "contains_none",
    "_WHITESPACE",
    "_PUNCTUATION",
    "_normalized",
    "_without_punctuation",
    "matches_exactly",
    "unwritten",
}


@st.composite
def cases(draw: st.DrawFn) -> tuple[Case, ...]:
    ids = draw(st.lists(nonblank, min_size=1, max_size=4, unique=True))
    built = []
    for case_id in ids:
        checks = [
            Check(draw(nonblank), CheckKind.UNWRITTEN, (draw(texts),)),
            Check(
                draw(nonblank),
                CheckKind.CONTAINS_ANY,
                (tuple(draw(st.lists(texts, min_size=1, max_size=3))),),
            ),
            Check(draw(nonblank), CheckKind.MATCHES_EXACTLY, (draw(texts),)),
        ]
        notes = (Note(draw(texts), draw(texts), draw(texts)), Note("files", [draw(texts)]))
        built.append(
            Case(case_id, draw(nonblank), draw(nonblank), "low", tuple(checks), notes, origin=draw(texts))
        )
    return tuple(built)


@pytest.mark.long
@settings(max_examples=150, deadline=None)
@given(found=cases(), source=texts)
def test_hostile_text_cannot_alter_the_module(found: tuple[Case, ...], source: str) -> None:
    module = render_module(ImportResult(source or "x", "evals-json", found, "low", True))
    module.encode("utf-8")  # writable as UTF-8: no raw lone surrogate reached it
    tree = ast.parse(module)
    defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    names = function_names(found)
    checks_defined = defined - HELPER_NAMES
    assert len(checks_defined) == sum(len(c.checks) for c in found)  # distinct, none injected
    for case in found:
        prefix = f"check_{names[case.id]}_"
        assert sum(name.startswith(prefix) for name in checks_defined) >= len(case.checks)
    assert all(name.startswith("check_") and name.isidentifier() for name in checks_defined)
    namespace: dict[str, object] = {}
    exec(compile(module, "checks.py", "exec"), namespace)
    registered = namespace["CHECKS"]
    assert isinstance(registered, dict)
    assert list(registered) == [c.id for c in found]
    for case in found:
        assert [criterion for criterion, _ in registered[case.id]] == case.criteria
    # the placeholders' and helpers' arguments read back identical
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("unwritten", "contains_any", "matches_exactly")
    ]
    literals = [ast.literal_eval(call.args[-1]) for call in calls]
    for case in found:
        assert case.checks[0].args[0] in literals
        assert list(case.checks[1].args[0]) in literals
        assert case.checks[2].args[0] in literals


@pytest.mark.long
@given(text=texts)
def test_literal_round_trips(text: str) -> None:
    assert ast.literal_eval(literal(text)) == text
    assert "\n" not in literal(text)


@given(text=texts)
def test_comment_lines_stay_comments(text: str) -> None:
    lines = comment(text)
    assert len(lines) == text.count("\n") + 1
    source = "\n".join(lines) + "\nx = 1\n"
    tree = ast.parse(source)
    assert len(tree.body) == 1  # nothing but the one statement after the comments
