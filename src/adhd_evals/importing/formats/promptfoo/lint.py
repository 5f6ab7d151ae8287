"""lint's warnings on a promptfoo config: what promptfoo reads, but likely not as meant."""

from __future__ import annotations

import re
from pathlib import Path

from ...model import Refusal
from .._common import Locator
from .cases import _mapping
from .config import _load_structured

ASSERT_UNDER_VARS = "PromptfooAssertUnderVars"


def _step(value: object, step: str | int) -> object:
    if isinstance(value, dict) and isinstance(step, str):
        return value.get(step)
    if isinstance(value, list) and isinstance(step, int) and step < len(value):
        return value[step]
    return None


def lint_warnings(source: Path) -> list[tuple[int, int, str, str]]:
    """(line, column, code, message) of what promptfoo reads but likely not as meant: an `assert`
    list indented under `vars` is a var to promptfoo, and nothing is checked."""
    try:
        data, locator = _load_structured(source, str(source))
    except Refusal:
        return []  # the import's refusal says it
    if not isinstance(data, dict):
        return []
    found = _config_warnings(data, locator)
    places: list[tuple[str | int, ...]] = [("defaultTest",)]
    tests = data.get("tests")
    if isinstance(tests, list):
        places += [("tests", index) for index, item in enumerate(tests) if isinstance(item, dict)]
    for at in places:
        test: object = data
        for step in at:
            test = _step(test, step)
        variables = test.get("vars") if isinstance(test, dict) else None
        if isinstance(variables, dict) and "assert" in variables:
            line, column = locator((*at, "vars", "assert"))
            found.append(
                (
                    line or 1,
                    column or 1,
                    ASSERT_UNDER_VARS,
                    f"{'.'.join(str(s) for s in at)}: an assert list under vars is a var to promptfoo; "
                    "unindent it to sit beside vars, or nothing is checked",
                )
            )
    return found


TOP_LEVEL_ASSERT = "PromptfooTopLevelAssert"


NO_TESTS_CODE = "PromptfooNoTests"


UNSET_VAR = "PromptfooVarNotSet"


def _config_warnings(data: dict[str, object], locator: Locator) -> list[tuple[int, int, str, str]]:
    """What the config says that promptfoo reads otherwise: a top-level `assert` (promptfoo
    checks nothing with it, and passes), no tests (each prompt runs once, with no vars), and a
    variable of an inline prompt that neither defaultTest nor any inline test sets."""
    found = []
    if "assert" in data:
        line, column = locator(("assert",))
        message = (
            "a top-level assert checks nothing in promptfoo: move it under defaultTest (every test) or a test"
        )
        found.append((line or 1, column or 1, TOP_LEVEL_ASSERT, message))
    tests = data.get("tests")
    if tests is None or tests == []:
        message = (
            "no tests: promptfoo runs each prompt once with no vars and no assertions (one case per prompt)"
        )
        found.append((1, 1, NO_TESTS_CODE, message))
    found += _unset_vars(data, tests, locator)
    return found


def _unset_vars(data: dict[str, object], tests: object, locator: Locator) -> list[tuple[int, int, str, str]]:
    """Variables `{{ name }}` of inline prompts (without `{%` blocks, whose loops bind names) that
    no test sets, when every test is written in the config (files and CSVs are not read here)."""
    if not isinstance(tests, list) or not all(isinstance(t, dict) for t in tests):
        return []
    tables = [_mapping(t.get("vars")) for t in [_mapping(data.get("defaultTest")), *tests]]
    prompts = data.get("prompts")
    listed = prompts if isinstance(prompts, list) else [prompts]
    found = []
    for index, prompt in enumerate(listed):
        if not isinstance(prompt, str) or "{%" in prompt or prompt.startswith("file://"):
            continue
        for name in dict.fromkeys(_VARIABLE.findall(prompt)):
            if not any(name in table for table in tables):
                at: tuple[str | int, ...] = ("prompts", index) if isinstance(prompts, list) else ("prompts",)
                line, column = locator(at)
                message = f"prompts: {{{{ {name} }}}} is set by no test, so promptfoo renders it empty"
                found.append((line or 1, column or 1, UNSET_VAR, message))
    return found


_VARIABLE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
