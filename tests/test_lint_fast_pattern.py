"""The line pattern (catalogrules/linepattern.py): the fast path's first test, from the rules' facts.

A line the pattern vouches for skips the parse and every rule, so what must hold is the fast
path's property again (the problems of a catalog read with the pattern are exactly the
rules' on every line), over a wider alphabet than the parse-level test's: escapes of every
kind, control characters, Unicode spaces, surrogates, and JSON written with any spacing.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals import catalogrules
from adhd_evals.catalogrules import engine
from adhd_evals.catalogrules.contract import ANY, TEXT, TEXTS, CatalogRead, Field, Predicate
from adhd_evals.catalogrules.engine import RowRun, check_catalog
from adhd_evals.catalogrules.linepattern import SOLID_ESCAPE, line_test, merged
from adhd_evals.catalogrules.row import Row
from adhd_evals.catalogrules.stream import lint_lines, read_row
from adhd_evals.problem import ERROR, Finding, Problem
from helpers import CORPUS

GOOD = '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["Answers 102."]}'

# Characters near every edge the pattern draws: quotes and backslashes (escaped), controls
# (escaped), Unicode spaces strip() removes, a surrogate (escaped when ASCII-only, else bytes
# no UTF-8 reader accepts), a character outside the BMP (a surrogate pair when ASCII-only).
ALPHABET = st.sampled_from(
    ['"', "\\", "\t", "\n", "\x1f", "\x7f", " ", "\u00a0", "\u3000", "\ud800", "é", "😀", "a", "A"]
)
texts = st.text(ALPHABET, max_size=4) | st.sampled_from(
    ["and gives", "x AND Gives", "Answers 102.", "", "low"]
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=5,
)
valid: dict[str, st.SearchStrategy[Any]] = {
    "id": st.sampled_from(["a", "b", "é", " a"]),
    "category": st.just("c"),
    "prompt": st.sampled_from(["p", 'say "hi"', "x and gives"]),
    "risk": st.sampled_from(["low", "medium", "high"]),
    "criteria": st.lists(st.sampled_from(["Answers 102.", "Names it and then"]), min_size=1, max_size=2),
}


@st.composite
def objects(draw: st.DrawFn) -> dict[str, Any]:
    """The five fields in their order, a few of them any text or JSON value (or gone), and
    sometimes a key of its own first: most rows are near a fact's edge, many are clean."""
    broken = draw(st.sets(st.sampled_from(sorted(valid)), max_size=draw(st.sampled_from([0, 0, 1, 2]))))
    gone = draw(st.sets(st.sampled_from(sorted(broken)), max_size=len(broken))) if broken else set()
    row = {
        name: draw(texts | json_values if name in broken else valid[name])
        for name in valid
        if name not in gone
    }
    return {**draw(st.dictionaries(texts, json_values, max_size=1)), **row}


@st.composite
def lines(draw: st.DrawFn) -> bytes:
    """One catalog line as any writer might space it."""
    value = draw(objects() | json_values)
    item, key = draw(st.sampled_from([(", ", ": "), (",", ":"), (" ,\t", " :  ")]))
    text = json.dumps(value, ensure_ascii=draw(st.booleans()), separators=(item, key))
    ends = st.sampled_from(["", " ", "\t", "\r"])
    text = draw(ends) + text + draw(ends) + draw(st.sampled_from(["\n", "\r\n", ""]))
    return text.encode("utf-8", "surrogatepass")


# Pieces of a JSON string as a line holds them: plain, escaped (a surrogate's, a lone one's and
# an escaped space's too), and raw characters JSON forbids there.
PIECES = st.sampled_from(
    [
        "a",
        "A",
        " ",
        "\u00a0",
        "\u3000",
        "é",
        "😀",
        " and gives ",
        " AND Shows ",
        r"\"",
        "\\\\",
        r"\n",
        r"\t",
        r"\u0020",
    ]
    + [r"\u00e9", r"\ud800", r"\udc00", r"\ud83d\ude00", r"\u0061", "\t", "\x1f", "\x7f", "\\", '"']
)
string = st.lists(PIECES, max_size=2).map(lambda pieces: '"' + "".join(pieces) + '"')
solid = st.tuples(string, string).map(lambda two: two[0][:-1] + "x" + two[1][1:])  # never blank
scalars = st.sampled_from(["3", "null", "true", "[]", "{}", '"low"', r'"l\u006fw"', '"High"', '""'])


@st.composite
def written(draw: st.DrawFn) -> bytes:
    """The five fields in their order written as JSON text, one or two of them piece by piece
    (often clean, with an edge inside); sometimes one is any other JSON token, or gone."""
    fields = {"id": draw(st.sampled_from(['"a"', '"b"'])), "category": '"c"', "prompt": '"p"'}
    fields["risk"] = draw(st.sampled_from(['"low"', '"medium"', '"high"', '"High"', '"x"', '" low"']))
    fields["criteria"] = '["Answers 102."]'
    for name in draw(
        st.sets(st.sampled_from(["id", "category", "prompt", "criteria"]), min_size=1, max_size=2)
    ):
        if name == "criteria":
            fields[name] = "[" + ", ".join(draw(st.lists(solid | string, min_size=1, max_size=2))) + "]"
        else:
            fields[name] = draw(solid)
    for name in draw(st.sets(st.sampled_from(sorted(fields)), max_size=draw(st.sampled_from([0, 0, 1])))):
        fields[name] = draw(scalars | string)
    for name in draw(st.sets(st.sampled_from(sorted(fields)), max_size=draw(st.sampled_from([0, 0, 0, 1])))):
        del fields[name]
    item, key = draw(st.sampled_from([(", ", ": "), (",", ":"), (" ,\t", " :  ")]))
    text = "{" + item.join(f'"{name}"{key}{value}' for name, value in fields.items()) + "}"
    return text.encode("utf-8", "surrogatepass")


def _by_the_rules(catalog: list[bytes]) -> list[Problem]:
    """Every line through every row rule (no fast path), then the catalog rules."""
    run = RowRun()
    rows = [read_row(number, raw) for number, raw in enumerate(catalog, start=1)]
    found = [p for row in rows for p in run.check(row)]
    return found + check_catalog(CatalogRead(len(rows)))


@pytest.mark.long
@settings(max_examples=150, deadline=None)
@given(catalog=st.lists(written() | lines() | written(), min_size=1, max_size=4))
def test_the_line_pattern_reports_what_the_rules_report(catalog: list[bytes]) -> None:
    """The property, with the pattern from the first line on: same problems, same order."""
    _, problems, _ = lint_lines(catalog, pattern_after=0)
    assert problems == _by_the_rules(catalog)


@settings(max_examples=25, deadline=None)
@given(catalog=st.lists(lines(), min_size=1, max_size=3))
def test_the_line_pattern_keeps_what_the_parse_keeps(catalog: list[bytes]) -> None:
    """A caller that keeps the rows gets the same values, in the same order, either way."""
    fast: list[Any] = []
    slow: list[Any] = []
    assert (
        lint_lines(catalog, keep=fast, pattern_after=0)[:2]
        == lint_lines(catalog, keep=slow, pattern_after=10)[:2]
    )
    assert fast == slow


def _vouches(line: str) -> bool:
    clean = RowRun().line_clean()
    assert clean is not None
    return clean(line, 1)


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(GOOD + "\n", id="spaced"),
        pytest.param(json.dumps(json.loads(GOOD), separators=(",", ":")) + "\r\n", id="compact"),
        pytest.param(GOOD.replace('"p"', r'"\n say \"hi\" \u00e9"'), id="escapes in a text"),
        pytest.param(GOOD.replace('"p"', '"\u3000p"'), id="a Unicode space before a character"),
        pytest.param(GOOD.replace("Answers 102.", r"Says \"no\" \u00e9"), id="escapes in a criterion"),
        pytest.param(GOOD.replace("Answers 102.", r"\u4e0d\u3002"), id="a criterion written in escapes only"),
    ],
)
def test_the_pattern_vouches_for_a_clean_line(line: str) -> None:
    """Not vacuous: clean lines as writers write them pass (the rules report nothing on each)."""
    assert _vouches(line)
    assert RowRun().check(read_row(1, line.encode())) == []


def test_a_vouched_lines_id_is_recorded() -> None:
    """E106's check records the id the pattern captured: the same line again is no longer clean."""
    clean = RowRun().line_clean()
    assert clean is not None
    assert clean(GOOD, 1) is True
    assert clean(GOOD, 2) is False


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        pytest.param(GOOD.replace('"low"', '"x"'), ["E107"], id="risk"),
        pytest.param(GOOD.replace('"low"', r'"l\u006fw"'), [], id="risk written with an escape"),
        pytest.param(GOOD.replace('"p"', '" "'), ["E105"], id="blank prompt"),
        pytest.param(GOOD.replace('"p"', r'"\n\u0020"'), ["E105"], id="prompt of escaped spaces"),
        pytest.param(GOOD.replace('"p"', '"\u00a0"'), ["E105"], id="prompt of a Unicode space"),
        pytest.param(
            GOOD.replace('"p"', r'"\u3000\u2028\u1680\u0085"'),
            ["E105"],
            id="prompt of escaped Unicode spaces",
        ),
        pytest.param(GOOD.replace('["Answers 102."]', "[]"), ["E108"], id="empty criteria"),
        pytest.param(GOOD.replace('102."]', '102.", " "]'), ["E108"], id="blank criterion"),
        pytest.param(GOOD.replace("Answers 102.", "Finds it and gives the fix."), ["W201"], id="bundled"),
        pytest.param(
            GOOD.replace("Answers 102.", r"Finds it\nand gives"), ["W201"], id="bundled after an escape"
        ),
        pytest.param(GOOD.replace('"a"', "3"), ["E104"], id="id a number"),
        pytest.param(GOOD.replace('["Answers 102."]', '"x"'), ["E104"], id="criteria a text"),
        pytest.param(GOOD.replace(', "risk": "low"', ""), ["E103"], id="no risk"),
        pytest.param(GOOD.replace('"c",', '"c", "id": "b",'), ["E109"], id="a repeated key"),
        pytest.param(GOOD.replace('"p"', r'"\ud800"'), ["E110"], id="lone surrogate escape"),
        pytest.param(GOOD.replace('"p"', r'"\ud83d\ude00"'), [], id="a surrogate pair"),
        pytest.param(GOOD.replace('"p"', '"\tp"'), ["E101"], id="a raw tab in a text"),
        pytest.param(GOOD.replace("{", '{"x": 1, '), [], id="a key of its own"),
        pytest.param(
            GOOD.replace('"id": "a", "category": "c"', '"category": "c", "id": "a"'), [], id="another order"
        ),
        pytest.param(GOOD.replace('"a"', r'"\u0061"'), [], id="an id written with an escape"),
        pytest.param('["a"]', ["E102"], id="not an object"),
        pytest.param(GOOD + " x", ["E101"], id="text after the object"),
    ],
)
def test_the_pattern_refuses_a_line_it_cannot_vouch_for(line: str, codes: list[str]) -> None:
    """Each edge: the pattern refuses the line, and the rules say what (if anything) is wrong."""
    assert not _vouches(line)
    assert [p.code for p in RowRun().check(read_row(2, line.encode()))] == codes


def test_the_pattern_refuses_a_bom() -> None:
    """A BOM is no JSON whitespace: a first line starting with one goes to the rules (E110)."""
    line = "\ufeff" + GOOD
    assert not _vouches(line)
    _, problems, _ = lint_lines([line.encode()], pattern_after=0)
    assert [p.code for p in problems] == ["E110"]


def test_invalid_utf8_after_the_pattern_starts_is_still_reported() -> None:
    """Line 2 holds the byte 0xE9: it never meets the pattern, and E110 reports it."""
    catalog = [GOOD.encode(), GOOD.replace('"a"', '"b\xe9"').encode("latin-1")]
    _, problems, _ = lint_lines(catalog, pattern_after=0)
    assert [(p.line, p.code) for p in problems] == [(2, "E110")]


def test_the_pattern_class_of_spaces_is_what_strip_removes() -> None:
    """SPACE and SOLID rely on `\\s` of a str pattern being exactly str.isspace (which strip()
    removes): checked over every code point but the surrogates."""
    every = "".join(map(chr, [*range(0xD800), *range(0xE000, sys.maxunicode + 1)]))
    assert set(re.findall(r"\s", every)) == {c for c in every if c.isspace()}


def test_a_short_catalog_never_compiles_the_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hook's few cases are read without the pattern; a longer catalog asks for it once."""
    asked: list[int] = []
    monkeypatch.setattr(RowRun, "line_clean", lambda self: asked.append(1))
    catalog = [GOOD.encode(), GOOD.replace('"a"', '"b"').encode(), GOOD.replace('"a"', '"c"').encode()]
    assert lint_lines(catalog, pattern_after=3)[:2] == (3, [])
    assert asked == []
    assert lint_lines(catalog, pattern_after=2)[:2] == (3, [])
    assert asked == [1]


def test_a_rule_without_facts_turns_the_pattern_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """A toy rule declaring a predicate but no facts: the pattern cannot vouch for it, so it is
    not used, and the toy's finding on line 2 is reported with the pattern asked for."""

    def check(row: Row) -> Iterator[Finding]:
        if isinstance(row.value, dict) and "x" in str(row.value.get("prompt")):
            yield Finding(row.number, 1, "an x")

    toy = SimpleNamespace(
        ID="E999",
        NAME="toy",
        SEVERITY=ERROR,
        SCOPE="row",
        clean=Predicate("'x' not in row['prompt']"),
        start=lambda run: check,
    )
    monkeypatch.setattr(engine, "ROW_RULES", [*catalogrules.ROW_RULES, toy])
    assert RowRun().line_clean() is None
    _, problems, _ = lint_lines(
        [GOOD.encode(), GOOD.replace('"a"', '"b"').replace('"p"', '"x"').encode()], pattern_after=0
    )
    assert [(p.line, p.code) for p in problems] == [(2, "E999")]


def test_two_kinds_for_one_field_are_refused() -> None:
    """A text by one rule's facts and a list by another's: no value is both, a rule is wrong."""
    with pytest.raises(ValueError, match="criteria"):
        merged([Field("criteria", TEXT), Field("criteria", TEXTS)])


def test_a_field_without_a_kind_or_a_recorded_list_leaves_no_pattern() -> None:
    """Present only (ANY): the pattern cannot write its value; a `free` test reads a list, not
    a text; a recorded field must be a text."""
    assert line_test((Field("id", TEXT), Field("x", ANY)), ()) is None
    assert line_test((Field("id", TEXT, free=str.isascii),), ()) is None
    assert line_test((Field("id", TEXTS),), ("id",)) is None
    assert line_test((Field("id", TEXT),), ("id",)) is not None


def test_lists_may_be_empty_unless_a_fact_says_not() -> None:
    """TEXTS alone admits `[]`; with `nonempty` it does not."""
    loose = line_test((Field("c", TEXTS),), ())
    strict = line_test((Field("c", TEXTS, nonempty=True),), ())
    assert loose is not None and strict is not None
    assert loose.match('{"c": []}') is not None
    assert strict.match('{"c": []}') is None
    assert strict.match('{"c": ["x", ""]}') is not None


def test_values_among_add_up_and_only_plain_ones_are_written() -> None:
    """Two facts' values: only those both allow ("high"); a value JSON must escape ('a"b')
    and, for a non-blank field, a blank one (" ") are left out; none left admits nothing."""
    both = merged(
        [
            Field("r", TEXT, among=("low", "high", 'a"b', " ")),
            Field("r", TEXT, among=("high", 'a"b', " ", "x")),
        ]
    )
    assert both["r"].among == ("high", 'a"b', " ")
    test = line_test((Field("r", TEXT, among=("high", 'a"b', " "), nonblank=True),), ())
    assert test is not None
    assert [bool(test.match(json.dumps({"r": v}))) for v in ("high", 'a"b', " ", "low")] == [
        True,
        False,
        False,
        False,
    ]
    none = line_test((Field("r", TEXT, among=()),), ())
    assert none is not None and none.match('{"r": ""}') is None


def test_a_rule_naming_a_field_without_a_kind_turns_the_pattern_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """A toy rule's facts say only that a sixth field is present: no rule says how its value is
    written, so the engine has no pattern, and a five-field line is still linted (clean)."""
    toy = SimpleNamespace(
        ID="E999",
        NAME="toy",
        SEVERITY=ERROR,
        SCOPE="row",
        clean=Predicate("True"),
        facts=(Field("extra"),),
        start=lambda run: lambda row: iter(()),
    )
    monkeypatch.setattr(engine, "ROW_RULES", [*catalogrules.ROW_RULES, toy])
    assert RowRun().line_clean() is None
    assert lint_lines([GOOD.encode()], pattern_after=0)[:2] == (1, [])


def test_the_real_catalogs_read_alike_with_the_pattern() -> None:
    """Every JSONL catalog of ../shared/corpus (real files, escapes and CJK included): the same
    cases and problems with the pattern from line 1 as with no pattern at all; and the pattern
    does vouch for some of their lines (else the comparison would prove nothing)."""
    catalogs = sorted((CORPUS / "jsonl").glob("*.jsonl"))
    if not catalogs:
        pytest.skip("../shared/corpus is not here (a user's clone has none)")
    vouched = 0
    for path in catalogs:
        catalog = path.read_bytes().splitlines(keepends=True)
        assert lint_lines(catalog, pattern_after=0)[:2] == lint_lines(catalog, pattern_after=len(catalog))[:2]
        clean = RowRun().line_clean()
        assert clean is not None
        vouched += sum(clean(raw.decode("utf-8", "replace"), number) for number, raw in enumerate(catalog, 1))
    assert vouched > 0


def test_an_escape_counts_as_kept_only_when_it_names_no_space() -> None:
    """SOLID_ESCAPE (an escape strip() keeps) admits no escape of a space, in either case of
    hex, and does admit the escapes of other characters (a CJK one, a quote, U+FEFF)."""
    spaces = [c for c in range(0x10000) if chr(c).isspace()]
    escapes = [f"\\u{c:04x}" for c in spaces] + [f"\\u{c:04X}" for c in spaces] + ["\\n", "\\t", "\\r", "\\f"]
    assert [e for e in escapes if re.fullmatch(SOLID_ESCAPE, e)] == []
    assert all(re.fullmatch(SOLID_ESCAPE, e) for e in ("\\u4e0d", "\\uFEFF", '\\"', "\\/", "\\\\"))
