"""evalflow `dataset.json`, validated by evalflow's own rules.

Rules (evalflow's `Dataset.from_json` and its models): `version` present (a
string), at least one test case, ids kebab-case and unique, `description`,
`input` and `expected_output` non-empty strings, `task_type` one of six
values, `eval_config.methods` unique and known, `judge` a boolean, `weight`
greater than 0.

Mapping: `exact_match` is mechanical (`matches_exactly`, evalflow's
normalization); `embedding_similarity`, `llm_judge` and `judge: true` are
judgements: placeholders carrying the expected output. The category is the
task type unless `--category` is given. Context joins the prompt by one
template, PROMPT_WITH_CONTEXT.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..model import Case, Check, CheckKind, Note, Refusal, RefusalCode, describe
from ._common import (
    NO_CRITERIA,
    ReadOptions,
    Refuser,
    actual_of,
    collecting,
    no_criteria_placeholder,
    note,
    placeholder,
    read_json_source,
    require_text,
    strict,
)

NAME = "evalflow"
KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
TASK_TYPES = ("summarization", "classification", "extraction", "qa", "generation", "rewrite")
METHODS = ("exact_match", "embedding_similarity", "consistency", "llm_judge")
# evalflow sends only `input` to the model and gives `context` to its judge.
# The catalog has one prompt, so a non-empty context follows the input here:
PROMPT_WITH_CONTEXT = "{input}\n\nContext:\n{context}"
_JUDGED = {
    "embedding_similarity": "Says the same as the expected output (evalflow embedding_similarity): ",
    "llm_judge": "A judge rates it as matching the expected output (evalflow llm_judge): ",
}
EXACT = "Matches the expected output after evalflow's normalization (exact_match): "
_CONFIG_KEYS = ("methods", "judge", "weight")
_CASE_KEYS = ("id", "description", "task_type", "input", "expected_output", "context", "tags", "eval_config")


def _read(
    source: Path, display: str, options: ReadOptions, collect: bool
) -> tuple[list[Case], list[Refusal], bool]:
    data, refuse, surrogates = read_json_source(
        source, display, RefusalCode.NOT_EVALFLOW, "is not an evalflow dataset"
    )
    test_cases = _test_cases(refuse, data)
    file_notes = [
        note(refuse, f"(file) {k}", v, case="(file)", at=(k,))
        for k, v in data.items()
        if k not in ("version", "test_cases")
    ]
    seen: dict[str, int] = {}
    cases: list[Case] = []
    refusals: list[Refusal] = []
    for index, raw in enumerate(test_cases):
        try:
            case = _case(refuse, raw, index, options, display)
            if case.id in seen:
                raise refuse(
                    case=f'case "{case.id}"',
                    field_path="id",
                    at=("test_cases", index, "id"),
                    expected="an id no other test case has",
                    actual=f"the same id as test case #{seen[case.id] + 1}",
                )
        except Refusal as refusal:
            if not collect:
                raise
            refusals.append(refusal)
            continue
        seen[case.id] = index
        cases.append(case)
    if file_notes and cases:
        cases[0] = cases[0]._replace(notes=(*file_notes, *cases[0].notes))
    return cases, refusals, surrogates


read = strict(
    _read, RefusalCode.NOT_EVALFLOW, "is not an evalflow dataset"
)  # the import: the first refusal stops it
problems = collecting(
    _read, RefusalCode.NOT_EVALFLOW, "is not an evalflow dataset"
)  # lint: every refusal in the dataset, not only the first


def _test_cases(refuse: Refuser, data: object) -> list[object]:
    if not isinstance(data, dict):
        raise refuse(
            field_path="(top level)",
            expected='an object with "version" and "test_cases"',
            actual=describe(data),
        )
    if "version" not in data or not isinstance(data["version"], str):
        raise refuse(
            field_path="version",
            at=("version",),
            expected="a string",
            actual=actual_of(data, "version"),
            hint='evalflow requires "version": "1.0"',
        )
    cases = data.get("test_cases")
    if cases is None or cases == []:
        raise refuse(
            code=RefusalCode.FILE_EMPTY,
            field_path="test_cases",
            at=("test_cases",),
            expected="at least one test case",
            actual=actual_of(data, "test_cases"),
        )
    if not isinstance(cases, list):
        raise refuse(field_path="test_cases", at=("test_cases",), expected="a list", actual=describe(cases))
    _refuse_lookalike(refuse, cases)
    return cases


def _refuse_lookalike(refuse: Refuser, cases: list[object]) -> None:
    """Another tool's dataset shares "version" and "test_cases": name it, never half-import it."""
    for index, raw in enumerate(cases):
        if isinstance(raw, dict) and "input" not in raw and "input_prompt" in raw:
            found = [key for key in ("input_prompt", "metrics_to_evaluate", "difficulty") if key in raw]
            raise refuse(
                case=f"test case #{index + 1}",
                field_path="input",
                at=("test_cases", index),
                expected="a string",
                actual="missing",
                hint="found "
                + ", ".join(f'"{k}"' for k in found)
                + ": this is another tool's dataset that looks like evalflow's, "
                "not an evalflow dataset",
            )


def _case(refuse: Refuser, raw: object, index: int, options: ReadOptions, display: str) -> Case:
    at: tuple[str | int, ...] = ("test_cases", index)
    label = f"test case #{index + 1}"
    if not isinstance(raw, dict):
        raise refuse(case=label, at=at, expected="an object", actual=describe(raw))
    case_id = require_text(refuse, raw, "id", case=label, at=(*at, "id"))
    label = f'case "{case_id}"'
    if not KEBAB.fullmatch(case_id):
        raise refuse(
            case=label,
            field_path="id",
            at=(*at, "id"),
            expected="a kebab-case id",
            actual=describe(case_id),
            hint="evalflow ids look like answer-readme-question",
        )
    description = require_text(refuse, raw, "description", case=label, at=(*at, "description"))
    task_type = raw.get("task_type")
    if task_type not in TASK_TYPES:
        raise refuse(
            case=label,
            field_path="task_type",
            at=(*at, "task_type"),
            expected="one of " + ", ".join(TASK_TYPES),
            actual=actual_of(raw, "task_type"),
        )
    given = require_text(refuse, raw, "input", case=label, at=(*at, "input"))
    expected = require_text(refuse, raw, "expected_output", case=label, at=(*at, "expected_output"))
    context = _context(refuse, raw, label, at)
    prompt = PROMPT_WITH_CONTEXT.format(input=given, context=context) if context else given
    checks, notes = _eval_config(refuse, raw, label, at, expected)
    notes.insert(0, Note("description", description))
    notes.append(Note("expected_output", expected))
    notes.extend(_other_notes(refuse, raw, label, at))
    category = options.category if options.category is not None else task_type
    return Case(
        case_id,
        category,
        prompt,
        options.risk,
        tuple(checks),
        tuple(notes),
        origin=f"{display}, {label}",
        had_no_criteria=checks[0].criterion == NO_CRITERIA,
    )


def _context(refuse: Refuser, raw: dict[str, object], label: str, at: tuple[str | int, ...]) -> str:
    context = raw.get("context")
    if context is not None and not isinstance(context, str):
        raise refuse(
            case=label,
            field_path="context",
            at=(*at, "context"),
            expected="a string or null",
            actual=describe(context),
        )
    return context or ""


def _eval_config(
    refuse: Refuser, raw: dict[str, object], label: str, at: tuple[str | int, ...], expected: str
) -> tuple[list[Check], list[Note]]:
    config = raw.get("eval_config", {})
    where = (*at, "eval_config")
    if not isinstance(config, dict):
        raise refuse(
            case=label, field_path="eval_config", at=where, expected="an object", actual=describe(config)
        )
    methods = config.get("methods", [])
    if not isinstance(methods, list) or any(m not in METHODS for m in methods):
        raise refuse(
            case=label,
            field_path="eval_config.methods",
            at=(*where, "methods"),
            expected="a list of " + ", ".join(METHODS),
            actual=actual_of(config, "methods"),
        )
    if len(set(methods)) != len(methods):
        raise refuse(
            case=label,
            field_path="eval_config.methods",
            at=(*where, "methods"),
            expected="each method once",
            actual=describe(methods),
        )
    judge = config.get("judge", False)
    if not isinstance(judge, bool):
        raise refuse(
            case=label,
            field_path="eval_config.judge",
            at=(*where, "judge"),
            expected="true or false",
            actual=describe(judge),
        )
    weight = config.get("weight", 1.0)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not weight > 0:
        raise refuse(
            case=label,
            field_path="eval_config.weight",
            at=(*where, "weight"),
            expected="a number greater than 0",
            actual=actual_of(config, "weight"),
        )
    checks = _method_checks(methods, judge, expected)
    notes = [Note("eval_config.weight", weight, "evalflow's weight of this case in its overall score")]
    if "consistency" in methods:
        notes.append(
            Note(
                "eval_config.methods",
                "consistency",
                "evalflow re-asks the model and compares answers; no single-answer check exists",
            )
        )
    notes.extend(
        note(refuse, f"eval_config.{k}", v, case=label, at=(*where, k))
        for k, v in config.items()
        if k not in _CONFIG_KEYS
    )
    return checks, notes


def _method_checks(methods: list[str], judge: bool, expected: str) -> list[Check]:
    checks = []
    for method in methods:
        if method == "exact_match":
            checks.append(Check(EXACT + expected, CheckKind.MATCHES_EXACTLY, (expected,)))
        elif method in _JUDGED:
            checks.append(placeholder(_JUDGED[method] + expected))
    if judge and "llm_judge" not in methods:
        checks.append(placeholder(_JUDGED["llm_judge"] + expected))
    return checks or [no_criteria_placeholder()]


def _other_notes(
    refuse: Refuser, raw: dict[str, object], label: str, at: tuple[str | int, ...]
) -> list[Note]:
    notes = []
    if "tags" in raw:
        tags = raw["tags"]
        if not isinstance(tags, list) or any(not isinstance(t, str) for t in tags):
            raise refuse(
                case=label,
                field_path="tags",
                at=(*at, "tags"),
                expected="a list of strings",
                actual=describe(tags),
            )
        notes.append(Note("tags", tags))
    notes.extend(note(refuse, k, v, case=label, at=(*at, k)) for k, v in raw.items() if k not in _CASE_KEYS)
    return notes
