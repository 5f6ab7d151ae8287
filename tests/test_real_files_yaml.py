"""The yaml reader under a dialect reaches what the evals-json one does: dotted prompt, id and
category paths, a case list (`cases.at`, "#" numbering), `cases.skip`; a folder is read one
level down (one sub-folder per task). Each expectation is worked from the rules by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from adhd_evals.importing import dialect
from adhd_evals.importing.importer import import_source
from adhd_evals.importing.model import ImportResult, Refusal, RefusalCode

HEAD = "adhd-evals-dialect: 1\nformat: yaml\n"


def _dialect(tmp_path: Path, body: str) -> dialect.Dialect:
    path = tmp_path / "dialect.yaml"
    path.write_text(HEAD + body, encoding="utf-8")
    return dialect.load(path)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _read(source: Path, declared: dialect.Dialect | None = None, **options: object) -> ImportResult:
    return import_source("yaml", source, dialect=declared, **options).result  # type: ignore[arg-type]


def _refused(source: Path, declared: dialect.Dialect | None = None) -> Refusal:
    with pytest.raises(Refusal) as caught:
        import_source("yaml", source, dialect=declared)
    return caught.value


# ---- dotted paths ----------------------------------------------------------------------


def test_a_nested_prompt_and_id_and_what_they_passed_by(tmp_path: Path) -> None:
    """prompt at inputs.prompt, id at meta.name (slugged): inputs.locale and meta.level, beside
    what was read, become notes under their dotted names."""
    declared = _dialect(tmp_path, "cases:\n  prompt: inputs.prompt\n  id: meta.name\n")
    source = _write(
        tmp_path / "t" / "a.yaml",
        "meta: {name: Find It, level: 2}\ninputs: {prompt: Find the page., locale: en}\n",
    )
    (case,) = _read(source, declared).cases
    assert (case.id, case.prompt) == ("find-it", "Find the page.")
    assert sorted(n.key for n in case.notes) == ["inputs.locale", "meta.level"]


def test_a_nested_prompt_that_stops_says_where(tmp_path: Path) -> None:
    declared = _dialect(tmp_path, "cases:\n  prompt: steps.prompt.inline\n")
    source = _write(tmp_path / "t" / "a.yaml", "name: a\nsteps:\n  prompt:\n    file: p.txt\n")
    refusal = _refused(source, declared)
    assert refusal.field_path == "steps.prompt.inline"
    assert refusal.actual == "steps.prompt has no key inline"
    assert refusal.expected == "a non-empty string at steps.prompt.inline (as the dialect says)"
    assert refusal.line == 4  # at steps.prompt's value, where the path stopped


def test_a_nested_prompt_that_is_not_text_is_refused_at_it(tmp_path: Path) -> None:
    declared = _dialect(tmp_path, "cases:\n  prompt: inputs.prompt\n")
    source = _write(tmp_path / "t" / "a.yaml", "name: a\ninputs:\n  prompt: 12\n")
    refusal = _refused(source, declared)
    assert (refusal.field_path, refusal.expected, refusal.line) == ("inputs.prompt", "a string", 3)


def test_the_first_alternative_the_case_holds_is_used(tmp_path: Path) -> None:
    declared = _dialect(tmp_path, "cases:\n  prompt: [task, payload.message, payload.goal]\n")
    source = _write(tmp_path / "t" / "a.yaml", "name: a\npayload: {goal: Reach the end.}\n")
    assert _read(source, declared).cases[0].prompt == "Reach the end."


def test_a_category_per_case(tmp_path: Path) -> None:
    """meta.area when the case has it; the folder's name when it does not."""
    declared = _dialect(tmp_path, "cases:\n  category: meta.area\n")
    _write(tmp_path / "t" / "a.yaml", "name: a\ntask: x\nmeta: {area: ' billing '}\n")
    _write(tmp_path / "t" / "b.yaml", "name: b\ntask: y\n")
    cases = _read(tmp_path / "t", declared).cases
    assert [c.category for c in cases] == ["billing", "t"]


def test_a_category_that_is_not_text_is_refused(tmp_path: Path) -> None:
    declared = _dialect(tmp_path, "cases:\n  category: area\n")
    source = _write(tmp_path / "t" / "a.yaml", "name: a\ntask: x\narea: [1]\n")
    assert _refused(source, declared).field_path == "area"


def test_an_integer_id_follows_the_category(tmp_path: Path) -> None:
    declared = _dialect(tmp_path, "cases:\n  id: id\n")
    source = _write(tmp_path / "shop" / "a.yaml", "id: 7\ntask: x\n")
    assert _read(source, declared).cases[0].id == "shop-7"


def test_an_id_with_no_letter_or_digit_is_refused(tmp_path: Path) -> None:
    declared = _dialect(tmp_path, "cases:\n  id: meta.name\n")
    source = _write(tmp_path / "t" / "a.yaml", "task: x\nmeta: {name: '!!'}\n")
    refusal = _refused(source, declared)
    assert (refusal.field_path, refusal.expected) == ("meta.name", "a name with at least one letter or digit")


# ---- case lists --------------------------------------------------------------------------


LIST = """\
skill: greet
tasks:
  - {id: g-1, prompt: Hello, checklist: [Greets]}
  - {prompt: Bye, checklist: [Waves]}
"""


def test_a_case_list_numbered_in_file_order(tmp_path: Path) -> None:
    """id: [id, "#"]: the first case has an id; the second is the list's 2nd, after the
    folder's slug. `skill`, beside the list, is a note on the first case."""
    declared = _dialect(
        tmp_path, 'cases:\n  at: tasks\n  id: [id, "#"]\n  prompt: prompt\n  criteria: [checklist]\n'
    )
    source = _write(tmp_path / "suite" / "tasks.yaml", LIST)
    cases = _read(source, declared).cases
    assert [(c.id, c.prompt, c.criteria) for c in cases] == [
        ("g-1", "Hello", ["Greets"]),
        ("suite-2", "Bye", ["Waves"]),
    ]
    assert [n.key for n in cases[0].notes] == ["(file) skill"]
    assert cases[1].origin.endswith("tasks.yaml, case #2")


def test_the_file_itself_as_the_list(tmp_path: Path) -> None:
    declared = _dialect(tmp_path, 'cases:\n  at: "."\n  id: "#"\n  prompt: q\n')
    source = _write(tmp_path / "s" / "a.yaml", "- {q: one}\n- {q: two}\n")
    assert [c.id for c in _read(source, declared).cases] == ["s-1", "s-2"]


@pytest.mark.parametrize(
    ("text", "field", "code"),
    [
        pytest.param("tasks: {a: 1}\n", "tasks", RefusalCode.NOT_YAML_CASE, id="not-a-list"),
        pytest.param("tasks: []\n", "tasks", RefusalCode.FILE_EMPTY, id="empty"),
        pytest.param("cases: [{}]\n", "tasks", RefusalCode.NOT_YAML_CASE, id="elsewhere"),
    ],
)
def test_a_case_list_that_is_not_there(tmp_path: Path, text: str, field: str, code: RefusalCode) -> None:
    declared = _dialect(tmp_path, "cases:\n  at: tasks\n  prompt: prompt\n")
    refusal = _refused(_write(tmp_path / "s" / "a.yaml", text), declared)
    assert (refusal.field_path, refusal.code) == (field, code)


def test_a_file_that_is_not_the_list_the_dialect_says(tmp_path: Path) -> None:
    declared = _dialect(tmp_path, 'cases:\n  at: "."\n  prompt: q\n')
    refusal = _refused(_write(tmp_path / "s" / "a.yaml", "q: one\n"), declared)
    assert refusal.field_path == "(top level)" and "a case list at" in str(refusal.expected)


def test_an_item_that_is_not_an_object(tmp_path: Path) -> None:
    declared = _dialect(tmp_path, 'cases:\n  at: tasks\n  id: "#"\n  prompt: prompt\n')
    refusal = _refused(_write(tmp_path / "s" / "a.yaml", "tasks:\n  - just text\n"), declared)
    assert (refusal.case, refusal.expected, refusal.line) == ("case #1", "an object", 2)


def test_two_cases_of_one_list_with_one_id(tmp_path: Path) -> None:
    declared = _dialect(tmp_path, "cases:\n  at: tasks\n  id: id\n  prompt: prompt\n")
    text = "tasks:\n  - {id: a, prompt: x}\n  - {id: A, prompt: y}\n"
    assert _refused(_write(tmp_path / "s" / "a.yaml", text), declared).actual == (
        f'the id "a", which {tmp_path / "s" / "a.yaml"} has too'
    )


# ---- cases.skip --------------------------------------------------------------------------


def test_skip_leaves_a_list_item_out_with_its_reason(tmp_path: Path) -> None:
    declared = _dialect(
        tmp_path,
        'cases:\n  at: tasks\n  id: id\n  prompt: prompt\n  skip: [{has: [turns], reason: "multi-turn"}]\n',
    )
    text = "tasks:\n  - {id: a, prompt: x}\n  - {id: b, turns: [x, y]}\n"
    result = _read(_write(tmp_path / "s" / "a.yaml", text), declared)
    assert [c.id for c in result.cases] == ["a"]
    assert [(x.case, x.id, x.reason) for x in result.left_out] == [('case "b"', "b", "multi-turn")]


def test_skip_leaves_a_whole_file_out(tmp_path: Path) -> None:
    """A one-case file matched by `when`: left out; one without an id says so by its number."""
    declared = _dialect(tmp_path, 'cases:\n  skip: [{when: {kind: draft}, reason: "not ready"}]\n')
    _write(tmp_path / "t" / "a.yaml", "name: a\ntask: x\n")
    _write(tmp_path / "t" / "b.yaml", "name: b\ntask: y\nkind: draft\n")
    _write(tmp_path / "t" / "c.yaml", "kind: draft\n")
    result = _read(tmp_path / "t", declared)
    assert [c.id for c in result.cases] == ["a"]
    assert [(x.case, x.id) for x in result.left_out] == [('case "b"', "b"), ("(file)", None)]


def test_skip_matches_nothing_and_reads_all(tmp_path: Path) -> None:
    declared = _dialect(tmp_path, 'cases:\n  skip: [{has: [turns], reason: "multi-turn"}]\n')
    source = _write(tmp_path / "t" / "a.yaml", "name: a\ntask: x\n")
    assert len(_read(source, declared).cases) == 1


# ---- folders -----------------------------------------------------------------------------


def test_a_folder_is_read_one_level_down(tmp_path: Path) -> None:
    """top.yaml, one/task.yaml and two/task.yml are read (sorted by relative path); a file two
    folders down and a sub-folder's non-YAML file are not."""
    folder = tmp_path / "tasks"
    _write(folder / "top.yaml", "name: top\ntask: a\n")
    _write(folder / "one" / "task.yaml", "name: one\ntask: b\n")
    _write(folder / "two" / "task.yml", "name: two\ntask: c\n")
    _write(folder / "two" / "notes.txt", "not a case\n")
    _write(folder / "two" / "deep" / "task.yaml", "name: deep\ntask: d\n")
    cases = _read(folder).cases
    assert [c.id for c in cases] == ["one", "top", "two"]
    assert [c.origin for c in cases] == [
        str(folder / "one" / "task.yaml"),
        str(folder / "top.yaml"),
        str(folder / "two" / "task.yml"),
    ]


def test_a_folder_with_only_deeper_files_has_nothing(tmp_path: Path) -> None:
    _write(tmp_path / "tasks" / "a" / "b" / "task.yaml", "name: x\ntask: y\n")
    assert _refused(tmp_path / "tasks").code is RefusalCode.DIRECTORY_EMPTY


def test_a_sub_folder_that_cannot_be_listed_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adhd_evals.importing.formats import yaml_cases

    _write(tmp_path / "tasks" / "top.yaml", "name: top\ntask: a\n")
    (tmp_path / "tasks" / "locked").mkdir()
    real = Path.iterdir

    def iterdir(self: Path):  # type: ignore[no-untyped-def]
        if self.name == "locked":
            raise PermissionError("denied")
        return real(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    assert [c.id for c in yaml_cases.read(tmp_path / "tasks", display="tasks", options=_options())] == ["top"]


def _options() -> object:
    from adhd_evals.importing.formats._common import ReadOptions

    return ReadOptions(risk="medium")


# ---- the dialect file ----------------------------------------------------------------------


def test_numbering_needs_a_list(tmp_path: Path) -> None:
    path = tmp_path / "dialect.yaml"
    path.write_text(HEAD + 'cases:\n  id: "#"\n', encoding="utf-8")
    with pytest.raises(Refusal) as caught:
        dialect.load(path)
    assert caught.value.field_path == "cases.id" and "without cases.at" in str(caught.value.expected)
