"""`adhd-evals validate`: every problem, each with its line; the reference's rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adhd_evals import exitcodes
from adhd_evals.entry import main
from helpers import CORPUS

GOOD = '{"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}\n'


def _validate(tmp_path: Path, text: str | bytes, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    path = tmp_path / "cases.jsonl"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    code = main(["validate", str(path)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_valid_catalog(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _validate(tmp_path, GOOD + "\n" + GOOD.replace('"a"', '"b"'), capsys)
    assert code == exitcodes.OK and out == "Evaluation cases are valid.\n"


# Each bad second line, and what validate says of it (the lint rules' words and
# positions, written by hand: GOOD's value of "risk" starts at column 53, its
# "criteria" list at 72).
@pytest.mark.parametrize(
    ("line", "expected"),
    [
        pytest.param(
            '{"id": "b"', "cases.jsonl:2:11: E101 invalid JSON: Expecting ',' delimiter", id="invalid-json"
        ),
        pytest.param(
            '["not", "an", "object"]', "cases.jsonl:2:1: E102 expected a JSON object", id="not-object"
        ),
        pytest.param(
            '{"id": "b", "category": "c", "risk": "low", "criteria": ["x"]}',
            "cases.jsonl:2:1: E103 missing fields: prompt",
            id="missing",
        ),
        pytest.param(GOOD.strip().replace('"a"', '""'), "cases.jsonl:2:8: E105 id is empty", id="empty-id"),
        pytest.param(
            GOOD.strip().replace('"a"', "7"),
            "cases.jsonl:2:8: E104 id: expected a string, found a number",
            id="int-id",
        ),
        pytest.param(
            GOOD.strip().replace('"a"', '"b"').replace('"low"', '"severe"'),
            'cases.jsonl:2:53: E107 risk must be low, medium or high, not "severe"',
            id="risk",
        ),
        pytest.param(
            GOOD.strip().replace('"a"', '"b"').replace('["x"]', "[]"),
            "cases.jsonl:2:72: E108 criteria is an empty list",
            id="empty-criteria",
        ),
        pytest.param(
            GOOD.strip().replace('"a"', '"b"').replace('["x"]', '["x", ""]'),
            "cases.jsonl:2:78: E108 criteria[1] is empty",
            id="empty-criterion",
        ),  # the item itself
        pytest.param(
            GOOD.strip().replace('"a"', '"b"').replace('"p"', '" "'),
            "cases.jsonl:2:40: E105 prompt is empty",
            id="blank-prompt",
        ),
        pytest.param(
            GOOD.strip(), 'cases.jsonl:2:8: E106 duplicate id "a": line 1 has it too', id="duplicate-id"
        ),
    ],
)
def test_each_problem_is_reported_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, expected: str
) -> None:
    code, _, err = _validate(tmp_path, GOOD + line + "\n", capsys)
    assert code == exitcodes.FAILED
    assert err.splitlines()[0].endswith(expected)
    assert err.splitlines()[-1] == "1 problem in 2 cases."


def test_every_error_not_only_the_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = GOOD + '{"id": ""}\n' + "oops\n" + GOOD
    code, _, err = _validate(tmp_path, text, capsys)
    assert code == exitcodes.FAILED
    lines = [line.split("cases.jsonl", 1)[1] for line in err.splitlines()[:-1]]
    assert lines == [
        ":2:1: E103 missing fields: category, prompt, risk, criteria",
        ":2:8: E105 id is empty",
        ":3:1: E101 invalid JSON: Expecting value",
        ':4:8: E106 duplicate id "a": line 1 has it too',
    ]
    assert err.splitlines()[-1] == "4 problems in 4 cases."


def test_invalid_utf8_line_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _validate(tmp_path, GOOD.encode() + b'{"id": "caf\xe9"}\n', capsys)
    assert code == exitcodes.FAILED and "cases.jsonl:2:12: E110 invalid UTF-8 at byte 12 of the line" in err


def test_a_bom_is_refused_as_the_reference_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _validate(tmp_path, b"\xef\xbb\xbf" + GOOD.encode(), capsys)
    assert code == exitcodes.FAILED and "cases.jsonl:1:1: E110 byte-order mark" in err


def test_empty_catalog_is_not_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _validate(tmp_path, "\n", capsys)
    assert code == exitcodes.FAILED and "cases.jsonl:1:1: E113 the catalog has no cases" in err


def test_missing_catalog_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "nope.jsonl")]) == exitcodes.USAGE


@pytest.mark.corpus
@pytest.mark.parametrize("path", sorted((CORPUS / "jsonl").glob("*.jsonl")) or [None])
def test_corpus_catalogs(path: Path | None, capsys: pytest.CaptureFixture[str]) -> None:
    if path is None:
        pytest.skip("../shared/corpus is not here")
    code = main(["validate", str(path)])
    err = capsys.readouterr().err
    if "takoonit" in path.name:  # multi-turn cases carry "turns" instead of "prompt"
        assert code == exitcodes.FAILED and "missing fields: prompt" in err
    else:
        assert code == exitcodes.OK, err


# ---- validate and lint agree: one home for the catalog rules ----------------------

_ROWS = [
    GOOD.strip(),
    GOOD.strip().replace('"a"', '"b"'),
    GOOD.strip().replace('"low"', '"High"'),
    GOOD.strip().replace('"a"', '" "'),
    '{"id": "c", "id": "d", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]}',
    '{"id": "e", "category": "c", "prompt": "p\u2028q", "risk": "low", "criteria": ["x"]}',
    '{"id": "f", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x", ""]}',
    "[1, 2]",
    "{",
    "",
    "   ",
]


@pytest.mark.long
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    rows=st.lists(st.sampled_from(_ROWS), max_size=6),
    separators=st.lists(
        st.sampled_from(["\n", "\r\n", "\r", "\x0c", "\u2028", "\n\n"]), min_size=6, max_size=6
    ),
    bom=st.booleans(),
)
def test_validate_and_lint_agree(
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    rows: list[str],
    separators: list[str],
    bom: bool,
) -> None:
    text = "".join(row + separators[i] for i, row in enumerate(rows))
    path = tmp_path_factory.mktemp("agree") / "cases.jsonl"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    validated = main(["validate", str(path)])
    said = capsys.readouterr().err.splitlines()
    linted = main(["lint", "--select", "E", str(path)])
    found = capsys.readouterr().out.splitlines()

    def positions(lines: list[str]) -> list[tuple[str, ...]]:
        """(line, column, code) of each message on the file (fewer when a message has no column)."""
        return [
            tuple(line[len(str(path)) + 1 :].split(" ", 1)[0].split(":")[:2]) + (line.split(" ")[1],)
            for line in lines
            if line.startswith(str(path))
        ]

    assert (validated == 0) == (linted == 0)
    assert positions(said) == positions(found)


def test_validate_on_an_evals_json_says_so_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "evals.json"
    path.write_text('{\n  "skill_name": "s",\n  "evals": [\n    {"id": 1, "prompt": "p"}\n  ]\n}\n')
    assert main(["validate", str(path)]) == exitcodes.FAILED
    err = capsys.readouterr().err
    assert err == (
        f"{path} is not a five-field catalog (JSONL, one case per line): it looks like an evals.json; "
        f"use adhd-evals lint {path}, or adhd-evals import --format evals-json {path}\n"
    )


def test_a_valid_catalog_is_read_once_for_its_rules_and_its_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adhd_evals import catalog

    opened: list[Path] = []
    real = catalog.open_rows

    def counting(path: Path, what: str = "file") -> object:
        opened.append(path)
        return real(path, what)

    monkeypatch.setattr(catalog, "open_rows", counting)
    path = tmp_path / "cases.jsonl"
    bundled = '{"id": "b", "category": "c", "prompt": "p", "risk": "high", "criteria": ["Finds it and gives the fix."]}'
    path.write_bytes(GOOD.encode() + b"\n" + bundled.encode() + b"\n")  # a blank line; a row with a warning
    rows = catalog.load_valid(path)
    assert opened == [path]
    assert rows == [
        {"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["x"]},
        {
            "id": "b",
            "category": "c",
            "prompt": "p",
            "risk": "high",
            "criteria": ["Finds it and gives the fix."],
        },
    ]


@pytest.mark.parametrize(
    ("name", "text", "looks", "use"),
    [
        pytest.param(
            "task.yaml",
            "name: x\ntask: t\n",
            "a YAML case file",
            "adhd-evals lint {path}, or adhd-evals import --format yaml {path}",
            id="yaml",
        ),
        pytest.param(
            "checks.py", "CHECKS = {}\n", "a check module", "adhd-evals lint {path}", id="a check module"
        ),
    ],
)
def test_validate_on_another_kind_of_file_says_what_to_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, looks: str, use: str
) -> None:
    """One line naming what the file looks like and the command for it (a check module is
    not imported: there is no import to suggest), not one problem per line of it."""
    path = tmp_path / name
    path.write_text(text)
    assert main(["validate", str(path)]) == exitcodes.FAILED
    assert capsys.readouterr().err == (
        f"{path} is not a five-field catalog (JSONL, one case per line): it looks like {looks}; "
        f"use {use.format(path=path)}\n"
    )


@pytest.mark.parametrize(
    ("name", "text"),
    [
        pytest.param("evals.json", '{"evals": [\n', id="an evals.json that is not JSON"),
        pytest.param("notes.txt", "hi\n", id="a file of no known kind"),
    ],
)
def test_validate_on_a_file_it_cannot_place_reports_problems_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    """Not one JSON document, or of no kind lint knows: no guess at what it is; the problems
    by line say more (line 1 here, the only line, is not a JSON row)."""
    path = tmp_path / name
    path.write_text(text)
    assert main(["validate", str(path)]) == exitcodes.FAILED
    err = capsys.readouterr().err
    assert "five-field catalog" not in err
    assert f"{path}:1:" in err and "1 problem in 1 case." in err
