"""JUnit XML for `check --junit`: CI dashboards show a check as a test.

One test suite per case, one test case per check run (per response row):
`failure` for fail, `error` for error, and `failure type="unwritten"` for a
placeholder, so an unwritten check is red on a dashboard too. Text from cases
and responses is escaped by the XML writer; characters XML 1.0 cannot hold
are written as their Python escapes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import defaultdict

from .check import CheckResult

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub(lambda m: repr(m.group())[1:-1], text)


def junit(results: list[CheckResult]) -> str:
    by_case: dict[str, list[CheckResult]] = defaultdict(list)
    for result in results:
        by_case[result.case_id].append(result)
    root = ET.Element("testsuites", name="adhd-evals check")
    for case_id, found in sorted(by_case.items()):
        counts = {s: sum(r.status == s for r in found) for s in ("fail", "error", "unwritten")}
        suite = ET.SubElement(root, "testsuite", name=_xml_text(case_id), tests=str(len(found)),
                              failures=str(counts["fail"] + counts["unwritten"]), errors=str(counts["error"]))  # fmt: skip
        for result in found:
            name = f"{result.criterion} [{result.condition} trial {result.trial}, {result.runner}]"
            test = ET.SubElement(suite, "testcase", classname=_xml_text(case_id), name=_xml_text(name))
            if result.status == "fail":
                ET.SubElement(
                    test, "failure", type="fail", message=_xml_text(f"{result.check} returned False")
                )
            elif result.status == "unwritten":
                ET.SubElement(test, "failure", type="unwritten",
                              message=_xml_text(f"{result.check} is an unwritten placeholder"))  # fmt: skip
            elif result.status == "error":
                ET.SubElement(test, "error", type="error", message=_xml_text(result.error or "error"))
    total = len(results)
    root.set("tests", str(total))
    root.set("failures", str(sum(r.status in ("fail", "unwritten") for r in results)))
    root.set("errors", str(sum(r.status == "error" for r in results)))
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
