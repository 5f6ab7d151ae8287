"""check --junit validates against both JUnit schemas dashboards use: Apache Ant's JUnit.xsd
(the strict one) and Jenkins' xUnit junit-10.xsd (see tests/schemas/README.md)."""

from __future__ import annotations

from datetime import datetime

import pytest

from adhd_evals.runs.judging.check import CheckResult
from adhd_evals.runs.reporting.junit import junit
from helpers import ROOT

etree = pytest.importorskip("lxml.etree", reason="lxml validates XML Schemas (the test extra installs it)")

SCHEMAS = ROOT / "tests" / "schemas"


def _results() -> list[CheckResult]:
    return [
        CheckResult("rel-1", 1, "baseline", "stub", "Names --legacy", "names_legacy", "pass"),
        CheckResult("rel-1", 1, "candidate", "stub", "Names --legacy", "names_legacy", "fail"),
        CheckResult("rel-2", 1, "baseline", "stub", "Reads like <b>&</b>\x01", "reads", "unwritten"),
        CheckResult("rel-2", 2, "baseline", "stub", "Valid JSON", "valid", "error", "ValueError: bad"),
        CheckResult("rel 3", 1, "baseline", "stub", "x", "x", "pass"),
    ]


@pytest.mark.parametrize("schema", ["junit-ant.xsd", "junit-jenkins-10.xsd"])
def test_junit_is_valid_against_the_schema(schema: str) -> None:
    validator = etree.XMLSchema(etree.parse(str(SCHEMAS / schema)))
    document = etree.fromstring(junit(_results(), when=datetime(2026, 12, 1, 9, 30, 5), host="ci").encode())
    assert validator.validate(document), validator.error_log


def test_suite_totals_and_stamp_worked_by_hand() -> None:
    """ "rel 3" sorts first (a space before a dash): id 0, 1 test. rel-1: 2 tests, 1 failure; rel-2: 2 tests, 1 failure (unwritten) and 1 error; suites
    the timestamp as Ant wants it, without a zone."""
    document = etree.fromstring(junit(_results(), when=datetime(2026, 12, 1, 9, 30, 5), host="ci").encode())
    suites = [
        (s.get("id"), s.get("name"), s.get("tests"), s.get("failures"), s.get("errors"), s.get("timestamp"))
        for s in document.findall("testsuite")
    ]
    assert suites == [
        ("0", "rel 3", "1", "0", "0", "2026-12-01T09:30:05"),
        ("1", "rel-1", "2", "1", "0", "2026-12-01T09:30:05"),
        ("2", "rel-2", "2", "1", "1", "2026-12-01T09:30:05"),
    ]
    assert document.attrib == {}
