"""Every input gets a message: the inputs that once crashed, one test each with the
position written by hand, then fuzzers for every reader (no exit 70, no traceback).

The fuzzers run a bounded number of examples in CI; set ADHD_EVALS_FUZZ=10000 to run
that many per fuzzer."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adhd_evals import exitcodes
from adhd_evals.entry import main
from helpers import FIXTURES

EXAMPLES = int(os.environ.get("ADHD_EVALS_FUZZ", "120"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
LONG = "1" * 5000


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    captured = capsys.readouterr()
    assert code != exitcodes.INTERNAL, captured.err
    assert "Traceback" not in captured.err
    return code, captured.out + captured.err


CASES = [
    # (what, file name, content, argv (FILE replaced), exit code, text expected in the output)
    (
        "lone surrogate in an assertion object",
        "evals.json",
        '{"skill_name":"s","evals":[{"id":1,"prompt":"p","assertions":[{"type":"x","v":"\\ud800"}]}]}',
        ["import", "--format", "evals-json", "FILE"],
        14,
        "case 's-1', criteria[0]: Expected text that UTF-8 can hold",
    ),
    (
        "lint sees the same surrogate",
        "evals.json",
        '{"skill_name":"s","evals":[{"id":1,"prompt":"p","assertions":[{"type":"x","v":"\\ud800"}]}]}',
        ["lint", "--format-of", "evals-json", "FILE"],
        1,
        "criteria[0]: Expected text that UTF-8 can hold",
    ),
    (
        "lone surrogate in an evalflow context",
        "dataset.json",
        '{"version":"1","test_cases":[{"id":"a-b","description":"d","task_type":"qa","input":"i",'
        '"expected_output":"o","context":"\\ud800","eval_config":{"methods":["exact_match"]}}]}',
        ["import", "--format", "evalflow", "FILE"],
        16,
        "case 'a-b', prompt: Expected text that UTF-8 can hold",
    ),
    (
        "a kind that is a list",
        "evals.json",
        '{"skill_name":"s","evals":[{"id":1,"prompt":"p","assertions":[{"kind":["a"]}]}]}',
        ["import", "--format", "evals-json", "FILE"],
        0,
        "1 assertion could not be converted",
    ),
    (
        "a kind that is an object",
        "evals.json",
        '{"skill_name":"s","evals":[{"id":1,"prompt":"p","assertions":[{"kind":{"a":1}}]}]}',
        ["lint", "--format-of", "evals-json", "FILE"],
        0,
        "0 errors",
    ),
    (
        "risk as a list",
        "cases.jsonl",
        '{"id":"a","category":"c","prompt":"p","risk":["low"],"criteria":["x"]}\n',
        ["lint", "FILE"],
        1,
        "cases.jsonl:1:46: E104 risk: expected a string",
    ),
    (
        "a duplicate key, then extra data",
        "cases.jsonl",
        '{"id":"a","id":"b"} x\n',
        ["lint", "FILE"],
        1,
        "cases.jsonl:1:21: E101 invalid JSON: Extra data",
    ),
    (
        "a lone surrogate in a JSON lint message",
        "cases.jsonl",
        '{"id":"a","category":"c","prompt":"p","risk":"bad\\ud800","criteria":["x"]}\n',
        ["lint", "--output-format", "json", "FILE"],
        1,
        'risk must be low, medium or high, not \\"bad\\\\ud800\\"',
    ),
    (
        "a 5,000-digit number in a catalog (lint)",
        "cases.jsonl",
        '{"id":"a","category":"c","prompt":"p","risk":"low","criteria":["x"],"n":' + LONG + "}\n",
        ["lint", "FILE"],
        1,
        "cases.jsonl:1:73: E101 invalid JSON: a number of 5,000 digits",
    ),
    (
        "a 5,000-digit number in a catalog (validate)",
        "cases.jsonl",
        '{"id":"a","category":"c","prompt":"p","risk":"low","criteria":["x"],"n":' + LONG + "}\n",
        ["validate", "FILE"],
        1,
        "cases.jsonl:1:73: E101 invalid JSON: a number of 5,000 digits",
    ),
    (
        "a 5,000-digit id in evals.json",
        "evals.json",
        '{"skill_name":"s","evals":[{"id":' + LONG + ',"prompt":"p"}]}',
        ["import", "--format", "evals-json", "FILE"],
        12,
        "evals[0].id: a number of 5,000 digits (Python reads whole numbers of up to 4,300) (line 1, column 34)",
    ),
    (
        "a 5,000-digit max_steps in YAML",
        "task.yaml",
        "name: n\ntask: t\nmax_steps: " + LONG + "\n",
        ["import", "--format", "yaml", "FILE"],
        13,
        "max_steps: a number of 5,000 digits (Python reads whole numbers of up to 4,300) (line 3, column 12)",
    ),
    (
        "a response row without its runner",
        "responses.jsonl",
        '{"case_id":"a","trial":1,"condition":"baseline"}\n',
        ["blind", "FILE", "--sheet", "SHEET", "--key", "KEY"],
        4,
        "responses.jsonl:1: runner must be a string (missing)",
    ),
    (
        "mixed trial types",
        "responses.jsonl",
        '{"case_id":"a","trial":1,"condition":"baseline","runner":"r","response":"x"}\n'
        '{"case_id":"a","trial":"1","condition":"candidate","runner":"r","response":"y"}\n',
        ["blind", "FILE", "--sheet", "SHEET", "--key", "KEY"],
        4,
        "responses.jsonl:2: trial must be an integer",
    ),
]


@pytest.mark.parametrize(
    ("what", "name", "content", "argv", "code", "expected"), CASES, ids=[c[0] for c in CASES]
)
def test_a_message_not_a_traceback(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    what: str,
    name: str,
    content: str,
    argv: list[str],
    code: int,
    expected: str,
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8", errors="surrogatepass")
    names = {"FILE": str(path), "SHEET": str(tmp_path / "sheet.jsonl"), "KEY": str(tmp_path / "key.jsonl")}
    got, output = _run([names.get(a, a) for a in argv], capsys)
    assert got == code, output
    assert expected in output


def test_score_key_without_label(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    metrics = dict.fromkeys(("correctness", "autonomy", "actionability", "safety", "concision"), 3)
    (tmp_path / "sheet.jsonl").write_text(
        json.dumps({"case_id": "a", "trial": 1, "condition": "A", **metrics, "blocker": False, "notes": ""})
        + "\n"
    )
    (tmp_path / "key.jsonl").write_text('{"case_id": "a", "trial": 1, "condition": "baseline"}\n')
    code, output = _run(
        ["score", str(tmp_path / "sheet.jsonl"), "--key", str(tmp_path / "key.jsonl")], capsys
    )
    assert code == exitcodes.INPUT and "key.jsonl:1: label must be a string (missing)" in output


@pytest.mark.long
def test_plan_on_an_ascii_terminal(tmp_path: Path) -> None:
    import subprocess
    import sys

    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        '{"id":"é","category":"c","prompt":"p","risk":"low","criteria":["x"]}\n', encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-m", "adhd_evals", "plan", "--cases", str(cases), "--trials", "1"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == '{"case_id": "\\u00e9", "trial": 1, "condition": "baseline"}'


def test_a_hand_edit_nested_past_the_compiler(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "evals.json"
    source.write_text('{"skill_name":"s","evals":[{"id":1,"prompt":"p","assertions":["x"]}]}')
    out = tmp_path / "evals"
    assert _run(["import", "--format", "evals-json", str(source), "--out", str(out)], capsys)[0] == 0
    module = out / "checks.py"
    module.write_text(module.read_text() + "\nx = " + "-" * 100_000 + "1\n")
    code, output = _run(["import", "--format", "evals-json", str(source), "--out", str(out)], capsys)
    assert code == exitcodes.OUTPUT and "nested too deeply for Python's compiler" in output
    code, output = _run(["lint", str(module)], capsys)
    assert code == 1 and "checks.py:1:1: E111 cannot parse: an expression nested too deeply" in output


# ---- fuzzers ------------------------------------------------------------------

texts = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=12) | st.sampled_from(
    ["", " ", "\ud800", "\u2028", "\x00", "é", "東京", "adhd-evals: check x 0000000000000000", "\n"]
)
scalars = st.none() | st.booleans() | st.integers(-10, 10**6) | st.floats(allow_nan=False) | texts
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            texts | st.sampled_from(["id", "prompt", "kind", "text", "type"]), inner, max_size=4
        )
    ),
    max_leaves=10,
)
EVALS_KEYS = ["id", "prompt", "assertions", "expectations", "name", "files", "expected_output"]
evals_cases = st.dictionaries(st.sampled_from(EVALS_KEYS), values, max_size=5)
evals_files = st.fixed_dictionaries(
    {"evals": st.lists(evals_cases, max_size=3)}, optional={"skill_name": values}
)
FLOW_KEYS = ["id", "description", "task_type", "input", "expected_output", "context", "tags", "eval_config"]
flow_files = st.fixed_dictionaries(
    {
        "version": values,
        "test_cases": st.lists(st.dictionaries(st.sampled_from(FLOW_KEYS), values, max_size=8), max_size=3),
    }
)


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return path


def _mutate(text: str, cut: int, junk: str) -> str:
    """Damage a valid document: cut it somewhere and splice junk in (big numbers, braces)."""
    cut = cut % (len(text) + 1)
    return text[:cut] + junk + text[cut:]


junk = st.sampled_from(["", "", "", LONG, "{", "]", '"', "\\", "\ufeff", "\r", ": ,", "-" * 50])


@pytest.mark.long
@FUZZ
@given(data=evals_files, cut=st.integers(0, 10**6), extra=junk)
def test_fuzz_evals_json(
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    data: Any,
    cut: int,
    extra: str,
) -> None:
    path = _write(tmp_path_factory.mktemp("e") / "evals.json", _mutate(_dump(data), cut, extra))
    _run(["import", "--format", "evals-json", str(path)], capsys)
    _run(["lint", "--format-of", "evals-json", str(path)], capsys)


@pytest.mark.long
@FUZZ
@given(data=flow_files, cut=st.integers(0, 10**6), extra=junk)
def test_fuzz_evalflow(
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    data: Any,
    cut: int,
    extra: str,
) -> None:
    path = _write(tmp_path_factory.mktemp("f") / "dataset.json", _mutate(_dump(data), cut, extra))
    _run(["import", "--format", "evalflow", str(path)], capsys)
    _run(["lint", "--format-of", "evalflow", str(path)], capsys)


yaml_text = st.lists(
    st.sampled_from(
        [
            "name: n",
            "task: t",
            "judge_context:",
            "  - c",
            "  - 3",
            "max_steps: 10",
            "max_steps: " + LONG,
            "k: &a [1]",
            "j: *a",
            "d: 2026-01-01",
            "x: !!binary aGk=",
            "<<<<<<< HEAD",
            "---",
            "- x",
            "name: [",
            "t: '\\ud800'",
            'u: "\\ud800"',
            "name: ''",
            "task: |",
            "  line",
            "? [a]",
            ": b",
            "\t",
        ]
    ),
    max_size=8,
)


@pytest.mark.long
@FUZZ
@given(lines=yaml_text)
def test_fuzz_yaml(
    tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str], lines: list[str]
) -> None:
    path = _write(tmp_path_factory.mktemp("y") / "task.yaml", "\n".join(lines) + "\n")
    _run(["import", "--format", "yaml", str(path)], capsys)
    _run(["lint", "--format-of", "yaml", str(path)], capsys)


row_keys = st.sampled_from(
    [
        "id",
        "category",
        "prompt",
        "risk",
        "criteria",
        "case_id",
        "trial",
        "condition",
        "runner",
        "response",
        "label",
        "correctness",
        "autonomy",
        "actionability",
        "safety",
        "concision",
        "blocker",
        "notes",
    ]
)
_METRICS = dict.fromkeys(("correctness", "autonomy", "actionability", "safety", "concision"), 3)
TEMPLATES = [  # valid rows of each kind the commands read; the fuzzer breaks one field at a time
    {"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]},
    {"case_id": "a", "trial": 1, "condition": "baseline", "runner": "stub", "response": "r"},
    {"case_id": "a", "trial": 1, "condition": "candidate", "runner": "stub", "response": "r"},
    {"case_id": "a", "trial": 1, "condition": "baseline", **_METRICS, "blocker": False, "notes": ""},
    {"case_id": "a", "trial": 1, "condition": "candidate", **_METRICS, "blocker": True, "notes": ""},
    {"case_id": "a", "trial": 1, "condition": "A", **_METRICS, "blocker": False, "notes": ""},
    {"case_id": "a", "trial": 1, "label": "A", "condition": "baseline"},
    {
        "case_id": "a",
        "trial": 1,
        "condition": "A",
        "response": "r",
        **_METRICS,
        "blocker": False,
        "notes": "",
        "void": "timed out",
    },
]


def _broken(template: dict[str, Any], key: str, value: Any, drop: bool) -> dict[str, Any]:
    row = dict(template)
    if drop:
        row.pop(key, None)
    else:
        row[key] = value
    return row


near_valid = st.builds(_broken, st.sampled_from(TEMPLATES), row_keys, values, st.booleans())
rows = (
    near_valid
    | st.sampled_from(TEMPLATES)
    | st.dictionaries(
        row_keys, values | st.sampled_from(["baseline", "candidate", "A", 1, 3, "low"]), max_size=12
    )
)
row_lines = st.lists(
    rows.map(_dump) | st.sampled_from(["", "{", "[1]", "\ufeff{}", '{"a":1,"a":2}', LONG]), max_size=5
)


@pytest.mark.long
@FUZZ
@given(lines=row_lines, separator=st.sampled_from(["\n", "\r\n", "\r", "\x0c", "\u2028"]))
def test_fuzz_row_files(
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    lines: list[str],
    separator: str,
) -> None:
    folder = tmp_path_factory.mktemp("r")
    path = _write(folder / "rows.jsonl", separator.join(lines) + "\n")
    _run(["validate", str(path)], capsys)
    _run(["lint", str(path)], capsys)
    _run(["blind", str(path), "--sheet", str(folder / "s.jsonl"), "--key", str(folder / "k.jsonl")], capsys)
    _run(["score", str(path)], capsys)
    _run(["score", str(path), "--key", str(path)], capsys)
    _run(["check", str(path), "--cases", str(path), "--suite", str(folder / "none.py")], capsys)
    _run(["agree", str(path), str(path)], capsys)
    report = FIXTURES / "report"
    _run(["score", str(report / "scores.jsonl"), "--checks", str(path)], capsys)
    _run(["report", "--cases", str(path), "--responses", str(path), "--out", str(folder / "r.html")], capsys)
    _run(
        [
            "report",
            "--cases",
            str(report / "cases.jsonl"),
            "--responses",
            str(path),
            "--scores",
            str(path),
            "--checks",
            str(path),
            "--out",
            str(folder / "r.md"),
            "--format",
            "markdown",
        ],
        capsys,
    )
    _run(
        ["judge", str(path), "--runner", "stub", "--cases", str(path), "--output", str(folder / "j.jsonl")],
        capsys,
    )


# ---- messages that help ---------------------------------------------------------


def test_lint_carries_the_import_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "evals.json"
    path.write_text('{"skill_name": "s", "cases": [{"id": 1, "prompt": "p"}]}')
    assert main(["lint", str(path)]) == 1
    assert '(hint: found a "cases" list where evals-json has "evals")' in capsys.readouterr().out


@pytest.mark.parametrize(
    ("fmt", "name", "content", "hint"),
    [
        (
            "yaml",
            "evals.json",
            '{"skill_name": "s", "evals": [{"id": 1, "prompt": "p"}]}',
            "hint: evals.json looks like an evals.json: try --format evals-json",
        ),
        (
            "evalflow",
            "evals.json",
            '{"skill_name": "s", "evals": [{"id": 1, "prompt": "p"}]}',
            "evals.json looks like an evals.json: try --format evals-json",
        ),
        (
            "evals-json",
            "task.yaml",
            "name: n\ntask: t\n",
            "task.yaml looks like a YAML case file: try --format yaml",
        ),
        (
            "evals-json",
            "cases.jsonl",
            '{"id": "a"}\n{"id": "b"}\n',
            "cases.jsonl looks like a five-field catalog (JSONL): it is not a source to import",
        ),
    ],
)
def test_a_wrong_format_names_the_one_the_file_looks_like(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str, name: str, content: str, hint: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    assert main(["import", "--format", fmt, str(path)]) >= 10
    assert hint in capsys.readouterr().err


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("case_id", ["a"], "Score row 1: case_id must be a string"),
        ("trial", [1], "Score row 1: trial must be an integer"),
        ("condition", ["baseline"], "Score row 1: condition must be a string"),
    ],
)
def test_score_rows_with_lists_where_ids_belong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, value: Any, message: str
) -> None:
    metrics = dict.fromkeys(("correctness", "autonomy", "actionability", "safety", "concision"), 3)
    rows = [
        {"case_id": "a", "trial": 1, "condition": c, **metrics, "blocker": False, "notes": ""}
        for c in ("baseline", "candidate")
    ]
    rows[0][field] = value
    path = tmp_path / "scores.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, output = _run(["score", str(path)], capsys)
    assert code == exitcodes.INPUT and message in output
