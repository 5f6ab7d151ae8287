"""Issue 38 item 2 (perf-checkgen): the faster check-module generation writes byte for byte
what the generation before it wrote.

The oracle is that generation itself, kept verbatim in tests/perf_checkgen_before.py (the
expected text is what it makes, never what the code under test makes). It is held to it on a
realistic import written through `--out` (the file on disk, every marker's key and fingerprint
included), on any cases hypothesis draws (hostile text, every shape of call, repeated criteria,
ids long enough to wrap a `def`), and on the units a re-import merges with (legacy keys included).
The goldens (tests/test_golden.py) hold the same for every fixture.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perf_checkgen_before as before
from adhd_evals.importing import checkgen
from adhd_evals.importing.importer import Request, import_sources, read_sources
from adhd_evals.importing.model import Case, Check, CheckKind, ImportResult, Note

_WORDS = ("answer", "config", "deploy", "explain", "migrate", "notes", "release", "service", "check")
_FOREIGN = ("café", "naïve", "東京", "データ", "설정", "Größe", "проверка")


def _words(rng: random.Random, low: int, high: int) -> str:
    """Between `low` and `high` characters of words, about 6% of them non-ASCII (as the bench's)."""
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < rng.randint(low, high):
        words.append(rng.choice(_FOREIGN) if rng.random() < 0.06 else rng.choice(_WORDS))
    return " ".join(words)


def _realistic(path: Path, count: int) -> None:
    """An evals.json shaped as tests/bench/run.py's realistic input: string assertions, objects
    with a text, unknown typed objects (placeholders carrying the object), and repeats."""
    rng = random.Random(38)
    cases = []
    for n in range(count):
        assertions: list[object] = [_words(rng, 20, 120) for _ in range(rng.randint(1, 3))]
        assertions.append({"text": _words(rng, 20, 60), "type": "behavioral"})
        assertions.append({"type": "contains", "value": rng.choice(_WORDS)})
        assertions.append(assertions[0])  # the same criterion twice in one case
        cases.append({"id": n + 1, "prompt": _words(rng, 50, 300), "expected_output": _words(rng, 10, 90)})
        cases[-1]["assertions"] = assertions
    path.write_text(json.dumps({"skill_name": "same", "evals": cases}, ensure_ascii=False), encoding="utf-8")


def test_a_realistic_import_writes_the_module_the_old_generator_wrote(tmp_path: Path) -> None:
    """The checks.py an `--out` import writes is the old generator's text of the same cases, byte
    for byte; and a re-import's units (keys, legacy keys, texts, names) are the old ones."""
    source = tmp_path / "evals.json"
    _realistic(source, 120)
    result = read_sources("evals-json", [source])
    expected = "".join(before.render_pieces(result)).encode("utf-8")
    import_sources("evals-json", [source], Request(out=tmp_path / "out"))
    assert (tmp_path / "out" / "checks.py").read_bytes() == expected
    assert _units(checkgen.units(result)) == _units(before.units(result))


def _units(units: list[checkgen.Unit] | list[before.Unit]) -> list[tuple[str, ...]]:
    """Each unit's fields and its marker line (the two modules' Unit are two classes)."""
    return [(*unit, unit.marker) for unit in units]


# Text that may break a literal, a comment or a marker, over-weighted; and plain words.
_HOSTILE = st.sampled_from(['"', "'", "\\", "\n", "\x00", "\u2028", "\ud800", "é", "東", "# adhd-evals: "])
_TEXT = st.lists(st.one_of(_HOSTILE, st.sampled_from(_WORDS), st.text(max_size=5)), max_size=30).map(" ".join)
_NONBLANK = _TEXT.filter(lambda text: text.strip() != "")
_NEEDLES = st.lists(_TEXT, min_size=1, max_size=4).map(tuple)


@st.composite
def _check(draw: st.DrawFn, criteria: list[str]) -> Check:
    """Any check the readers build: a placeholder for its own criterion or for other text, a
    needle list, a text, a count, with or without options, or one that reads a trace."""
    criterion = draw(st.sampled_from(criteria))
    shape = draw(st.integers(0, 5))
    if shape == 0:
        return Check(criterion, CheckKind.UNWRITTEN, (criterion,))
    if shape == 1:
        return Check(criterion, CheckKind.UNWRITTEN, (draw(_TEXT),))
    if shape == 2:
        ignore = draw(st.booleans())
        return Check(criterion, CheckKind.CONTAINS_ANY, (draw(_NEEDLES),), (("ignore_case", ignore),))
    if shape == 3:
        return Check(criterion, CheckKind.MATCHES_EXACTLY, (draw(_TEXT),))
    if shape == 4:
        return Check(criterion, CheckKind.MIN_WORDS, (draw(st.integers(0, 10**6)),))
    return Check(criterion, CheckKind.TOOL_USED, (draw(_TEXT),))


@st.composite
def _results(draw: st.DrawFn) -> ImportResult:
    ids = draw(
        st.lists(_NONBLANK | st.sampled_from(["x" * 70, "Ünï" * 25]), min_size=1, max_size=4, unique=True)
    )
    cases = []
    for case_id in ids:
        criteria = draw(st.lists(_NONBLANK, min_size=1, max_size=3))  # drawn from again: repeats
        checks = tuple(draw(st.lists(_check(criteria), min_size=1, max_size=5)))
        notes = tuple(Note(draw(_TEXT), draw(_TEXT), draw(_TEXT)) for _ in range(draw(st.integers(0, 2))))
        cases.append(Case(case_id, "c", "p", "low", checks, notes, origin=draw(_TEXT)))
    return ImportResult("x", draw(st.sampled_from(["evals-json", "promptfoo"])), tuple(cases), "low", True)


@settings(max_examples=60, deadline=None)
@given(_results())
def test_any_cases_render_and_merge_as_the_old_generator_did(result: ImportResult) -> None:
    """Whatever the cases hold, the module text and the units are the old generator's."""
    assert checkgen.render(result) == "".join(before.render_pieces(result))
    assert _units(checkgen.units(result)) == _units(before.units(result))


@settings(max_examples=60, deadline=None)
@given(_NONBLANK, _NONBLANK, st.text(min_size=1, max_size=70), st.lists(_TEXT, max_size=3))
def test_a_check_rebuilt_by_a_reimport_is_laid_out_as_before(
    case_id: str, criterion: str, name: str, needles: list[str]
) -> None:
    """check_text (what a re-import rebuilds a formatted check from) lays out any id, criterion
    and function name as before: a non-ASCII name counts twice towards the `def` line's width."""
    placeholder: list[checkgen.Arg] = [checkgen.literal(criterion)]
    listed: list[checkgen.Arg] = ["answer", ("", [checkgen.literal(n) for n in needles])]
    for function, args in (("unwritten", placeholder), ("in_order", listed)):
        assert checkgen.check_text(case_id, criterion, name, function, args) == before.check_text(
            case_id, criterion, name, function, args
        )


@pytest.mark.parametrize(
    ("count", "sizes"),
    [
        (5, [1, 2, 2, 1]),  # the preamble, two full pieces, the rest
        (4, [1, 2, 2]),  # the cases fill the last piece: no empty piece after it
    ],
)
def test_the_module_is_streamed_a_few_cases_a_piece(count: int, sizes: list[int]) -> None:
    """Pieces of `cases_a_piece` cases after the preamble's, worked by hand for 2 a piece; joined,
    they are the old text (its pieces were one case each)."""
    cases = tuple(
        Case(f"c{n}", "c", "p", "low", (Check(f"k{n}", CheckKind.UNWRITTEN, (f"k{n}",)),))
        for n in range(count)
    )
    result = ImportResult("x", "evals-json", cases, "low", True)
    pieces = list(checkgen.render_pieces(result, cases_a_piece=2))
    assert [piece.count(f"{checkgen.MARKER}case ") or 1 for piece in pieces] == sizes
    assert "".join(pieces) == "".join(before.render_pieces(result))


@pytest.mark.parametrize(
    ("name", "wrapped"),
    [
        ("f" * 62, False),  # "def " + 62 + "(answer: str) -> bool:" is 88 wide: one line
        ("f" * 63, True),  # 89: wrapped
        ("é" * 31, False),  # 31 characters of width 2: 62, one line
        ("é" * 31 + "f", True),  # 63: wrapped
    ],
)
def test_a_def_line_wraps_past_88_columns(name: str, wrapped: bool) -> None:
    """The `def` line holds 26 characters around the name; non-ASCII counts twice (worked by hand)."""
    text = checkgen.check_text("i", "c", name, "unwritten", ['"c"'])
    define = f"def {name}(\n    answer: str,\n) -> bool:" if wrapped else f"def {name}(answer: str) -> bool:"
    assert text == f'@check("i", "c")\n{define}\n    return unwritten("c")'


@pytest.mark.parametrize(
    ("criterion", "decorator_wrapped", "body_wrapped"),
    [
        # `@check("i", <literal>)` is 10 + 3 + the literal's width: one line up to 75 (a 73-letter
        # criterion); `    return unwritten(<literal>)` is 22 + it: one line up to 66 (64 letters).
        ("x" * 64, False, False),
        ("x" * 65, False, True),
        ("x" * 73, False, True),
        ("x" * 74, True, True),
        ("é" * 32, False, False),  # quoted: 2 + 64 = 66
        ("é" * 32 + "x", False, True),  # 67
        ("é" * 36 + "x", False, True),  # 75
        ("é" * 37, True, True),  # 76
    ],
)
def test_a_placeholders_lines_wrap_past_88_columns(
    criterion: str, decorator_wrapped: bool, body_wrapped: bool
) -> None:
    """The registration and the placeholder's return each wrap on their own width (worked by
    hand from the text around the literal; non-ASCII counts twice)."""
    quoted = f'"{criterion}"'
    decorator = f'@check(\n    "i",\n    {quoted},\n)' if decorator_wrapped else f'@check("i", {quoted})'
    body = (
        f"    return unwritten(\n        {quoted},\n    )"
        if body_wrapped
        else f"    return unwritten({quoted})"
    )
    text = checkgen.check_text("i", criterion, "check_i_0a1b2c", "unwritten", [quoted])
    assert text == f"{decorator}\ndef check_i_0a1b2c(answer: str) -> bool:\n{body}"
