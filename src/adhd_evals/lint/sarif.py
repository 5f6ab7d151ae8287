"""lint's SARIF 2.1.0 output (code-scanning dashboards) and its Markdown step summary.

One rule per lint code, described by the rule module's docstring; refusal
codes (`Case...`, `DialectInvalid`) are rules too, described once here. Each
result has its file and a region (1-based line and column, as lint reports).
"""

from __future__ import annotations

import json
from typing import TypedDict
from urllib.parse import quote

from ..problem import Problem
from ..text import printable
from .rules import RULES, summary

SCHEMA = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"
_REFUSALS = "a case file the import would refuse, in the import's words (the code names the refusal)"


def artifact_uri(path: str) -> str:
    """The path as a URI reference (SARIF's `artifactLocation.uri`): every byte outside the
    unreserved set but `/` percent-encoded, so a space, `#`, `%`, `?`, a `:` that would read as
    a scheme, or a non-UTF-8 name (kept as its bytes) cannot change what the reference means."""
    return quote(path, safe="/", encoding="utf-8", errors="surrogateescape")


class _Text(TypedDict):
    text: str


class _Level(TypedDict):
    level: str


class _RuleHead(TypedDict):
    id: str
    name: str
    shortDescription: _Text  # SARIF spells its keys in camelCase


class SarifRule(_RuleHead, total=False):
    """A `reportingDescriptor` as lint writes one: a refusal code carries only the head."""

    fullDescription: _Text
    defaultConfiguration: _Level


def _rule(code: str) -> SarifRule:
    rule = RULES.get(code)
    if rule is None:
        return {"id": code, "name": code, "shortDescription": {"text": _REFUSALS}}
    doc = (rule.__doc__ or "").strip()
    return {
        "id": code,
        "name": rule.NAME,
        "shortDescription": {"text": summary(rule)},
        "fullDescription": {"text": doc},
        "defaultConfiguration": {"level": "error" if rule.SEVERITY == "error" else "warning"},
    }


def sarif(problems: list[Problem], version: str) -> str:
    codes = sorted({p.code for p in problems} | set(RULES))
    index = {code: i for i, code in enumerate(codes)}
    results = [
        {
            "ruleId": p.code,
            "ruleIndex": index[p.code],
            "level": "error" if p.severity == "error" else "warning",
            "message": {"text": printable(p.message)},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": artifact_uri(p.path)},
                        "region": {"startLine": max(p.line, 1), "startColumn": max(p.column, 1)},
                    }
                }
            ],
        }
        for p in problems
    ]
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "adhd-evals lint",
                        "version": version,
                        "informationUri": "https://example.com/adhd-evals",
                        "rules": [_rule(code) for code in codes],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False)


def step_summary(problems: list[Problem], headline: str) -> str:
    """Every problem as a Markdown table: GitHub shows only the first annotations of a step."""
    lines = ["## adhd-evals lint", "", headline, ""]
    if problems:
        lines += ["| file | line | column | code | message |", "| --- | ---: | ---: | --- | --- |"]
        for p in problems:
            cells = [printable(p.path), str(p.line), str(p.column), p.code, printable(p.message)]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
