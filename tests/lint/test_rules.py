"""One test per lint rule: its code, line and column."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.lint import lint_paths
from adhd_evals.lint.rules import RULES, table

GOOD = '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["Answers 102."]}'


def _lint(tmp_path: Path, name: str, content: str | bytes) -> list[tuple[str, int, int]]:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return [(p.code, p.line, p.column) for p in lint_paths([path]).problems]


@pytest.mark.parametrize(
    ("second_line", "expected"),
    [
        pytest.param('{"id": "b",', ("E101", 2, 12), id="E101-invalid-json"),
        pytest.param('["b"]', ("E102", 2, 1), id="E102-not-object"),
        pytest.param(
            '{"id": "b", "category": "c", "turns": ["hi"], "risk": "low", "criteria": ["x"]}',
            ("E103", 2, 1),
            id="E103-missing-field",
        ),
        pytest.param(GOOD.replace('"a"', "7"), ("E104", 2, 8), id="E104-wrong-type"),
        pytest.param(GOOD.replace('"a"', '""'), ("E105", 2, 8), id="E105-empty-id"),
        pytest.param(GOOD, ("E106", 2, 8), id="E106-duplicate-id"),
        pytest.param(
            GOOD.replace('"a"', '"b"').replace('"low"', '"severe"'), ("E107", 2, 53), id="E107-risk-value"
        ),
        pytest.param(
            GOOD.replace('"a"', '"b"').replace('["Answers 102."]', "[]"),
            ("E108", 2, 72),
            id="E108-empty-criteria",
        ),
        pytest.param(
            GOOD.replace('"a"', '"b"').replace('"Answers 102."', '"Answers 102.", " "'),
            ("E108", 2, 89),  # the " " item itself: the list opens at 72, "Answers 102." takes 73-86
            id="E108-empty-criterion",
        ),
        pytest.param(
            GOOD.replace('"a"', '"b"').replace('"prompt": "p"', '"prompt": "p", "prompt": "q"'),
            ("E109", 2, 45),
            id="E109-duplicate-key",
        ),
        pytest.param(
            GOOD.replace('"a"', '"b"').replace("Answers 102.", "Finds the bug and gives the fix."),
            ("W201", 2, 73),  # criteria[0], just inside the list's bracket at 72
            id="W201-bundled-criterion",
        ),
    ],
)
def test_catalog_rule_position(tmp_path: Path, second_line: str, expected: tuple[str, int, int]) -> None:
    assert _lint(tmp_path, "cases.jsonl", GOOD + "\n" + second_line + "\n") == [expected]


def test_duplicate_id_names_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(GOOD + "\n" + GOOD + "\n")
    [problem] = lint_paths([path]).problems
    assert "line 1 has it too" in problem.message and problem.line == 2


def test_E110_invalid_utf8_and_bom(tmp_path: Path) -> None:
    bad = GOOD.encode().replace(b'"p"', b'"caf\xe9"')
    assert _lint(tmp_path, "cases.jsonl", b"\xef\xbb\xbf" + GOOD.encode() + b"\n" + bad + b"\n") == [
        ("E110", 1, 1),
        ("E110", 2, 44),
    ]


def test_E110_lone_surrogate_escape_at_its_value(tmp_path: Path) -> None:
    """`"p"` sits at columns 40-42 of GOOD (`{"id": "a", "category": "c", "prompt": ` is 39
    characters); `"\\ud800"` in its place starts at 40 too. In
    criteria, `["Answers 102."]` opens at 72, so its first item starts at 73. A surrogate
    *pair* (`\\ud83d\\ude00`, an emoji written ASCII-only) is a character and passes."""
    lone = GOOD.replace('"p"', '"\\ud800"')
    in_criterion = GOOD.replace('"a"', '"b"').replace('"Answers 102."', '"x \\udfff"')
    pair = GOOD.replace('"a"', '"c"').replace('"p"', '"\\ud83d\\ude00"')
    assert _lint(tmp_path, "cases.jsonl", "\n".join([lone, in_criterion, pair]) + "\n") == [
        ("E110", 1, 40),
        ("E110", 2, 73),
    ]


def test_a_lone_surrogate_is_refused_by_validate_and_load(tmp_path: Path) -> None:
    from adhd_evals.catalog import load_valid, validate_file
    from adhd_evals.errors import InputInvalid

    path = tmp_path / "cases.jsonl"
    path.write_text(GOOD.replace('"p"', '"\\ud800"') + "\n")
    count, problems = validate_file(path)
    assert (count, [(p.code, p.line, p.column) for p in problems]) == (1, [("E110", 1, 40)])
    assert "prompt holds a lone surrogate" in problems[0].message
    with pytest.raises(InputInvalid):
        load_valid(path)


def test_every_problem_in_a_file_is_reported(tmp_path: Path) -> None:
    text = "\n".join([GOOD, "{oops", GOOD.replace('"low"', '"x"').replace('"a"', '"b"'), GOOD])
    assert [c for c, _, _ in _lint(tmp_path, "cases.jsonl", text)] == ["E101", "E107", "E106"]


MODULE = """
@check("a", "Answers 102.")
def check_a_1(answer: str) -> bool:
    return unwritten("Answers 102.")
"""


def test_W203_unwritten_placeholder(tmp_path: Path) -> None:
    assert _lint(tmp_path, "checks.py", MODULE) == [("W203", 4, 12)]


def test_E111_module_syntax(tmp_path: Path) -> None:
    assert _lint(tmp_path, "checks.py", MODULE.replace('unwritten("Answers 102.")', "(")) == [("E111", 4, 12)]


def test_W202_case_without_checks(tmp_path: Path) -> None:
    (tmp_path / "checks.py").write_text(MODULE.replace("unwritten(", "str.startswith(answer, "))
    second = GOOD.replace('"a"', '"b"')
    assert _lint(tmp_path, "cases.jsonl", GOOD + "\n" + second + "\n") == [("W202", 2, 1)]


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        pytest.param(
            "evals.json",
            '{"skill_name": "s", "evals": [\n  {"id": 1, "prompt": 12}\n]}',
            [("CaseFileNotEvalsJson", 2, 23)],
            id="CaseFileNotEvalsJson",
        ),
        pytest.param(
            "evals.json",
            '{"skill_name": "s", "evals": [\n  {"id": 1, "prompt": 12},\n  {"id": 2}\n]}',
            [("CaseFileNotEvalsJson", 2, 23), ("CaseFileNotEvalsJson", 3, 3)],
            id="every-case",
        ),
        pytest.param("evals.json", '{"evals": [}', [("CaseFileNotJson", 1, 12)], id="CaseFileNotJson"),
        pytest.param("evals.json", '{"evals": []}', [("CaseFileEmpty", 1, 11)], id="CaseFileEmpty"),
        pytest.param(
            "dataset.json",
            '{"version": "1.0", "test_cases": [{"id": "Bad_Id"}]}',
            [("CaseFileNotEvalflowDataset", 1, 42)],
            id="CaseFileNotEvalflowDataset",
        ),
        pytest.param("task.yaml", "name: n\ntask: [\n", [("CaseFileNotYaml", 3, 1)], id="CaseFileNotYaml"),
        pytest.param(
            "task.yaml",
            "name: n\ntask: t\nmax_steps: x\n",
            [("CaseFileNotYamlCase", 3, 12)],
            id="CaseFileNotYamlCase",
        ),
    ],
)
def test_source_refusals_with_the_import_wording(
    tmp_path: Path, name: str, content: str, expected: list[tuple[str, int, int]]
) -> None:
    assert _lint(tmp_path, name, content) == expected


def test_refusal_wording_matches_import(tmp_path: Path) -> None:
    from adhd_evals.importing.importer import import_source
    from adhd_evals.importing.model import Refusal

    path = tmp_path / "evals.json"
    path.write_text('{"skill_name": "s", "evals": [{"id": 47, "prompt": 12}]}')
    [problem] = lint_paths([path]).problems
    with pytest.raises(Refusal) as caught:
        import_source("evals-json", path, display="evals.json")
    assert problem.message == caught.value.body


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_rule_module_documents_itself(code: str) -> None:
    """Code, name and severity declared; the docstring says what, why, and shows both cases."""
    rule = RULES[code]
    assert re.fullmatch(r"[EW]\d{3}", rule.ID) and re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.NAME)
    assert ("error" if rule.ID.startswith("E") else "warning") == rule.SEVERITY
    paragraphs = (rule.__doc__ or "").strip().split("\n\n")
    assert paragraphs[0].startswith(f"{rule.ID} {rule.NAME}: ")
    assert len(paragraphs) >= 3  # what it finds; why it matters; the examples
    assert "Passing" in paragraphs[-1] or "Passing" in paragraphs[-2]
    assert "Failing" in (rule.__doc__ or "")


def test_a_yaml_folder_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from adhd_evals.importing.formats import yaml_cases

    parsed: list[str] = []
    real = yaml_cases._read_file

    def counting(path: Path, *args: object, **kwargs: object) -> object:
        parsed.append(path.name)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(yaml_cases, "_read_file", counting)
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.yaml").write_text(f"name: Same name\ntask: {name}\n")
    report = lint_paths([tmp_path])
    assert sorted(parsed) == ["a.yaml", "b.yaml", "c.yaml"]  # once each, collisions included
    assert [p.code for p in report.problems] == ["CaseFileNotYamlCase", "CaseFileNotYamlCase"]


def test_yaml_names_that_slug_alike_in_one_folder(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("name: Cloudflare captcha\ntask: one\n")
    (tmp_path / "b.yaml").write_text("name: cloudflare-captcha!\ntask: two\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "c.yaml").write_text("name: Cloudflare captcha\ntask: three\n")
    [problem] = lint_paths([tmp_path]).problems
    assert problem.code == "CaseFileNotYamlCase" and problem.path == str(tmp_path / "b.yaml")
    assert str(tmp_path / "a.yaml") in problem.message


@pytest.mark.long
@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(
        st.one_of(
            st.binary(max_size=40),
            st.just(GOOD.encode()),
            st.text(max_size=30).map(lambda t: json.dumps({"id": t}).encode()),
        ),
        max_size=6,
    )
)
def test_lint_never_crashes_on_arbitrary_lines(lines: list[bytes]) -> None:
    import io

    from adhd_evals.catalogrules.stream import lint_stream

    _cases, problems, _ = lint_stream(io.BytesIO(b"\n".join(lines)))
    assert all(p.line >= 1 and p.column >= 1 and p.code for p in problems)


def test_the_lint_rules_page_is_made_from_the_rules() -> None:
    """docs/lint-rules.md holds the marker the MkDocs hook replaces with the table and every
    rule's docstring, so the page cannot fall behind a rule."""
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location(
        "mkdocs_hooks", root / "docs" / "_hooks" / "mkdocs_hooks.py"
    )
    assert spec is not None and spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    page = hooks.render((root / "docs" / "lint-rules.md").read_text(encoding="utf-8"))
    assert table() in page
    for rule in RULES.values():
        assert f"## {rule.ID} {rule.NAME} ({rule.SEVERITY})" in page
        assert (rule.__doc__ or "").strip().splitlines()[-1] in page  # the failing example, last


def test_select_and_ignore_by_code_and_prefix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from adhd_evals.entry import main

    catalog = tmp_path / "cases.jsonl"
    catalog.write_text(
        '{"id": "a", "category": "c", "prompt": "p", "risk": "bad", "criteria": []}\n', encoding="utf-8"
    )
    assert main(["lint", str(catalog)]) == 1
    assert [line.split()[1] for line in capsys.readouterr().out.splitlines()[:-1]] == ["E107", "E108"]
    assert main(["lint", "--ignore", "E107", str(catalog)]) == 1
    assert [line.split()[1] for line in capsys.readouterr().out.splitlines()[:-1]] == ["E108"]
    assert main(["lint", "--ignore", "E107,E108", str(catalog)]) == 0
    capsys.readouterr()
    assert main(["lint", "--select", "E10", "--ignore", "E108", str(catalog)]) == 1
    assert [line.split()[1] for line in capsys.readouterr().out.splitlines()[:-1]] == ["E107"]
    assert main(["lint", "--select", "W", str(catalog)]) == 0
    capsys.readouterr()
    assert main(["lint", "--select", "Z1", str(catalog)]) == 2
    assert "no lint code starts with Z1" in capsys.readouterr().err


@pytest.mark.parametrize(
    "blank", ["\u00a0", "\u3000 \u2003", "\t\u00a0\t"], ids=["nbsp", "ideographic", "mixed"]
)
def test_a_line_of_unicode_whitespace_is_blank_as_the_reference_reads_it(tmp_path: Path, blank: str) -> None:
    """i-have-adhd's validate_cases skips a line whose str.strip() is empty: a line holding only
    U+00A0 or U+3000 is no case there. adhd-evals reported it as invalid JSON (E101) and
    counted it as a case; now the file is one valid case, as the reference says."""
    from adhd_evals.catalog import validate_file

    path = tmp_path / "cases.jsonl"
    path.write_text(GOOD + "\n" + blank + "\n", encoding="utf-8")
    assert validate_file(path) == (1, [])
