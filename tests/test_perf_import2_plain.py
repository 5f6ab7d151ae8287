"""Issue 38 item 2: the common evals-json case read in one step (formats/_evals_json_plain.py).

The shortcut must make exactly the Case the general reader makes, and leave to the general
reader every case it would refuse or read otherwise. The general reader is the same
`_FileReading` with its shortcut turned off, so each test compares the two on one input.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.importing.formats._common import Refuser
from adhd_evals.importing.formats._evals_json_cases import _FileReading
from adhd_evals.importing.formats._evals_json_plain import FILES_REMARK, plain_case
from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import Case, CheckKind, Note, Refusal, RefusalCode

AT = ("evals", 3)


def _file(*, plain: bool = True, surrogates: bool = False) -> _FileReading:
    file = _FileReading(
        Refuser(RefusalCode.NOT_EVALS_JSON, "evals.json", "is not an evals-json file"), None, surrogates
    )
    file.file_category, file.risk, file.display = "My Skill", "medium", "evals.json"
    file.plain = plain and file.plain
    return file


def _general(raw: object) -> Case | Refusal:
    try:
        return _file(plain=False).case(raw, 3, AT)
    except Refusal as refusal:
        return refusal


def _fast(raw: dict[str, object]) -> Case | Refusal | None:
    try:
        return plain_case(_file(), raw, 3, AT)
    except Refusal as refusal:
        return refusal


TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x2FFF), max_size=8)
SCALAR = st.none() | st.booleans() | st.integers(-3, 12) | st.floats(allow_nan=False) | TEXT | st.just(" ")
VALUE = st.recursive(
    SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3), max_leaves=6
)
ASSERTION = (
    TEXT
    | st.just("  ")
    | st.dictionaries(st.sampled_from(["text", "type", "kind", "needles", "x"]), VALUE, max_size=3)
)
KEYS = {
    "id": st.integers(-2, 99) | TEXT | st.sampled_from(["07", "a-b", True, None]),
    "prompt": TEXT | SCALAR,
    "assertions": st.lists(ASSERTION, max_size=4) | VALUE,
    "expectations": st.lists(TEXT, max_size=2),
    "expected_output": VALUE,
    "files": VALUE,
    "should_trigger": st.booleans(),
    "notes": VALUE,
}
# The shape the shortcut takes (id, prompt and assertions present, mostly printable text), with
# the keys that become notes optional; and any subset of every key, with any values.
SHORT_CUT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x2FFF), min_size=1, max_size=8)
COMMON = st.fixed_dictionaries(
    {
        "id": st.integers(-2, 99) | SHORT_CUT,
        "prompt": SHORT_CUT,
        "assertions": st.lists(SHORT_CUT | ASSERTION, min_size=1, max_size=4),
    },
    optional={key: KEYS[key] for key in ("expected_output", "files", "notes")},
)
CASES = COMMON | st.fixed_dictionaries({}, optional=KEYS)


@settings(max_examples=80, deadline=None)
@given(CASES)
def test_the_shortcut_makes_what_the_general_reader_makes(raw: dict[str, object]) -> None:
    """Whatever the case, the shortcut gives the general reader's Case or its refusal (the same
    message, by case and field), or None: then the general reader reads the case. Where the
    general reader refuses the case, the shortcut never gives a Case (it hides no refusal)."""
    fast = _fast(raw)
    general = _general(raw)
    if isinstance(fast, Refusal):
        assert isinstance(general, Refusal)
        assert (fast.code, fast.message) == (general.code, general.message)
    elif fast is not None:
        assert fast == general


@pytest.mark.parametrize(
    "raw",
    [
        {"id": 1, "prompt": "p", "assertions": ["a"]},
        {"id": "x", "prompt": "p", "assertions": ["a", {"text": "b", "type": "t"}], "expected_output": "e"},
        {"id": "07", "prompt": "p", "assertions": [{"kind": "content_contains_any", "needles": ["n"]}]},
        {"id": 2, "prompt": "p", "assertions": ["a"], "files": ["f.txt"], "more": {"k": [1]}},
    ],
)
def test_the_common_cases_take_the_shortcut(raw: dict[str, object]) -> None:
    """The shapes the shortcut exists for are read by it (not handed back), and equal."""
    fast = plain_case(_file(), raw, 3, AT)
    assert fast is not None
    assert fast == _general(raw)


@pytest.mark.parametrize(
    "raw",
    [
        {"id": True, "prompt": "p", "assertions": ["a"]},  # a bool is not an id
        {"id": " ", "prompt": "p", "assertions": ["a"]},  # nor a blank text
        {"prompt": "p", "assertions": ["a"]},  # no id
        {"id": 1, "prompt": " ", "assertions": ["a"]},  # a blank prompt
        {"id": 1, "prompt": "p", "assertions": []},  # no criteria: the placeholder's
        {"id": 1, "prompt": "p", "assertions": "a"},  # not a list
        {"id": 1, "prompt": "p", "assertions": ["a"], "expectations": ["b"]},  # both lists
        {"id": 1, "prompt": "p", "assertions": ["a"], "should_trigger": True},  # a trigger case
    ],
)
def test_what_the_shortcut_leaves_to_the_general_reader(raw: dict[str, object]) -> None:
    """Each of these is refused or read by rules the shortcut does not hold: None."""
    assert plain_case(_file(), raw, 3, AT) is None


def test_the_shortcut_is_off_with_a_lone_surrogate_possible() -> None:
    """A file whose bytes hold a surrogate escape has every text checked by the general reader."""
    assert _file(surrogates=True).plain is False
    assert _file(surrogates=False).plain is True


def test_a_common_case_by_hand() -> None:
    """Worked from the format's rules: an integer id is prefixed with the category's slug
    ("My Skill" -> my-skill), each prose assertion is an unwritten check of its own text,
    other keys are notes in the case's order, `files` with its remark, the label "case 5"."""
    raw = {"id": 5, "prompt": "Do it", "files": ["a.txt"], "assertions": ["Says hi"], "extra": 1}
    case = plain_case(_file(), raw, 3, AT)
    assert case is not None
    assert (case.id, case.category, case.prompt, case.risk) == ("my-skill-5", "My Skill", "Do it", "medium")
    assert [(c.criterion, c.kind, c.args) for c in case.checks] == [
        ("Says hi", CheckKind.UNWRITTEN, ("Says hi",))
    ]
    assert case.notes == (Note("files", ["a.txt"], FILES_REMARK), Note("extra", 1, ""))
    assert case.origin == "evals.json, case 5"
    assert (case.had_no_criteria, case.skipped) == (False, ())


def test_a_note_nested_too_deep_is_refused_on_the_shortcut_too() -> None:
    """A note past 64 levels is refused by case and key, as the general reader refuses it."""
    deep: object = "x"
    for _ in range(70):
        deep = [deep]
    raw = {"id": 1, "prompt": "p", "assertions": ["a"], "more": deep}
    with pytest.raises(Refusal) as caught:
        plain_case(_file(), raw, 3, AT)
    general = _general(raw)
    assert isinstance(general, Refusal)
    assert str(caught.value) == str(general)
    assert "case 1, more" in str(general)


def test_a_file_reads_the_same_with_and_without_the_shortcut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the importer: a file mixing common and uncommon cases gives the same cases."""
    evals = [
        {
            "id": 1,
            "prompt": "p",
            "assertions": ["a", {"text": "b", "type": "behavioral"}],
            "expected_output": "e",
        },
        {"id": "two", "prompt": "q", "expected_output": "Says so"},
        {"id": 3, "prompt": "r", "expectations": ["c"]},
    ]
    source = tmp_path / "evals.json"
    source.write_text(json.dumps({"skill_name": "s", "evals": evals, "version": 2}), encoding="utf-8")
    fast = import_source("evals-json", source).result.cases
    monkeypatch.setattr("adhd_evals.importing.formats._evals_json_cases.plain_case", lambda *args: None)
    assert import_source("evals-json", source).result.cases == fast


@pytest.mark.parametrize(
    ("second", "expected"),
    [
        (1, 'case 1, id: Expected an id no other case has, actual 1, the same catalog id "s-1" as case 1'),
        (
            "s-1",
            'case "s-1", id: Expected an id no other case has, actual "s-1", the same catalog id "s-1" as case 1',
        ),
    ],
)
def test_two_cases_of_one_file_with_one_catalog_id_are_refused(
    tmp_path: Path, second: object, expected: str
) -> None:
    """Ids are told apart by a set first; when it finds fewer ids than cases, the walk names the
    case and the one before it. Worked by hand: an integer id 1 in skill "s" is the catalog id
    "s-1"; a text id "s-1" is itself (not digits, so not prefixed)."""
    evals = [
        {"id": 1, "prompt": "p", "assertions": ["a"]},
        {"id": second, "prompt": "q", "assertions": ["b"]},
    ]
    source = tmp_path / "evals.json"
    source.write_text(json.dumps({"skill_name": "s", "evals": evals}), encoding="utf-8")
    with pytest.raises(Refusal) as caught:
        import_source("evals-json", source)
    assert caught.value.body == f"{source} is not an evals-json file: {expected}"
