"""The catalog cases of one promptfoo test: vars combined and loaded, the prompt rendered, the asserts mapped."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal, NamedTuple, TypedDict, cast

from ...model import RISKS, Case, Check, Note, Refusal, RefusalCode, describe
from .._common import (
    NO_TESTS,
    jsonable,
    no_criteria_placeholder,
)
from .asserts import map_assertion
from .config import (
    BINARY_SUFFIXES,
    CheckedTest,
    Config,
    DefaultTest,
    Prompt,
    Test,
    TestOptions,
    _reference,
    _refuse_code,
    _text,
)
from .jsvalues import JSDict, JSList, js_json, js_parse_json, js_trim, js_value
from .render import TemplateProblem, auto_wrap, render, render_in_object, resolve_variables
from .yamljs import load_yaml_text

TEST_KEYS = ("vars", "assert", "description", "threshold", "options", "metadata")


def _merged(test: Test, default: DefaultTest) -> dict[str, object]:
    """The test with defaultTest merged in, as promptfoo's evaluator merges it."""
    data = test.data
    merged = dict(data)
    merged["vars"] = JSDict({**_mapping(default.get("vars")), **_mapping(data.get("vars"))})
    given = data.get("assert")
    # an assert that is not a list stays as written, for the refusal promptfoo's own stop calls for
    merged["assert"] = (
        JSList([*(default.get("assert") or []), *(given or [])])
        if given is None or isinstance(given, list)
        else given
    )
    if data.get("threshold") is None and default.get("threshold") is not None:
        merged["threshold"] = default["threshold"]
    for key in ("options", "metadata"):
        both = {**_mapping(default.get(key)), **_mapping(data.get(key))}
        if both:
            merged[key] = JSDict(both)
    return merged


def _mapping(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _options(data: CheckedTest) -> TestOptions:
    # a mapping (or none) with any values: each key the reader acts on is narrowed where read
    return cast(TestOptions, _mapping(data.get("options")))


class _Where(NamedTuple):
    test: Test

    def refuse(
        self,
        field: str,
        expected: str,
        actual: str,
        *,
        at: tuple[str | int, ...] = (),
        code: RefusalCode | None = None,
        hint: str | None = None,
    ) -> Refusal:
        return self.test.source.refuse(
            case=self.test.label,
            field_path=field,
            at=(*self.test.at, *at) if at else self.test.at,
            expected=expected,
            actual=actual,
            code=code,
            hint=hint,
        )


class Shared(NamedTuple):
    """What every test of one config is read with: one object, not six arguments threaded."""

    config: Config
    default: DefaultTest  # merged into each test
    prompts: list[Prompt]
    env: dict[str, object]
    category: str
    risk: str


def _cases(shared: Shared, test: Test, test_id: str) -> list[Case]:
    config, prompts, env = shared.config, shared.prompts, shared.env
    where = _Where(test)
    data = _refuse_unreadable_test(where, _merged(test, shared.default))
    test_id, category, risk = _exported(data, test_id, shared.category, shared.risk, config)
    options = _options(data)
    combinations = _combinations(where, data["vars"], options, config)
    cases = []
    for number, variables in enumerate(combinations, start=1):
        loaded = _load_vars(where, variables, config)
        for prompt in prompts:
            case_id = (
                test_id
                + (f"--{prompt.key}" if len(prompts) > 1 else "")
                + (f"--v{number}" if len(combinations) > 1 else "")
            )
            text = _render_prompt(where, prompt, dict(loaded), options, env)
            checks, notes = _checks(where, data, loaded, env)
            paired = len(prompts) > 1 or len(combinations) > 1
            notes += _test_notes(test, data, prompt, paired, test_id)
            cases.append(
                Case(
                    case_id,
                    category,
                    text,
                    risk,
                    tuple(checks) or (no_criteria_placeholder(),),
                    tuple(notes),
                    origin=f"{test.source.display}, {test.label}",
                    had_no_criteria=not checks,
                )
            )
    return cases


class _ExportedMetadata(TypedDict, total=False):
    """metadata.adhd_evals as export (importing/export.py) writes it, read back as written."""

    id: object
    category: object
    risk: object


def _exported(
    data: CheckedTest, test_id: str, category: str, risk: str, config: Config
) -> tuple[str, str, str]:
    """What `adhd-evals export --to promptfoo` keeps in metadata.adhd_evals: the case's own id,
    category (unless --category was given) and risk."""
    # a mapping (or none) with any values, which is all _ExportedMetadata asks: narrowed below
    kept = cast(_ExportedMetadata, _mapping(_mapping(data.get("metadata")).get("adhd_evals")))
    kept_id, kept_category, kept_risk = kept.get("id"), kept.get("category"), kept.get("risk")
    if isinstance(kept_id, str) and kept_id.strip():
        test_id = kept_id
    if isinstance(kept_category, str) and kept_category.strip() and not config.category_given:
        category = kept_category
    if isinstance(kept_risk, str) and kept_risk in RISKS:
        risk = kept_risk
    return test_id, category, risk


def _refuse_unreadable_test(where: _Where, data: dict[str, object]) -> CheckedTest:
    """The merged test, or the refusal of what promptfoo stops at (or would run as code)."""
    if not isinstance(data["assert"], list):
        raise where.refuse(
            "assert",
            "a list of assertions",
            describe(data["assert"]),
            at=("assert",),
            hint="promptfoo stops here: testCase.assert is not an array",
        )
    options = _mapping(data.get("options"))
    if "transformVars" in options:
        raise where.refuse(
            "options.transformVars",
            "vars written down",
            "a transformVars function",
            code=RefusalCode.PROMPTFOO_CODE,
        )
    vars_given = where.test.data.get("vars")
    if vars_given is not None and not isinstance(vars_given, dict):
        raise where.refuse(
            "vars",
            "a mapping of names to values",
            describe(vars_given),
            at=("vars",),
            hint="vars read from other files (a path or list of paths) are not imported",
        )
    if not len(where.test.data) and where.test.label != NO_TESTS:
        raise where.refuse(
            "(test)",
            "one of assert, vars, options, metadata, provider, providerOutput, threshold",
            "an empty test",
            hint="promptfoo stops here too",
        )
    # checked: assert is a list (above), vars the JSDict _merged made; the rest stays as written
    return cast(CheckedTest, data)


def _combinations(
    where: _Where, variables: dict[str, object], options: TestOptions, config: Config
) -> list[dict[str, object]]:
    """generateVarCombinations: an array var whose first item is a string runs once per item."""
    if options.get("disableVarExpansion"):
        return [variables]
    combinations: list[dict[str, object]] = [{}]
    for key, value in variables.items():
        if isinstance(value, str) and value.startswith("file://"):
            values: list[object] = [value]
        elif isinstance(value, list) and value and isinstance(value[0], str):
            values = list(value)
        else:
            values = [value]
        combinations = [{**c, key: v} for c in combinations for v in values]
    return combinations


def _load_vars(where: _Where, variables: dict[str, object], config: Config) -> dict[str, object]:
    """renderPrompt's first step: a file:// var becomes the file's text, trimmed (YAML: its JSON)."""
    loaded = dict(variables)
    for key, value in variables.items():
        if not (isinstance(value, str) and value.startswith("file://")):
            continue
        field = f"vars.{key}"
        _refuse_code(
            where.test.source.refuse,
            value,
            what="a var",
            field=field,
            at=(*where.test.at, "vars", key),
            case=where.test.label,
        )
        suffix = Path(value).suffix.lower()
        if suffix in BINARY_SUFFIXES:
            raise where.refuse(
                field,
                "a var promptfoo reads as text",
                f"{value!r} (promptfoo sends it as base64 data)",
                code=RefusalCode.PROMPTFOO_REFERENCE,
            )
        sources = _reference(
            config,
            where.test.source.refuse,
            value,
            what="a var file",
            field=field,
            at=(*where.test.at, "vars", key),
            case=where.test.label,
        )
        if len(sources) > 1:
            raise where.refuse(
                field,
                "a var naming one file",
                f"{value!r} matches {len(sources)} files",
                code=RefusalCode.PROMPTFOO_REFERENCE,
            )
        text = _text(sources[0])
        if suffix in (".yaml", ".yml"):
            data, _ = load_yaml_text(text, sources[0].display)
            loaded[key] = js_json(js_value(jsonable(data))) or ""
        else:
            loaded[key] = js_trim(text)
    return loaded


def _render_prompt(
    where: _Where,
    prompt: Prompt,
    variables: dict[str, object],
    options: TestOptions,
    env: Mapping[str, object],
) -> str:
    prefix, suffix = options.get("prefix") or "", options.get("suffix") or ""
    raw = (
        f"{prefix}{prompt.raw}{suffix}" if isinstance(prefix, str) and isinstance(suffix, str) else prompt.raw
    )
    for key, value in variables.items():
        if isinstance(value, str) and value.endswith("\n"):
            variables[key] = value[:-1]
    resolve_variables(variables)
    try:
        try:
            parsed = js_parse_json(raw)
        except ValueError:
            parsed = _NOT_JSON
        if parsed is not _NOT_JSON:
            text = js_json(render_in_object(parsed, variables, env), 2)
        else:
            rendered = {
                k: render(auto_wrap(v), variables, env) if isinstance(v, str) else v
                for k, v in variables.items()
            }
            text = render(auto_wrap(raw), rendered, env)
    except TemplateProblem as problem:
        raise where.refuse(
            prompt.field,
            "a template rendered the same by Nunjucks and adhd-evals",
            problem.construct,
            code=RefusalCode.PROMPTFOO_TEMPLATE,
        ) from None
    if text is None or not text.strip():
        raise where.refuse("prompt", "a prompt that renders to text", "nothing (an empty prompt)")
    return text


_NOT_JSON = object()


def _checks(
    where: _Where, data: CheckedTest, variables: Mapping[str, object], env: Mapping[str, object]
) -> tuple[list[Check], list[Note]]:
    checks: list[Check] = []
    notes: list[Note] = []
    field = "assert"

    def rendered(value: object) -> object:
        try:
            if isinstance(value, str):
                return render(value, variables, env)
            if isinstance(value, list):
                return JSList(render(v, variables, env) if isinstance(v, str) else v for v in value)
        except TemplateProblem as problem:
            raise where.refuse(
                field,
                "an assertion value rendered the same by Nunjucks and adhd-evals",
                problem.construct,
                code=RefusalCode.PROMPTFOO_TEMPLATE,
            ) from None
        return value

    for index, assertion in enumerate(data["assert"]):
        field = f"assert[{index}]"
        mapped = map_assertion(assertion, rendered, field)
        checks += mapped.checks
        notes += mapped.notes
    return checks, notes


_NOTED: tuple[Literal["threshold"], Literal["options"], Literal["metadata"]] = (
    "threshold",
    "options",
    "metadata",
)


def _test_notes(test: Test, data: CheckedTest, prompt: Prompt, paired: bool, test_id: str) -> list[Note]:
    """A test's keys as notes on each of its cases; `paired`: the test gives several cases."""
    notes = []
    if "description" in data:
        notes.append(Note("description", data["description"]))
    if paired:
        notes.append(Note("pair", test_id, f"one case of {test.label} per prompt (this one: {prompt.label})"))
    if data.get("vars"):
        notes.append(Note("vars", data["vars"]))
    if "assert" in data["vars"]:  # _merged made vars an object for every test
        notes.append(
            Note(
                "vars.assert",
                data["vars"]["assert"],
                "an assert list indented under vars: promptfoo reads it as a var, not as assertions",
            )
        )
    for key in _NOTED:
        if key in data:
            notes.append(
                Note(
                    key,
                    data[key],
                    "promptfoo's pass mark for the test; not honoured by adhd-evals' gate"
                    if key == "threshold"
                    else "",
                )
            )
    for other, value in data.items():
        if other not in (*TEST_KEYS, "vars"):
            notes.append(Note(other, value))
    return notes
