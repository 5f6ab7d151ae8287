"""The duplicate-id rule's memory: hashes while ids are distinct, lines found again on a repeat."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adhd_evals.catalogrules.duplicate_id import SeenIds
from adhd_evals.lint import lint_paths


def _row(case_id: object) -> str:
    return json.dumps(
        {"id": case_id, "category": "c", "prompt": "p", "risk": "low", "criteria": ["Answers."]}
    )


def test_a_repeat_names_the_first_line_after_blank_broken_and_keyless_lines(tmp_path: Path) -> None:
    lines = [
        _row("a"),  # 1
        "",  # 2: blank
        _row("b"),  # 3
        "{not json",  # 4
        json.dumps({"category": "no id"}),  # 5
        _row("c"),  # 6
        _row("b"),  # 7: repeats line 3
        _row("a"),  # 8: repeats line 1
        _row("b"),  # 9: repeats line 3 again
    ]
    catalog = tmp_path / "cases.jsonl"
    catalog.write_text("\n".join(lines) + "\n")
    found = [(p.line, p.message) for p in lint_paths([catalog]).problems if p.code == "E106"]
    assert found == [
        (7, 'duplicate id "b": line 3 has it too'),
        (8, 'duplicate id "a": line 1 has it too'),
        (9, 'duplicate id "b": line 3 has it too'),
    ]


def test_only_hashes_are_kept_while_ids_are_distinct(tmp_path: Path) -> None:
    reads: list[int] = []

    def reread() -> list[tuple[int, str]]:
        reads.append(1)
        return [(n, f"id-{n}") for n in range(1, 5001)]

    seen = SeenIds(reread, expected=10)  # far too small: the table grows
    assert all(seen.add(f"id-{n}", n) for n in range(1, 5001))
    assert seen.exact is None and reads == []
    assert seen.first("id-9999", 5001) is None and reads == []  # absent: no reread
    assert seen.add("id-17", 5001) is False  # a repeat is never recorded as new
    assert seen.first("id-17", 5001) == 17 and reads == [1]
    assert seen.exact is not None and len(seen.exact) == 5000
    assert seen.add("id-5001", 5001) is True and seen.first("id-5001", 5002) == 5001


def test_without_a_way_back_the_ids_are_exact_from_the_start() -> None:
    seen = SeenIds()
    assert seen.add("x", 4) and not seen.add("x", 9)
    assert seen.first("x", 10) == 4 and seen.exact == {"x": 4}


@pytest.mark.long
@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d", "", " ", 7]), max_size=40))
def test_every_repeat_is_found_with_its_first_line(
    tmp_path_factory: pytest.TempPathFactory, ids: list[object]
) -> None:
    folder = tmp_path_factory.mktemp("ids")
    catalog = folder / "cases.jsonl"
    catalog.write_text("".join(_row(case_id) + "\n" for case_id in ids))
    first: dict[str, int] = {}
    expected = []
    for number, case_id in enumerate(ids, start=1):  # the rule, restated: non-empty string ids
        if not isinstance(case_id, str) or not case_id:
            continue
        if case_id in first:
            expected.append((number, f'duplicate id "{case_id}": line {first[case_id]} has it too'))
        else:
            first[case_id] = number
    found = [(p.line, p.message) for p in lint_paths([catalog]).problems if p.code == "E106"]
    assert found == expected
