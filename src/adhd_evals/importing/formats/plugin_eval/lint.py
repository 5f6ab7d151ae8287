"""What plugin eval loads but likely not as its author meant: lint's warnings on a case.

- PluginEvalIndicatorsOnly: every grader is one a two-arm run leaves unscored (`tool_used`
  of `Skill`, `arm: with-only`); with none left, plugin eval scores them all, so the case's
  Δ measures whether the plugin was used, not what it achieved.
- PluginEvalEmptyMatch: a regex that matches the empty string matches every text: under
  `contains` it always passes, under `not_contains` it can never pass, and under `count:N`
  its count is the text's length plus one.
- PluginEvalUndocumentedKey: a case.yaml key plugin eval does not document (kept as a note).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from ....problem import WARNING, Problem
from ...model import Refusal
from .._common import ReadOptions
from ..promptfoo.jsregex import translate
from . import UNDOCUMENTED, Grader, graders_of
from .casefiles import Source, _yaml

INDICATORS_ONLY = "PluginEvalIndicatorsOnly"
EMPTY_MATCH = "PluginEvalEmptyMatch"
UNDOCUMENTED_KEY = "PluginEvalUndocumentedKey"


def lint_warnings(path: Path) -> list[Problem]:
    """The warnings on the case `path` (its case.yaml or prompt.md) belongs to; none when the
    case is refused (the refusal says what is wrong)."""
    folder = path.parent
    try:
        case_yaml = _yaml(folder / "case.yaml", "case.yaml", "")
        graders = graders_of(case_yaml, folder, "", "")
        from . import read_case

        read_case(folder, folder.name, "", ReadOptions(risk="medium"), folder.parent)
    except Refusal:
        return []
    found = _indicators_only(graders, path) + [p for g in graders for p in _empty_match(g, folder)]
    return found + (_undocumented(case_yaml, folder) if case_yaml is not None else [])


def is_indicator(grader: Mapping[str, object]) -> bool:
    """Whether a two-arm run leaves the grader unscored (mock_calls graders aside: whether every
    mocked server is the plugin's is not in the case's files)."""
    if grader.get("arm") == "both":
        return False
    return grader.get("arm") == "with-only" or (
        grader["type"] == "tool_used" and grader.get("tool") == "Skill"
    )


def _indicators_only(graders: list[Grader], path: Path) -> list[Problem]:
    if not graders or not all(is_indicator(g.grader) for g in graders):
        return []
    names = ", ".join(str(g.grader["name"]) for g in graders)
    message = (
        f"every grader ({names}) is an indicator a two-arm run leaves unscored; with none left "
        "plugin eval scores them all, so this case's Δ measures whether the plugin was used, not "
        "what it achieved: add a grader on the outcome"
    )
    return [Problem(1, 1, INDICATORS_ONLY, message, WARNING, str(path))]


def _empty_match(found: Grader, folder: Path) -> list[Problem]:
    grader = found.grader
    if (
        grader["type"] != "regex"
        or re.search(translate(grader["pattern"], grader.get("flags", "")), "") is None
    ):
        return []
    match = str(grader.get("match", "contains"))
    effect = {
        "contains": "it always passes",
        "not_contains": "it can never pass",
    }.get(match, "its count is the text's length plus one")
    line, column = _position(found.source, (*found.at, "pattern") if found.at else ())
    message = (
        f"grader {grader['name']}: the pattern matches the empty string, so under match: {match} {effect}"
    )
    return [Problem(line, column, EMPTY_MATCH, message, WARNING, _file(found.source, folder))]


def _undocumented(case_yaml: Source, folder: Path) -> list[Problem]:
    from . import CASE_KEYS, CONTEXT, EXECUTION

    places: list[tuple[str, ...]] = []  # a key as written: YAML may read `1:` as a number
    for key, value in case_yaml.data.items():
        if key in ("execution", "context") and isinstance(value, dict):
            known = EXECUTION if key == "execution" else CONTEXT
            places += [(key, str(k)) for k in value if k not in known]
        elif key not in (*CASE_KEYS, "graders", "execution", "context"):
            places.append((str(key),))
    found = []
    for at in places:
        line, column = _position(case_yaml, at)
        message = f"{'.'.join(at)}: {UNDOCUMENTED}"
        found.append(Problem(line, column, UNDOCUMENTED_KEY, message, WARNING, str(folder / "case.yaml")))
    return found


def _position(source: Source, at: tuple[str | int, ...]) -> tuple[int, int]:
    if source.refuse.locator is None or not at:
        return 1, 1
    line, column = source.refuse.locator(at)
    return line or 1, column or 1


def _file(source: Source, folder: Path) -> str:
    return str(folder / source.refuse.display)
