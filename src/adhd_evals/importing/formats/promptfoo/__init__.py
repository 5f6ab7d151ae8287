"""promptfoo configs (`promptfooconfig.yaml`/`.yml`/`.json`), read as promptfoo 0.120.0 reads them.

One catalog case per (test x var combination x prompt): the prompt is the
prompt template rendered with the test's vars exactly as promptfoo renders it
(render.py), the criteria are its assertions mapped by promptfoo's own rules
(asserts.py). What promptfoo would run as code (prompt functions, JavaScript
or Python test generators and vars, transformVars) or read from the machine
(`env.X`) is refused by name; what cannot be rendered identically is refused
naming the file, the test, the field and the construct.

Ids: a test's `description` slugged, when no other test of the config has the
same description; otherwise `<config stem>-<test number>`. When a config has
several prompts, each case of a test adds `--<prompt>` (the prompt's id or
label slugged when they are unique, else `p<number>`), and several var
combinations add `--v<number>`: the cases of one test share its id as their
stem, and a note names the test they pair with.
"""

from __future__ import annotations

import copy
import csv
import functools
import glob
import io
import re
from pathlib import Path
from typing import Any, NamedTuple

from ...model import RISKS, Case, Check, LeftOut, Note, Refusal, RefusalCode, describe
from ...sourcetext import decode_utf8, load_json, locate, read_bytes
from .._common import (
    NO_TESTS,
    ReadOptions,
    Refuser,
    collecting,
    jsonable,
    no_criteria_placeholder,
    slug,
    strict,
)
from .asserts import map_assertion
from .jsvalues import JSDict, JSList, js_json, js_parse_json, js_trim, js_value
from .render import TemplateProblem, auto_wrap, render, render_in_object, resolve_variables
from .yamljs import load_yaml, load_yaml_text

NAME = "promptfoo"
NOT_CONFIG = "is not a promptfoo config"
CODE_SUFFIXES = (
    ".js",
    ".cjs",
    ".mjs",
    ".ts",
    ".cts",
    ".mts",
    ".py",
    ".rb",
    ".sh",
    ".bash",
    ".exe",
    ".bat",
    ".cmd",
    ".ps1",
    ".pl",
    ".go",
)
BINARY_SUFFIXES = (
    ".pdf",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".webp",
    ".bmp",
    ".svg",
    ".tif",
    ".tiff",
    ".ico",
    ".avif",
    ".heic",
    ".heif",
    ".mp3",
    ".wav",
    ".ogg",
    ".mp4",
    ".webm",
    ".mov",
    ".m4a",
    ".xlsx",
    ".xls",
)
TEST_KEYS = ("vars", "assert", "description", "threshold", "options", "metadata")
_PROMPT_EXTENSIONS = (
    ".cjs",
    ".cts",
    ".j2",
    ".js",
    ".json",
    ".jsonl",
    ".md",
    ".mjs",
    ".mts",
    ".py",
    ".ts",
    ".txt",
    ".yml",
    ".yaml",
)
_MAGIC = re.compile(r"[*?\[\]{}]|[+@!]\(")


class Source(NamedTuple):
    """A file the config reads, with the refuser that locates problems in it."""

    path: Path
    display: str
    refuse: Refuser


class Prompt(NamedTuple):
    raw: str
    key: str  # the id/label a case id adds when the config has several prompts
    label: str
    field: str = "prompts"  # where it was named, for refusals


class Test(NamedTuple):
    data: dict[str, Any]
    label: str  # "test 3", "tests/more.yaml test 2", "cases.csv row 4"
    source: Source
    at: tuple[str | int, ...]  # where it sits in its source file
    number: int  # 1-based, across the config


def _read(
    source: Path, display: str, options: ReadOptions, collect: bool
) -> tuple[list[Case], list[Refusal], bool]:
    config = _config(source, display)._replace(category_given=options.category is not None)
    data, refuse = config.data, config.source.refuse
    env = _env(refuse, data)
    prompts = _prompts(config, data.get("prompts"))
    default = _default_test(config, data.get("defaultTest"))
    tests = _tests(config, data.get("tests"))
    category = options.category or _category(data, source)
    ids = _test_ids(tests, source)
    header = _header_notes(data)
    cases: list[Case] = []
    refusals: list[Refusal] = []
    _refuse_unknown_skips(refuse, options.skip_tests, len(tests))
    for test, test_id in zip(tests, ids, strict=True):
        if test.number in options.skip_tests:  # left out by the person, with the test's own name
            options.left_out.append(LeftOut(display, test.label, test_id, f"--skip-test {test.number}"))
            continue
        try:
            cases += _cases(test, test_id, default, prompts, env, category, options.risk, config)
        except Refusal as refusal:
            if not collect:
                raise
            refusals.append(refusal)
    _refuse_duplicates(cases, config.source)
    if cases and header:
        cases[0] = cases[0]._replace(notes=(*header, *cases[0].notes))
    return cases, refusals, True


def _refuse_unknown_skips(refuse: Refuser, skips: tuple[int, ...], count: int) -> None:
    unknown = [n for n in skips if not 1 <= n <= count]
    if unknown:
        raise refuse(
            field_path="--skip-test",
            expected=f"a test number from 1 to {count}",
            actual=", ".join(map(str, unknown)),
        )


read = strict(_read, RefusalCode.NOT_PROMPTFOO, NOT_CONFIG)
problems = collecting(_read, RefusalCode.NOT_PROMPTFOO, NOT_CONFIG)


# --- the config file -----------------------------------------------------------------------


class Config(NamedTuple):
    data: dict[str, Any]
    source: Source
    folder: Path
    category_given: bool = False


CONFIG_NAMES = ("promptfooconfig.yaml", "promptfooconfig.yml", "promptfooconfig.json")


def _config_file(path: Path, display: str) -> tuple[Path, str]:
    """A folder stands for its promptfooconfig file, as `promptfoo eval` run there reads it."""
    if not path.is_dir():
        return path, display
    found = [path / name for name in CONFIG_NAMES if (path / name).is_file()]
    if len(found) != 1:
        raise Refusal(
            RefusalCode.DIRECTORY_EMPTY if not found else RefusalCode.NOT_PROMPTFOO,
            display,
            "has nothing to import" if not found else NOT_CONFIG,
            expected="one of " + ", ".join(CONFIG_NAMES),
            actual=", ".join(f.name for f in found) or "none",
        )
    return found[0], str(Path(display) / found[0].name)


def _config(path: Path, display: str) -> Config:
    path, display = _config_file(path, display)
    data, locator = _load_structured(path, display)
    refuse = Refuser(RefusalCode.NOT_PROMPTFOO, display, NOT_CONFIG, locator)
    if not isinstance(data, dict):
        raise refuse(
            field_path="(top level)",
            expected="a mapping with prompts and tests",
            actual=describe(jsonable(data)),
        )
    if "prompts" not in data:
        raise refuse(
            field_path="prompts",
            expected="the prompts to render (a string, a list, or a mapping)",
            actual="missing",
            hint="promptfoo needs prompts to run a config",
        )
    for key in ("scenarios", "redteam"):
        if key in data and key == "scenarios":
            raise refuse(
                field_path=key, at=(key,), expected="tests (scenarios are not imported)", actual="scenarios"
            )
    return Config(data, Source(path, display, refuse), path.resolve().parent)


def _load_structured(path: Path, display: str) -> tuple[Any, Any]:
    if path.suffix.lower() == ".json":
        text = decode_utf8(read_bytes(path, display), display, RefusalCode.NOT_JSON, "is not JSON")
        return js_value(load_json(text, display)), functools.partial(locate, text)
    data, locator = load_yaml(path, display)
    return js_value(jsonable(data)), locator


def _env(refuse: Refuser, data: dict[str, Any]) -> dict[str, Any]:
    env = data.get("env", {})
    if not isinstance(env, dict):
        raise refuse(
            field_path="env", at=("env",), expected="a mapping of names to values", actual=describe(env)
        )
    return dict(env)


def _category(data: dict[str, Any], source: Path) -> str:
    description = data.get("description")
    if isinstance(description, str) and slug(description):
        return slug(description)
    return slug(source.resolve().parent.name) or "promptfoo"


_MERGED = ("vars", "assert", "options", "metadata", "threshold")  # what defaultTest gives each test
EMPTY_DEFAULT_ASSERT = (
    "empty: promptfoo warns (Expected array, received null) and runs with no default assertion"
)


def _header_notes(data: dict[str, Any]) -> list[Note]:
    """The config's own keys (providers first), kept on its first case: nothing is dropped."""
    notes = []
    if "providers" in data:
        notes.append(
            Note(
                "(config) providers",
                data["providers"],
                "promptfoo's models for this config; adhd-evals runs the runners you configure instead",
            )
        )
    for key, value in data.items():
        if key not in ("prompts", "tests", "defaultTest", "providers", "description"):
            notes.append(
                Note(f"(config) {key}", value, "the only env a template may read" if key == "env" else "")
            )
    default = data.get("defaultTest")
    for key, value in default.items() if isinstance(default, dict) else ():
        if key == "assert" and value is None:
            notes.append(Note("(config) defaultTest.assert", None, EMPTY_DEFAULT_ASSERT))
        elif key not in _MERGED:
            notes.append(Note(f"(config) defaultTest.{key}", value, "promptfoo's; not merged into the cases"))
    prompts = data.get("prompts")
    for index, prompt in enumerate(prompts if isinstance(prompts, list) else []):
        for key, value in prompt.items() if isinstance(prompt, dict) else ():
            if key not in ("raw", "id", "label"):
                notes.append(Note(f"(config) prompts[{index}].{key}", value))
    if "description" in data:
        notes.append(Note("(config) description", data["description"]))
    return notes


# --- references to other files ---------------------------------------------------------------


def _reference(
    config: Config,
    refuse: Refuser,
    ref: str,
    *,
    what: str,
    field: str,
    at: tuple[str | int, ...],
    case: str | None = None,
) -> list[Source]:
    """The files a (file://) path or glob names, relative to the config, sorted by path."""
    relative = ref.removeprefix("file://")
    if "{{" in relative or "{%" in relative:  # promptfoo renders a path as a template, env only
        try:
            relative = render(relative, {}, dict(config.data.get("env") or {}))
        except TemplateProblem as problem:
            raise refuse(
                case=case,
                field_path=field,
                at=at,
                expected=f"{what} whose path does not depend on the machine",
                actual=f"{relative!r}: {problem.construct}",
                code=RefusalCode.PROMPTFOO_TEMPLATE,
            ) from None
    if _MAGIC.search(relative):
        if "{" in relative or re.search(r"[+@!]\(", relative):
            raise refuse(
                case=case,
                field_path=field,
                at=at,
                expected=f"{what} as a path or a simple glob",
                actual=f"{relative!r} (brace or extended glob patterns are not read)",
                code=RefusalCode.PROMPTFOO_REFERENCE,
            )
        found = sorted(Path(p) for p in glob.glob(relative, root_dir=config.folder, recursive=True))
        paths = [config.folder / p for p in found if (config.folder / p).is_file()]
    else:
        paths = [config.folder / relative] if (config.folder / relative).is_file() else []
    if not paths:
        raise refuse(
            case=case,
            field_path=field,
            at=at,
            expected=f"{what} that exists",
            actual=f"no file matches {relative!r} beside the config",
            code=RefusalCode.PROMPTFOO_REFERENCE,
        )
    display_root = Path(config.source.display).parent
    return [
        Source(
            p,
            str(display_root / p.relative_to(config.folder)) if p.is_relative_to(config.folder) else str(p),
            config.source.refuse,
        )
        for p in paths
    ]


def _refuse_code(
    refuse: Refuser, ref: str, *, what: str, field: str, at: tuple[str | int, ...], case: str | None = None
) -> None:
    path = (
        ref.removeprefix("file://").split(":")[0]
        if ":" in ref.removeprefix("file://")[2:]
        else ref.removeprefix("file://")
    )
    if (
        ref.startswith(("exec:", "python:", "javascript:", "huggingface://", "https://", "http://"))
        or Path(path).suffix.lower() in CODE_SUFFIXES
    ):
        raise refuse(
            case=case,
            field_path=field,
            at=at,
            code=RefusalCode.PROMPTFOO_CODE,
            expected=f"{what} written in the config or a data file",
            actual=f"{ref!r}, which promptfoo would run or fetch to produce it",
            hint="adhd-evals imports what is written down; generate the file first, then import it",
        )


def _text(source: Source) -> str:
    return decode_utf8(
        read_bytes(source.path, source.display),
        source.display,
        RefusalCode.PROMPTFOO_REFERENCE,
        "cannot be read as UTF-8 text",
    )


# --- prompts ------------------------------------------------------------------------------------


def _prompts(config: Config, given: Any) -> list[Prompt]:
    refuse = config.source.refuse
    entries = _prompt_entries(refuse, given)
    prompts: list[Prompt] = []
    for index, (raw, label, at) in enumerate(entries):
        prompts += _prompt(config, raw, label, at, index)
    keys = [p.key for p in prompts]
    if len(prompts) > 1 and (len(set(keys)) != len(keys) or not all(keys)):
        prompts = [p._replace(key=f"p{i + 1}") for i, p in enumerate(prompts)]
    return prompts


def _prompt_entries(refuse: Refuser, given: Any) -> list[tuple[Any, str, tuple[str | int, ...]]]:
    if isinstance(given, str) and given:
        return [(given, "", ("prompts",))]
    if isinstance(given, list) and len(given):  # a JSList is true even when empty
        entries = []
        for index, item in enumerate(given):
            at: tuple[str | int, ...] = ("prompts", index)
            if isinstance(item, str):
                entries.append((item, "", at))
            elif isinstance(item, dict):
                raw = item.get("raw") or item.get("id")
                if not isinstance(raw, str) or not isinstance(item.get("raw", item.get("label")), str):
                    raise refuse(
                        case=f"prompt {index + 1}",
                        field_path=f"prompts[{index}]",
                        at=at,
                        expected="a string, or an object with raw (or id and label)",
                        actual=describe(item),
                        hint="promptfoo stops here: prompt.raw must be a string",
                    )
                if "function" in item:
                    raise refuse(
                        case=f"prompt {index + 1}",
                        field_path=f"prompts[{index}].function",
                        at=at,
                        code=RefusalCode.PROMPTFOO_CODE,
                        expected="a prompt written down",
                        actual="a prompt function",
                    )
                label = item.get("label") or (item.get("id") if item.get("raw") else "") or ""
                entries.append((raw, str(label), at))
            else:
                raise refuse(
                    case=f"prompt {index + 1}",
                    field_path=f"prompts[{index}]",
                    at=at,
                    expected="a string or an object",
                    actual=describe(item),
                )
        return entries
    if isinstance(given, dict) and len(given):
        return [(raw, str(label), ("prompts", raw)) for raw, label in given.items()]
    raise refuse(
        field_path="prompts",
        at=("prompts",),
        expected="a non-empty string, list or mapping",
        actual=describe(given),
    )


def maybe_file_path(text: str) -> bool:
    """promptfoo's maybeFilePath: whether it reads a prompt string as a path."""
    if any(s in text for s in ("\n", "portkey://", "langfuse://", "helicone://")):
        return False
    tokens = text.split(":")
    last = tokens[-1] if tokens else ""
    before = tokens[-2] if len(tokens) > 1 else ""
    return (
        text.startswith("file://")
        or any(last.endswith(e) or before.endswith(e) for e in _PROMPT_EXTENSIONS)
        or text[-3:-2] == "."
        or text[-4:-3] == "."
        or "*" in text
        or "/" in text
        or "\\" in text
    )


def _prompt(config: Config, raw: str, label: str, at: tuple[str | int, ...], index: int) -> list[Prompt]:
    refuse = config.source.refuse
    where: dict[str, Any] = {"case": f"prompt {index + 1}", "field": f"prompts[{index}]", "at": at}
    if raw.startswith(("portkey://", "langfuse://", "helicone://")):
        raise refuse(
            case=where["case"],
            field_path=where["field"],
            at=at,
            code=RefusalCode.PROMPTFOO_CODE,
            expected="a prompt written down",
            actual=f"{raw!r}, fetched from a prompt service",
        )
    if raw.startswith("exec:"):
        _refuse_code(refuse, raw, what="a prompt", field=str(where["field"]), at=at, case=str(where["case"]))
    if not maybe_file_path(raw):
        return [Prompt(raw, slug(label) if label else "", label or raw, str(where["field"]))]
    _refuse_code(refuse, raw, what="a prompt", field=str(where["field"]), at=at, case=str(where["case"]))
    prompts = []
    for source in _reference(
        config, refuse, raw, what="a prompt file", field=str(where["field"]), at=at, case=str(where["case"])
    ):
        for text in _prompt_file(source, refuse, where):
            prompts.append(
                Prompt(
                    text,
                    slug(label) if label else slug(source.path.stem),
                    label or source.display,
                    f"{where['field']} ({source.display})",
                )
            )
    return prompts


def _prompt_file(source: Source, refuse: Refuser, where: dict[str, Any]) -> list[str]:
    suffix = source.path.suffix.lower()
    if suffix in (".txt", ""):
        return _split_prompts(_text(source))
    if suffix in (".md", ".j2"):
        return [_text(source)]
    if suffix == ".json":
        text = _text(source)
        try:
            return [js_json(js_parse_json(text)) or text]
        except ValueError:
            return [text]
    if suffix == ".jsonl":
        return [line for line in re.split(r"\r?\n", _text(source)) if line]
    if suffix in (".yaml", ".yml"):
        text = _text(source)
        try:
            data, _ = load_yaml_text(text, source.display)
        except Refusal:
            return [text]
        return [js_json(js_value(jsonable(data))) or text]
    raise refuse(
        case=where["case"],
        field_path=where["field"],
        at=where["at"],
        expected="a prompt file promptfoo reads as text",
        actual=f"{source.display} ({suffix} files are not prompts)",
        code=RefusalCode.PROMPTFOO_REFERENCE,
    )


def _split_prompts(text: str) -> list[str]:
    """processTxtFile: lines that are `---` (once trimmed) separate prompts; each prompt trimmed."""
    prompts: list[str] = []
    buffer: list[str] = []
    for line in re.split(r"\r?\n", text):
        if js_trim(line) == "---":
            prompts.append(js_trim("\n".join(buffer)))
            buffer = []
        else:
            buffer.append(line)
    prompts.append(js_trim("\n".join(buffer)))
    return [p for p in prompts if p]


# --- tests --------------------------------------------------------------------------------------


def _default_test(config: Config, given: Any) -> dict[str, Any]:
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
    if "assert" in given and given["assert"] is None:  # `assert:` written empty: promptfoo warns
        emptied: dict[str, Any] = copy.copy(given)  # ("Expected array, received null") and runs
        emptied["assert"] = []  # without one
        return emptied
    if "assert" in given and not isinstance(given["assert"], list):
        raise refuse(
            field_path="defaultTest.assert",
            at=("defaultTest", "assert"),
            expected="a list",
            actual=describe(given["assert"]),
            hint="promptfoo stops here: defaultTest.assert is not an array",
        )
    return given


def _tests(config: Config, given: Any) -> list[Test]:
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


def _rows(source: Source, suffix: str) -> tuple[list[Any], Any]:
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


def _csv_test(refuse: Refuser, row: dict[str, str], number: int, source: Source, line: int) -> Test:
    data: dict[str, Any] = JSDict(vars=JSDict())
    asserts: list[Any] = JSList()
    options, metadata = JSDict(), JSDict()
    for key, value in row.items():
        if key.startswith("__expected"):
            if js_trim(value):
                asserts.append(assertion_from_string(js_trim(value)))
        elif key in ("__prefix", "__suffix"):
            options[key[2:]] = value
        elif key == "__description":
            data["description"] = value
        elif key == "__metric":
            data["__metric"] = value
        elif key == "__threshold":
            data["threshold"] = _parse_float(value)
        elif key.startswith("__metadata:"):
            if js_trim(value):
                metadata[key[11:]] = value
        elif key.startswith("__"):
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
        else:
            data["vars"][key] = value
    if "__metric" in data:
        metric = data.pop("__metric")
        asserts = JSList(JSDict(a, metric=metric) for a in asserts)
    data["assert"] = asserts
    if options:
        data["options"] = options
    if metadata:
        data["metadata"] = metadata
    data.setdefault("description", f"Row #{number}")
    return Test(data, f"{source.display} row {number}", Source(source.path, source.display, refuse), (), 0)


def _parse_float(text: str) -> float:
    match = re.match(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", js_trim(text))
    return float(match.group(0)) if match else float("nan")


_ASSERTION_STRING: re.Pattern[str] | None = None


def assertion_from_string(expected: str) -> dict[str, Any]:
    """csv.ts assertionFromString: `type:value`, `not-type:value`, `type(threshold):value`, else equals."""
    global _ASSERTION_STRING
    from .asserts import KNOWN

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
    if _ASSERTION_STRING is None:
        # JavaScript's alternation tries promptfoo's order, where "similar" comes before
        # "similar:cosine" and takes its ":cosine" as the value: a type with a colon never matches
        types = "|".join(
            re.escape(t) for t in sorted((k for k in KNOWN if ":" not in k), key=len, reverse=True)
        )
        _ASSERTION_STRING = re.compile(rf"(not-)?({types})(?:\((\d+(?:\.\d+)?)\))?(?::([\s\S]*))?")
    match = _ASSERTION_STRING.fullmatch(expected)
    if not match:
        return JSDict(type="equals", value=expected)
    inverse, base, threshold, value = match.groups()
    kind = f"not-{base}" if inverse else base
    if base in ("contains-all", "contains-any", "icontains-all", "icontains-any"):
        return JSDict(type=kind, value=JSList(js_trim(v) for v in value.split(",")) if value else value)
    if base in ("contains-json", "is-json"):
        return JSDict(type=kind, value=value)
    found: dict[str, Any] = JSDict(type=kind, value=js_trim(value) if value is not None else None)
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


# --- cases ---------------------------------------------------------------------------------------


def _test_ids(tests: list[Test], source: Path) -> list[str]:
    descriptions = [
        t.data.get("description") if isinstance(t.data.get("description"), str) else None for t in tests
    ]
    counts: dict[str, int] = {}
    for text in descriptions:
        if text and slug(text):
            counts[slug(text)] = counts.get(slug(text), 0) + 1
    stem = slug(source.stem) or "promptfoo"
    return [
        slug(d) if d and slug(d) and counts[slug(d)] == 1 else f"{stem}-{t.number}"
        for d, t in zip(descriptions, tests, strict=True)
    ]


def _refuse_duplicates(cases: list[Case], source: Source) -> None:
    seen: dict[str, str] = {}
    for case in cases:
        if case.id in seen:
            raise source.refuse(
                case=case.origin,
                field_path="description",
                expected="an id no other test has",
                actual=f'"{case.id}", which {seen[case.id]} has too',
                hint="give the tests distinct descriptions",
            )
        seen[case.id] = case.origin


def _merged(test: Test, default: dict[str, Any]) -> dict[str, Any]:
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


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


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


def _cases(
    test: Test,
    test_id: str,
    default: dict[str, Any],
    prompts: list[Prompt],
    env: dict[str, Any],
    category: str,
    risk: str,
    config: Config,
) -> list[Case]:
    where = _Where(test)
    data = _merged(test, default)
    _refuse_unreadable_test(where, data)
    test_id, category, risk = _exported(data, test_id, category, risk, config)
    options = _mapping(data.get("options"))
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
            notes += _test_notes(test, data, prompt, len(prompts), len(combinations), test_id)
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


def _exported(
    data: dict[str, Any], test_id: str, category: str, risk: str, config: Config
) -> tuple[str, str, str]:
    """What `adhd-evals export --to promptfoo` keeps in metadata.adhd_evals: the case's own id,
    category (unless --category was given) and risk."""
    kept = _mapping(_mapping(data.get("metadata")).get("adhd_evals"))
    if isinstance(kept.get("id"), str) and kept["id"].strip():
        test_id = kept["id"]
    if isinstance(kept.get("category"), str) and kept["category"].strip() and not config.category_given:
        category = kept["category"]
    if kept.get("risk") in RISKS:
        risk = kept["risk"]
    return test_id, category, risk


def _refuse_unreadable_test(where: _Where, data: dict[str, Any]) -> None:
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


def _combinations(
    where: _Where, variables: dict[str, Any], options: dict[str, Any], config: Config
) -> list[dict[str, Any]]:
    """generateVarCombinations: an array var whose first item is a string runs once per item."""
    if options.get("disableVarExpansion"):
        return [variables]
    combinations: list[dict[str, Any]] = [{}]
    for key, value in variables.items():
        if isinstance(value, str) and value.startswith("file://"):
            values: list[Any] = [value]
        elif isinstance(value, list) and value and isinstance(value[0], str):
            values = list(value)
        else:
            values = [value]
        combinations = [{**c, key: v} for c in combinations for v in values]
    return combinations


def _load_vars(where: _Where, variables: dict[str, Any], config: Config) -> dict[str, Any]:
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
    where: _Where, prompt: Prompt, variables: dict[str, Any], options: dict[str, Any], env: dict[str, Any]
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
    where: _Where, data: dict[str, Any], variables: dict[str, Any], env: dict[str, Any]
) -> tuple[list[Check], list[Note]]:
    checks: list[Check] = []
    notes: list[Note] = []
    field = "assert"

    def rendered(value: Any) -> Any:
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


def _test_notes(
    test: Test, data: dict[str, Any], prompt: Prompt, prompts: int, combinations: int, test_id: str
) -> list[Note]:
    notes = []
    if "description" in data:
        notes.append(Note("description", data["description"]))
    if prompts > 1 or combinations > 1:
        notes.append(Note("pair", test_id, f"one case of {test.label} per prompt (this one: {prompt.label})"))
    if data.get("vars"):
        notes.append(Note("vars", data["vars"]))
    if "vars" in data and isinstance(data["vars"], dict) and "assert" in data["vars"]:
        notes.append(
            Note(
                "vars.assert",
                data["vars"]["assert"],
                "an assert list indented under vars: promptfoo reads it as a var, not as assertions",
            )
        )
    for key in ("threshold", "options", "metadata"):
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
    for key, value in data.items():
        if key not in (*TEST_KEYS, "vars"):
            notes.append(Note(key, value))
    return notes


ASSERT_UNDER_VARS = "PromptfooAssertUnderVars"


def _step(value: Any, step: str | int) -> Any:
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
    if not isinstance(data, dict) or locator is None:
        return []
    found = _config_warnings(data, locator)
    places: list[tuple[str | int, ...]] = [("defaultTest",)]
    tests = data.get("tests")
    if isinstance(tests, list):
        places += [("tests", index) for index, item in enumerate(tests) if isinstance(item, dict)]
    for at in places:
        test: Any = data
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


def _config_warnings(data: dict[str, Any], locator: Any) -> list[tuple[int, int, str, str]]:
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


def _unset_vars(data: dict[str, Any], tests: Any, locator: Any) -> list[tuple[int, int, str, str]]:
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
