"""A promptfoo config's tests: inline, from YAML/JSON/JSONL files and CSV rows, and defaultTest."""

from __future__ import annotations

import copy
import csv
import functools
import io
import re
from typing import cast

from ...model import Refusal, RefusalCode, describe
from .._common import (
    NO_TESTS,
    Locator,
    Refuser,
)
from .asserts import KNOWN
from .config import Config, DefaultTest, Source, Test, _load_structured, _reference, _refuse_code, _text
from .jsvalues import JSDict, JSList, js_parse_json, js_trim


def _default_test(config: Config, given: object) -> DefaultTest:
    refuse = config.source.refuse
    if given is None:
        return {}
    if isinstance(given, str) and given.startswith("file://"):
        _refuse_code(refuse, given, what="defaultTest", field="defaultTest", at=("defaultTest",))
        sources = _reference(
            config, refuse, given, what="a defaultTest file", field="defaultTest", at=("defaultTest",)
        )
        given = _load_structured(sources[0].path, sources[0].display)[0]
    if not isinstance(given, dict):
        raise refuse(
            field_path="defaultTest", at=("defaultTest",), expected="a mapping", actual=describe(given)
        )
    checked: dict[str, object] = given
    if "assert" in given and given["assert"] is None:  # `assert:` written empty: promptfoo warns
        checked = copy.copy(given)  # ("Expected array, received null") and runs without one
        checked["assert"] = []
    elif "assert" in given and not isinstance(given["assert"], list):
        raise refuse(
            field_path="defaultTest.assert",
            at=("defaultTest", "assert"),
            expected="a list",
            actual=describe(given["assert"]),
            hint="promptfoo stops here: defaultTest.assert is not an array",
        )
    return cast(DefaultTest, checked)  # checked just above: a mapping, its assert (if any) a list


def _tests(config: Config, given: object) -> list[Test]:
    refuse = config.source.refuse
    if given is None or given == []:
        return [Test(JSDict(), NO_TESTS, config.source, (), 1)]
    if isinstance(given, str):
        return _number(
            _tests_from_reference(
                config, given, ("tests",), "tests", standalone=not given.endswith(("yaml", "yml"))
            )
        )
    if isinstance(given, dict) and isinstance(given.get("path"), str):
        return _number(
            _tests_from_reference(config, given["path"], ("tests", "path"), "tests.path", standalone=True)
        )
    if not isinstance(given, list):
        raise refuse(
            field_path="tests", at=("tests",), expected="a list of tests, or a path", actual=describe(given)
        )
    tests: list[Test] = []
    for index, item in enumerate(given):
        at: tuple[str | int, ...] = ("tests", index)
        if isinstance(item, str):
            tests += _tests_from_reference(
                config, item, at, f"tests[{index}]", standalone=":" in item.removeprefix("file://")[2:]
            )
        elif isinstance(item, dict) and isinstance(item.get("path"), str):
            tests += _tests_from_reference(config, item["path"], at, f"tests[{index}].path", standalone=True)
        elif isinstance(item, dict):
            tests.append(Test(item, f"test {index + 1}", config.source, at, 0))
        else:
            raise refuse(
                case=f"test {index + 1}",
                field_path=f"tests[{index}]",
                at=at,
                expected="a test (a mapping) or a path",
                actual=describe(item),
            )
    return _number(tests)


def _number(tests: list[Test]) -> list[Test]:
    return [t._replace(number=i + 1) for i, t in enumerate(tests)]


def _tests_from_reference(
    config: Config, ref: str, at: tuple[str | int, ...], field: str, *, standalone: bool
) -> list[Test]:
    refuse = config.source.refuse
    _refuse_code(refuse, ref, what="tests", field=field, at=at)
    tests: list[Test] = []
    for source in _reference(config, refuse, ref, what="a tests file", field=field, at=at):
        tests += _tests_file(source, standalone)
    return tests


def _tests_file(source: Source, standalone: bool) -> list[Test]:
    suffix = source.path.suffix.lower()
    if suffix == ".csv":
        return _csv_tests(source)
    if suffix in (".yaml", ".yml", ".json", ".jsonl"):
        rows, locator = _rows(source, suffix)
        refuse = Refuser(RefusalCode.NOT_PROMPTFOO, source.display, "is not a promptfoo tests file", locator)
        found = []
        for index, row in enumerate(rows):
            at: tuple[str | int, ...] = (index,) if suffix != ".jsonl" else ()
            label = (
                f"{source.display} test {index + 1}"
                if suffix != ".jsonl"
                else f"{source.display} line {index + 1}"
            )
            if not isinstance(row, dict):
                raise refuse(case=label, at=at, expected="a test (a mapping)", actual=describe(row))
            if standalone and suffix in (".json", ".jsonl") and not row.get("description"):
                row = JSDict(row, description=f"Row #{index + 1}")  # promptfoo names such rows itself
            found.append(Test(row, label, Source(source.path, source.display, refuse), at, 0))
        return found
    raise source.refuse(
        field_path="tests",
        expected="tests in YAML, JSON, JSONL or CSV",
        actual=f"{source.display} ({suffix or 'no'} extension)",
        code=RefusalCode.PROMPTFOO_REFERENCE,
    )


def _rows(source: Source, suffix: str) -> tuple[list[object], Locator | None]:
    if suffix == ".jsonl":
        text = _text(source)
        rows = []
        for number, line in enumerate(text.split("\n"), start=1):
            if line.strip():
                try:
                    rows.append(js_parse_json(line))
                except ValueError as exc:
                    raise Refusal(
                        RefusalCode.NOT_JSON,
                        source.display,
                        "is not JSON Lines",
                        actual=str(exc),
                        line=number,
                    ) from None
        return rows, None
    data, locator = _load_structured(source.path, source.display)
    return (data if isinstance(data, list) else [data]), locator


_SPECIAL_COLUMNS = (
    "__expected",
    "__prefix",
    "__suffix",
    "__description",
    "__metric",
    "__threshold",
    "__metadata:",
)


def _csv_tests(source: Source) -> list[Test]:
    """testCaseFromCsvRow: `__expected*` columns are assertions written as text, other columns vars."""
    text = _text(source)
    refuse = Refuser(RefusalCode.NOT_PROMPTFOO, source.display, "is not a promptfoo tests CSV")
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = [h.strip() for h in next(reader)]
    except (StopIteration, csv.Error):
        raise refuse(
            field_path="(header)", expected="a header row naming vars and __expected columns", actual="none"
        ) from None
    tests: list[Test] = []
    line = reader.line_num
    try:
        for row in reader:
            number = len(tests) + 1
            if len(row) != len(header):
                raise Refusal(
                    RefusalCode.NOT_PROMPTFOO,
                    source.display,
                    "is not a promptfoo tests CSV",
                    case=f"row {number}",
                    expected=f"{len(header)} fields, as the header has",
                    actual=f"{len(row)}",
                    line=line + 1,
                )
            tests.append(_csv_test(refuse, dict(zip(header, row, strict=True)), number, source, line + 1))
            line = reader.line_num
    except csv.Error as exc:
        raise Refusal(
            RefusalCode.NOT_PROMPTFOO,
            source.display,
            "is not a promptfoo tests CSV",
            actual=str(exc),
            line=reader.line_num,
        ) from None
    return tests


_CSV_TEST_KEYS = {"__description": "description", "__metric": "__metric", "__threshold": "threshold"}


def _csv_test(refuse: Refuser, row: dict[str, str], number: int, source: Source, line: int) -> Test:
    variables = JSDict()
    data = JSDict(vars=variables)
    asserts: list[JSDict] = []
    options, metadata = JSDict(), JSDict()
    for key, value in row.items():
        if not key.startswith("__"):
            variables[key] = value
        elif key.startswith("__expected"):
            if js_trim(value):
                asserts.append(assertion_from_string(js_trim(value)))
        elif key.startswith("__metadata:"):
            if js_trim(value):
                metadata[key[11:]] = value
        elif key in ("__prefix", "__suffix"):
            options[key[2:]] = value
        elif key in _CSV_TEST_KEYS:
            data[_CSV_TEST_KEYS[key]] = _parse_float(value) if key == "__threshold" else value
        else:
            raise Refusal(
                RefusalCode.NOT_PROMPTFOO,
                source.display,
                "is not a promptfoo tests CSV",
                case=f"row {number}",
                field_path=key,
                expected="a var column or __expected, __prefix, __suffix, __description, "
                "__metric, __threshold, __metadata:<key>",
                actual="a column adhd-evals does not read",
                line=line,
            )
    _csv_finished(data, asserts, options, metadata, number)
    return Test(data, f"{source.display} row {number}", Source(source.path, source.display, refuse), (), 0)


def _csv_finished(
    data: JSDict, asserts: list[JSDict], options: JSDict, metadata: JSDict, number: int
) -> None:
    """A row's test completed as testCaseFromCsvRow ends: __metric on every assertion,
    options and metadata when a column gave any, a description when none did."""
    if "__metric" in data:
        metric = data.pop("__metric")
        asserts = [JSDict(a, metric=metric) for a in asserts]
    data["assert"] = JSList(asserts)
    if options:
        data["options"] = options
    if metadata:
        data["metadata"] = metadata
    data.setdefault("description", f"Row #{number}")


def _parse_float(text: str) -> float:
    match = re.match(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", js_trim(text))
    return float(match.group(0)) if match else float("nan")


def assertion_from_string(expected: str) -> JSDict:
    """csv.ts assertionFromString: `type:value`, `not-type:value`, `type(threshold):value`, else equals."""
    found = _code_or_rubric(expected)
    if found is not None:
        return found
    match = _assertion_string().fullmatch(expected)
    if not match:
        return JSDict(type="equals", value=expected)
    return _typed_assertion(*match.groups())


def _code_or_rubric(expected: str) -> JSDict | None:
    """The prefixes csv.ts reads before any type: code (JavaScript, Python) and rubrics."""
    if expected.startswith(("javascript:", "fn:", "eval:")):
        cut = len(expected.split(":", 1)[0]) + 1
        return JSDict(type="javascript", value=js_trim(expected[cut:]))
    if expected.startswith("file://") and re.search(r"\.(js|cjs|mjs|ts|cts|mts)\Z", expected[7:]):
        return JSDict(type="javascript", value=js_trim(expected))  # isJavascriptFile: the path kept whole
    if expected.startswith(("grade:", "llm-rubric:")):
        return JSDict(type="llm-rubric", value=expected[6 if expected.startswith("grade:") else 11 :])
    if expected.startswith("python:") or (
        expected.startswith("file://") and (expected.endswith(".py") or ".py:" in expected)
    ):
        return JSDict(type="python", value=js_trim(expected[7:]))
    return None


@functools.cache
def _assertion_string() -> re.Pattern[str]:
    # JavaScript's alternation tries promptfoo's order, where "similar" comes before
    # "similar:cosine" and takes its ":cosine" as the value: a type with a colon never matches
    types = "|".join(re.escape(t) for t in sorted((k for k in KNOWN if ":" not in k), key=len, reverse=True))
    return re.compile(rf"(not-)?({types})(?:\((\d+(?:\.\d+)?)\))?(?::([\s\S]*))?")


def _typed_assertion(inverse: str | None, base: str, threshold: str | None, value: str | None) -> JSDict:
    """`type:value` read as csv.ts reads it: list types split on commas, thresholds defaulted."""
    kind = f"not-{base}" if inverse else base
    if base in ("contains-all", "contains-any", "icontains-all", "icontains-any"):
        return JSDict(type=kind, value=JSList(js_trim(v) for v in value.split(",")) if value else value)
    if base in ("contains-json", "is-json"):
        return JSDict(type=kind, value=value)
    found = JSDict(type=kind, value=js_trim(value) if value is not None else None)
    if value is None:
        del found["value"]
    thresholded = (
        "answer-relevance",
        "classifier",
        "context-faithfulness",
        "context-recall",
        "context-relevance",
        "cost",
        "latency",
        "levenshtein",
        "perplexity-score",
        "perplexity",
        "rouge-n",
        "similar",
        "starts-with",
    )
    if base in thresholded:
        found["threshold"] = float(threshold) if threshold else (0.8 if base == "similar" else 0.75)
    return found
