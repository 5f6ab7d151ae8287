"""One-line javascript assertions: the safe subset becomes checks, everything else stays a
placeholder. Expected checks are read off the table in jssubset.py; promptfoo's own verdicts
are compared on the fixture javascript-subset (test_promptfoo_equivalence)."""

from __future__ import annotations

import pytest

from adhd_evals.importing.formats.promptfoo.asserts import map_assertion
from adhd_evals.importing.formats.promptfoo.jssubset import Converted, javascript_check
from adhd_evals.importing.model import CheckKind

EXACT = (("ignore_case", False),)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("output.includes('x')", Converted(CheckKind.CONTAINS, ("x",), EXACT), id="includes"),
        pytest.param(
            '!output.includes("x")', Converted(CheckKind.CONTAINS_NONE, (["x"],), EXACT), id="not-includes"
        ),
        pytest.param(
            "output.startsWith('Hi')",
            Converted(CheckKind.STARTS_WITH, ("Hi",), (("ignore_case", False), ("strip", False))),
            id="starts",
        ),
        pytest.param(
            "! output.startsWith('Hi');",
            Converted(CheckKind.NOT_STARTS_WITH, ("Hi",), (("ignore_case", False), ("strip", False))),
            id="not-starts",
        ),
        pytest.param("output.endsWith('a.b')", Converted(CheckKind.REGEX, (r"a\.b\Z",), EXACT), id="ends"),
        pytest.param(
            "!output.endsWith('x')", Converted(CheckKind.NOT_REGEX, (r"x\Z",), EXACT), id="not-ends"
        ),
        pytest.param("/a+/.test(output)", Converted(CheckKind.REGEX, ("a+",), EXACT), id="test"),
        pytest.param("!/a$/.test(output)\n", Converted(CheckKind.NOT_REGEX, (r"a\Z",), EXACT), id="not-test"),
        pytest.param(
            r"output.includes('a\'b\\c\n\t\r\u00e9')",
            Converted(CheckKind.CONTAINS, ("a'b\\c\n\t\ré",), EXACT),
            id="escapes",
        ),
    ],
)
def test_the_subset(source: str, expected: Converted) -> None:
    assert javascript_check(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("output.length > 3", id="utf-16-length"),
        pytest.param("output.toLowerCase().includes('x')", id="lowercase"),
        pytest.param("output.includes('a') && output.includes('b')", id="and"),
        pytest.param("return output.includes('a')", id="return: promptfoo runs return return"),
        pytest.param("\noutput.includes('a')", id="a function body"),
        pytest.param("output.includes('')", id="empty needle"),
        pytest.param(r"output.includes('\x41')", id="hex escape"),
        pytest.param(r"output.includes('\ud800')", id="lone surrogate"),
        pytest.param("/(?<n>a)/.test(output)", id="pattern with no Python twin"),
    ],
)
def test_outside_the_subset(source: str) -> None:
    assert javascript_check(source) is None


def test_threshold_or_config_keeps_it_a_placeholder() -> None:
    """A threshold or a config can change promptfoo's verdict: the assertion stays as written."""
    for extra in ({"threshold": 0.5}, {"config": {"k": 1}}):
        mapped = map_assertion(
            {"type": "javascript", "value": "output.includes('x')", **extra}, lambda v: v, "a"
        )
        assert mapped.checks[0].kind is CheckKind.UNWRITTEN
    mapped = map_assertion({"type": "javascript", "value": "output.includes('x')"}, lambda v: v, "a")
    assert mapped.checks[0].kind is CheckKind.CONTAINS
    assert mapped.checks[0].criterion == "javascript: output.includes('x')"
