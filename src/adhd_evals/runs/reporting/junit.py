"""JUnit XML for `check --junit`: CI dashboards show a check as a test.

One test suite per case, one test case per check run (per response row):
`failure` for fail, `error` for error, and `failure type="unwritten"` for a
placeholder (`type="orphan"` for a kept check whose case or criterion left the
catalog), so neither is green on a dashboard. Totals live on each
suite (Ant's schema allows no attribute on `testsuites`); a check's time is not
measured, so every `time` is 0. Text from cases
and responses is escaped by the XML writer; characters XML 1.0 cannot hold
are written as their Python escapes.
"""

from __future__ import annotations

import re
import socket
import xml.etree.ElementTree as ET
from collections import defaultdict
from datetime import datetime

from ..judging.check import CheckResult

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub(lambda m: repr(m.group())[1:-1], text)


def junit(results: list[CheckResult], *, when: datetime | None = None, host: str | None = None) -> str:
    """The results as JUnit XML valid against both Ant's `JUnit.xsd` (the strict one: no
    attributes on `testsuites`; every suite with its timestamp, host, time, package, id,
    `properties`, `system-out` and `system-err`) and Jenkins' xUnit `junit-10.xsd`."""
    by_case: dict[str, list[CheckResult]] = defaultdict(list)
    for result in results:
        by_case[result.case_id].append(result)
    stamp = (when or datetime.now()).strftime("%Y-%m-%dT%H:%M:%S")  # Ant: no time zone
    hostname = host or socket.gethostname() or "localhost"
    root = ET.Element("testsuites")
    for index, (case_id, found) in enumerate(sorted(by_case.items())):
        _suite(root, index, case_id, found, stamp, hostname)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _suite(
    root: ET.Element, index: int, case_id: str, found: list[CheckResult], stamp: str, host: str
) -> None:
    counts = {s: sum(r.status == s for r in found) for s in ("fail", "error", "unwritten", "orphan")}
    failures = counts["fail"] + counts["unwritten"] + counts["orphan"]
    name = _xml_text(case_id)
    suite = ET.SubElement(
        root,
        "testsuite",
        name=name,
        package=name,
        id=str(index),
        timestamp=stamp,
        hostname=host,
        tests=str(len(found)),
        time="0",
        failures=str(failures),
        errors=str(counts["error"]),
    )
    ET.SubElement(suite, "properties")
    for result in found:
        _testcase(suite, case_id, result)
    ET.SubElement(suite, "system-out")
    ET.SubElement(suite, "system-err")


def _testcase(suite: ET.Element, case_id: str, result: CheckResult) -> None:
    name = f"{result.criterion} [{result.condition} trial {result.trial}, {result.runner}]"
    test = ET.SubElement(suite, "testcase", classname=_xml_text(case_id), name=_xml_text(name), time="0")
    if result.status == "fail":
        ET.SubElement(test, "failure", type="fail", message=_xml_text(f"{result.check} returned False"))
    elif result.status == "unwritten":
        ET.SubElement(
            test,
            "failure",
            type="unwritten",
            message=_xml_text(f"{result.check} is an unwritten placeholder"),
        )
    elif result.status == "orphan":
        ET.SubElement(
            test,
            "failure",
            type="orphan",
            message=_xml_text(f"{result.check}: its case or criterion left the catalog"),
        )
    elif result.status == "error":
        ET.SubElement(test, "error", type="error", message=_xml_text(result.error or "error"))
