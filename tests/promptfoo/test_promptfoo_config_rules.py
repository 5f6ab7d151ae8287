"""What a promptfoo config may hold, read as promptfoo 0.120.0 reads it: each refusal names the field, one per rule.

A refusal stops the import with the file, the field and what was expected there (promptfoo
itself stops at most of these; the rest are what adhd-evals will not run or fetch).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adhd_evals.exitcodes import RefusalCode
from adhd_evals.importing.formats.promptfoo import lint_warnings
from adhd_evals.importing.importer import read_source
from adhd_evals.importing.model import Case, Refusal

NOT_PROMPTFOO, TEMPLATE = RefusalCode.NOT_PROMPTFOO, RefusalCode.PROMPTFOO_TEMPLATE
REFERENCE, CODE = RefusalCode.PROMPTFOO_REFERENCE, RefusalCode.PROMPTFOO_CODE
PROMPT = 'prompts: ["Q {{ x }}"]\n'


def _write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder / "promptfooconfig.yaml"


def _cases(folder: Path, files: dict[str, str]) -> list[Case]:
    return list(read_source("promptfoo", _write(folder, files)).cases)


REFUSALS = [
    # the config itself
    pytest.param(
        {"promptfooconfig.yaml": "- a\n"},
        "(top level)",
        "a mapping with prompts and tests",
        NOT_PROMPTFOO,
        id="not-a-mapping",
    ),
    pytest.param(
        {"promptfooconfig.yaml": "tests: []\n"},
        "prompts",
        "the prompts to render (a string, a list, or a mapping)",
        NOT_PROMPTFOO,
        id="no-prompts",
    ),
    pytest.param(
        {"promptfooconfig.yaml": PROMPT + "scenarios: []\n"},
        "scenarios",
        "tests (scenarios are not imported)",
        NOT_PROMPTFOO,
        id="scenarios",
    ),
    pytest.param(
        {"promptfooconfig.yaml": PROMPT + "env: [A]\n"},
        "env",
        "a mapping of names to values",
        NOT_PROMPTFOO,
        id="env-not-a-mapping",
    ),
    # prompts
    pytest.param(
        {"promptfooconfig.yaml": "prompts: []\n"},
        "prompts",
        "a non-empty string, list or mapping",
        NOT_PROMPTFOO,
        id="no-prompt",
    ),
    pytest.param(
        {"promptfooconfig.yaml": "prompts: [{label: x}]\n"},
        "prompts[0]",
        "a string, or an object with raw (or id and label)",
        NOT_PROMPTFOO,
        id="prompt-without-raw",
    ),
    pytest.param(
        {"promptfooconfig.yaml": "prompts: [{raw: x, function: f}]\n"},
        "prompts[0].function",
        "a prompt written down",
        CODE,
        id="prompt-function",
    ),
    pytest.param(
        {"promptfooconfig.yaml": "prompts: [1]\n"},
        "prompts[0]",
        "a string or an object",
        NOT_PROMPTFOO,
        id="prompt-number",
    ),
    pytest.param(
        {"promptfooconfig.yaml": "prompts: ['langfuse://p']\n"},
        "prompts[0]",
        "a prompt written down",
        CODE,
        id="prompt-service",
    ),
    pytest.param(
        {"promptfooconfig.yaml": "prompts: ['exec:make-prompt']\n"},
        "prompts[0]",
        "a prompt written in the config or a data file",
        CODE,
        id="prompt-exec",
    ),
    pytest.param(
        {"promptfooconfig.yaml": "prompts: [file://p.js]\n"},
        "prompts[0]",
        "a prompt written in the config or a data file",
        CODE,
        id="prompt-javascript",
    ),
    pytest.param(
        {"promptfooconfig.yaml": "prompts: [file://p.csv]\n", "p.csv": "a\n"},
        "prompts[0]",
        "a prompt file promptfoo reads as text",
        REFERENCE,
        id="prompt-csv",
    ),
    pytest.param(
        {"promptfooconfig.yaml": "prompts: [file://missing.txt]\n"},
        "prompts[0]",
        "a prompt file that exists",
        REFERENCE,
        id="prompt-missing",
    ),
    pytest.param(
        {"promptfooconfig.yaml": "prompts: ['file://p{a,b}.txt']\n"},
        "prompts[0]",
        "a prompt file as a path or a simple glob",
        REFERENCE,
        id="prompt-brace-glob",
    ),
    pytest.param(
        {"promptfooconfig.yaml": "prompts: ['file://{{ env.HOME }}/p.txt']\n"},
        "prompts[0]",
        "a prompt file whose path does not depend on the machine",
        TEMPLATE,
        id="prompt-path-from-machine",
    ),
    # defaultTest
    pytest.param(
        {"promptfooconfig.yaml": PROMPT + "defaultTest: 3\n"},
        "defaultTest",
        "a mapping",
        NOT_PROMPTFOO,
        id="default-test-number",
    ),
    pytest.param(
        {"promptfooconfig.yaml": PROMPT + "defaultTest: {assert: {type: equals}}\n"},
        "defaultTest.assert",
        "a list",
        NOT_PROMPTFOO,
        id="default-assert-not-a-list",
    ),
    pytest.param(
        {"promptfooconfig.yaml": PROMPT + "defaultTest: file://d.js\n"},
        "defaultTest",
        "defaultTest written in the config or a data file",
        CODE,
        id="default-test-code",
    ),
    # tests
    pytest.param(
        {"promptfooconfig.yaml": PROMPT + "tests: 3\n"},
        "tests",
        "a list of tests, or a path",
        NOT_PROMPTFOO,
        id="tests-number",
    ),
    pytest.param(
        {"promptfooconfig.yaml": PROMPT + "tests: [3]\n"},
        "tests[0]",
        "a test (a mapping) or a path",
        NOT_PROMPTFOO,
        id="test-number",
    ),
    pytest.param(
        {"promptfooconfig.yaml": PROMPT + "tests: file://t.txt\n", "t.txt": "x"},
        "tests",
        "tests in YAML, JSON, JSONL or CSV",
        REFERENCE,
        id="tests-text-file",
    ),
    pytest.param(
        {"promptfooconfig.yaml": PROMPT + "tests: file://gen.py:tests\n"},
        "tests",
        "tests written in the config or a data file",
        CODE,
        id="tests-python-generator",
    ),
    pytest.param(
        {"promptfooconfig.yaml": PROMPT + "tests: [{assert: {type: equals}}]\n"},
        "assert",
        "a list of assertions",
        NOT_PROMPTFOO,
        id="assert-not-a-list",
    ),
    pytest.param(
        {"promptfooconfig.yaml": PROMPT + "tests: [{vars: {x: 1}, options: {transformVars: 'vars'}}]\n"},
        "options.transformVars",
        "vars written down",
        CODE,
        id="transform-vars",
    ),
    pytest.param(
        {"promptfooconfig.yaml": PROMPT + "tests: [{vars: [v.yaml]}]\n"},
        "vars",
        "a mapping of names to values",
        NOT_PROMPTFOO,
        id="vars-from-files",
    ),
    pytest.param(
        {"promptfooconfig.yaml": PROMPT + "tests: [{}]\n"},
        "(test)",
        "one of assert, vars, options, metadata, provider, providerOutput, threshold",
        NOT_PROMPTFOO,
        id="empty-test",
    ),
    # vars read from files
    pytest.param(
        {"promptfooconfig.yaml": PROMPT + "tests: [{vars: {x: file://a.png}}]\n"},
        "vars.x",
        "a var promptfoo reads as text",
        REFERENCE,
        id="binary-var",
    ),
    pytest.param(
        {
            "promptfooconfig.yaml": PROMPT + "tests: [{vars: {x: 'file://*.txt'}}]\n",
            "a.txt": "a",
            "b.txt": "b",
        },
        "vars.x",
        "a var naming one file",
        REFERENCE,
        id="var-glob-of-two",
    ),
    pytest.param(
        {"promptfooconfig.yaml": PROMPT + "tests: [{vars: {x: file://v.py}}]\n"},
        "vars.x",
        "a var written in the config or a data file",
        CODE,
        id="var-from-code",
    ),
    # rendering
    pytest.param(
        {
            "promptfooconfig.yaml": PROMPT
            + "tests: [{vars: {x: 1}, assert: [{type: contains, value: '{{ env.HOME }}'}]}]\n"
        },
        "assert[0]",
        "an assertion value rendered the same by Nunjucks and adhd-evals",
        TEMPLATE,
        id="assertion-template",
    ),
    pytest.param(
        {"promptfooconfig.yaml": "prompts: ['{{ x }}']\ntests: [{vars: {x: ''}}]\n"},
        "prompt",
        "a prompt that renders to text",
        NOT_PROMPTFOO,
        id="empty-prompt",
    ),
    pytest.param(
        {
            "promptfooconfig.yaml": PROMPT
            + "tests:\n  - {vars: {x: 1}, metadata: {adhd_evals: {id: same}}}\n  - {vars: {x: 2}, metadata: {adhd_evals: {id: same}}}\n"
        },
        "description",
        "an id no other test has",
        NOT_PROMPTFOO,
        id="duplicate-id",
    ),
]


@pytest.mark.parametrize(("files", "field", "expected", "code"), REFUSALS)
def test_what_promptfoo_would_not_read_alike_is_refused_by_field(
    tmp_path: Path, files: dict[str, str], field: str, expected: str, code: RefusalCode
) -> None:
    with pytest.raises(Refusal) as caught:
        _cases(tmp_path, files)
    assert (caught.value.field_path, caught.value.expected, caught.value.code) == (field, expected, code)


@pytest.mark.parametrize(
    ("files", "case", "expected"),
    [
        pytest.param({"t.yaml": "- 3\n"}, "t.yaml test 1", "a test (a mapping)", id="yaml-row-not-a-mapping"),
        pytest.param(
            {"t.csv": ""}, None, "a header row naming vars and __expected columns", id="csv-without-header"
        ),
        pytest.param(
            {"t.csv": "x,__expected\n1\n"}, "row 1", "2 fields, as the header has", id="csv-short-row"
        ),
        pytest.param(
            {"t.csv": "x,__provider\n1,a\n"},
            "row 1",
            "a var column or __expected, __prefix, __suffix, __description, __metric, __threshold, __metadata:<key>",
            id="csv-unknown-column",
        ),
    ],
)
def test_tests_files_promptfoo_cannot_read_are_refused(
    tmp_path: Path, files: dict[str, str], case: str | None, expected: str
) -> None:
    name = next(iter(files))
    with pytest.raises(Refusal) as caught:
        _cases(tmp_path, {"promptfooconfig.yaml": PROMPT + f"tests: file://{name}\n", **files})
    assert ((caught.value.case or "").removeprefix(str(tmp_path) + "/"), caught.value.expected) == (
        case or "",
        expected,
    )


def test_a_broken_csv_or_jsonl_line_is_refused_with_its_line(tmp_path: Path) -> None:
    """csv (strict) stops at a quote inside an unquoted field; JSON.parse at a line that is not JSON."""
    with pytest.raises(Refusal) as caught:
        _cases(tmp_path, {"promptfooconfig.yaml": PROMPT + "tests: file://t.csv\n", "t.csv": 'x\n1\n"a"b\n'})
    assert caught.value.line == 3
    with pytest.raises(Refusal) as caught:
        _cases(
            tmp_path,
            {
                "promptfooconfig.yaml": PROMPT + "tests: file://t.jsonl\n",
                "t.jsonl": '{"vars": {"x": 1}}\n{nope\n',
            },
        )
    assert (caught.value.code, caught.value.line) == (RefusalCode.NOT_JSON, 2)


def test_prompt_files_are_read_by_their_kind(tmp_path: Path) -> None:
    """.md/.j2 whole; .json as JSON.stringify(JSON.parse(text)) then rendered as a JSON prompt
    (JSON.stringify(.., 2)); a .json that is not JSON as its text; .jsonl one prompt per line;
    .yaml as its JSON; a .yaml that is not YAML as its text."""
    files = {
        "promptfooconfig.yaml": "prompts:\n"
        + "".join(
            f"  - file://{n}\n" for n in ("a.md", "b.j2", "c.json", "d.json", "e.jsonl", "f.yaml", "g.yaml")
        )
        + "tests: [{vars: {x: X}}]\n",
        "a.md": "# {{ x }}\n",
        "b.j2": "j2 {{ x }}",
        "c.json": '[{"role": "user", "content": "{{ x }}"}]',
        "d.json": "not json {{ x }}",
        "e.jsonl": "one {{ x }}\n\ntwo {{ x }}\n",
        "f.yaml": "k: '{{ x }}'\n",
        "g.yaml": "k: [unclosed {{ x }}\n",
    }
    assert [c.prompt for c in _cases(tmp_path, files)] == [
        "# X\n",
        "j2 X",
        '[\n  {\n    "role": "user",\n    "content": "X"\n  }\n]',
        "not json X",
        "one X",
        "two X",
        '{\n  "k": "X"\n}',
        "k: [unclosed X\n",
    ]


def test_prompt_paths_render_the_config_env_and_globs_read_files_in_path_order(tmp_path: Path) -> None:
    files = {
        "promptfooconfig.yaml": "env: {DIR: sub}\nprompts: ['file://{{ env.DIR }}/*.txt']\ntests: [{vars: {x: X}}]\n",
        "sub/b.txt": "b {{ x }}",
        "sub/a.txt": "a {{ x }}\n---\nsecond",
    }
    assert [c.prompt for c in _cases(tmp_path, files)] == ["a X", "second", "b X"]


def test_prompts_given_as_a_mapping_are_labelled_by_their_values(tmp_path: Path) -> None:
    files = {
        "promptfooconfig.yaml": "prompts: {'Hi {{ x }}': Greeting, 'Bye {{ x }}': Farewell}\ntests: [{description: t, vars: {x: A}}]\n"
    }
    assert [(c.id, c.prompt) for c in _cases(tmp_path, files)] == [
        ("t--greeting", "Hi A"),
        ("t--farewell", "Bye A"),
    ]


def test_tests_and_default_test_read_from_files(tmp_path: Path) -> None:
    """tests.path and a list item's path read a file; defaultTest from a file merges as written in place.
    A standalone JSON tests file names its rows "Row #n" as promptfoo does."""
    files = {
        "promptfooconfig.yaml": PROMPT + "defaultTest: file://d.yaml\ntests: [{path: t.json}]\n",
        "d.yaml": "assert: [{type: contains, value: Q}]\n",
        "t.json": '[{"vars": {"x": 1}}, {"vars": {"x": 2}}]',
    }
    cases = _cases(tmp_path, files)
    assert [(c.id, c.prompt) for c in cases] == [("row-1", "Q 1"), ("row-2", "Q 2")]
    assert all(c.checks[0].criterion == "contains: Q" for c in cases)
    files["promptfooconfig.yaml"] = PROMPT + "tests: {path: t.json}\n"
    assert [c.prompt for c in _cases(tmp_path, files)] == ["Q 1", "Q 2"]


def test_csv_special_columns_become_the_test(tmp_path: Path) -> None:
    """testCaseFromCsvRow: __prefix/__suffix wrap the prompt, __description names the test,
    __metric goes on each assertion, __metadata:<key> is metadata (empty values left out)."""
    files = {
        "promptfooconfig.yaml": PROMPT + "tests: file://t.csv\n",
        "t.csv": "x,__expected,__prefix,__suffix,__description,__metric,__threshold,__metadata:team,__metadata:none\n"
        "1,contains:Q,<,>,first one,m,0.5,core,\n",
    }
    (case,) = _cases(tmp_path, files)
    notes = {n.key: n.value for n in case.notes}
    assert (case.id, case.prompt, case.checks[0].criterion) == ("first-one", "<Q 1>", "contains: Q")
    assert notes["metadata"] == {"team": "core"} and notes["threshold"] == 0.5
    assert notes["assert[0].metric"] == "m"


def test_var_files_are_read_as_their_text_or_json(tmp_path: Path) -> None:
    """renderPrompt: a file:// var is the file's text trimmed; a YAML file's is its JSON."""
    files = {
        "promptfooconfig.yaml": "prompts: ['{{ a }}|{{ b }}']\ntests: [{vars: {a: file://a.txt, b: file://b.yaml}}]\n",
        "a.txt": "  text  \n",
        "b.yaml": "k: 1\n",
    }
    assert [c.prompt for c in _cases(tmp_path, files)] == ['text|{"k":1}']


def test_metadata_written_by_export_gives_back_id_category_and_risk(tmp_path: Path) -> None:
    files = {
        "promptfooconfig.yaml": PROMPT
        + "tests: [{vars: {x: 1}, metadata: {adhd_evals: {id: kept, category: cat, risk: high}}}]\n"
    }
    (case,) = _cases(tmp_path, files)
    assert (case.id, case.category, case.risk) == ("kept", "cat", "high")


def test_lint_warnings_are_none_for_a_file_the_import_refuses(tmp_path: Path) -> None:
    """The import's own refusal speaks for an unreadable file or one that is not a mapping."""
    broken = tmp_path / "broken.yaml"
    broken.write_text("a: [\n", encoding="utf-8")
    listed = tmp_path / "list.yaml"
    listed.write_text("- a\n", encoding="utf-8")
    assert lint_warnings(broken) == [] and lint_warnings(listed) == []
