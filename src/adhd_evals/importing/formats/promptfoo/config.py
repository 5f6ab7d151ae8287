"""A promptfoo config file and the files it names: loading, header notes, file references."""

from __future__ import annotations

import functools
import glob
import re
from pathlib import Path
from typing import NamedTuple, TypedDict

from ...model import Note, Refusal, RefusalCode, describe
from ...sourcetext import decode_utf8, load_json, locate, read_bytes
from .._common import (
    Locator,
    Refuser,
    jsonable,
    slug,
)
from .jsvalues import JSDict, js_value
from .render import TemplateProblem, render
from .yamljs import load_yaml

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
    data: dict[str, object]  # as written: cases.py checks it once defaultTest is merged in
    label: str  # "test 3", "tests/more.yaml test 2", "cases.csv row 4"
    source: Source
    at: tuple[str | int, ...]  # where it sits in its source file
    number: int  # 1-based, across the config


class Config(NamedTuple):
    data: dict[str, object]  # the top level as written, each key narrowed where it is read
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


def _load_structured(path: Path, display: str) -> tuple[object, Locator]:
    if path.suffix.lower() == ".json":
        text = decode_utf8(read_bytes(path, display), display, RefusalCode.NOT_JSON, "is not JSON")
        return js_value(load_json(text, display)), functools.partial(locate, text)
    data, locator = load_yaml(path, display)
    return js_value(jsonable(data)), locator


def _env(refuse: Refuser, data: dict[str, object]) -> dict[str, object]:
    env = data.get("env", {})
    if not isinstance(env, dict):
        raise refuse(
            field_path="env", at=("env",), expected="a mapping of names to values", actual=describe(env)
        )
    return dict(env)


def _category(data: dict[str, object], source: Path) -> str:
    description = data.get("description")
    if isinstance(description, str) and slug(description):
        return slug(description)
    return slug(source.resolve().parent.name) or "promptfoo"


_MERGED = ("vars", "assert", "options", "metadata", "threshold")  # what defaultTest gives each test


# The test blocks of promptfoo's configuration reference, once checked. `assert` is a Python
# keyword, so the keys holding it are declared in the functional form.
_DefaultAssert = TypedDict("_DefaultAssert", {"assert": list[object]}, total=False)


class DefaultTest(_DefaultAssert, total=False):
    """defaultTest as tests.py checked it: a mapping whose assert, when written, is a list (its
    other keys as written; only those merged into every test are declared)."""

    vars: object
    options: object
    metadata: object
    threshold: object


_TestChecked = TypedDict("_TestChecked", {"vars": JSDict, "assert": list[object]})


class CheckedTest(_TestChecked, total=False):
    """A test with defaultTest merged in, as cases.py checked it: vars an object, assert a list;
    the other keys promptfoo reads, as written (any key beyond them stays, to become a note)."""

    description: object
    threshold: object
    options: object
    metadata: object


class TestOptions(TypedDict, total=False):
    """The keys of a test's `options` the reader acts on (the rest are kept as a note)."""

    prefix: object
    suffix: object
    disableVarExpansion: object
    transformVars: object


EMPTY_DEFAULT_ASSERT = (
    "empty: promptfoo warns (Expected array, received null) and runs with no default assertion"
)


def _header_notes(data: dict[str, object]) -> list[Note]:
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
    notes += _default_test_notes(data.get("defaultTest"))
    notes += _prompt_notes(data.get("prompts"))
    if "description" in data:
        notes.append(Note("(config) description", data["description"]))
    return notes


def _default_test_notes(default: object) -> list[Note]:
    """defaultTest's keys promptfoo does not merge into each test (and an empty assert)."""
    notes = []
    for key, value in default.items() if isinstance(default, dict) else ():
        if key == "assert" and value is None:
            notes.append(Note("(config) defaultTest.assert", None, EMPTY_DEFAULT_ASSERT))
        elif key not in _MERGED:
            notes.append(Note(f"(config) defaultTest.{key}", value, "promptfoo's; not merged into the cases"))
    return notes


def _prompt_notes(prompts: object) -> list[Note]:
    """The keys of prompt objects beyond their text, id and label."""
    return [
        Note(f"(config) prompts[{index}].{key}", value)
        for index, prompt in enumerate(prompts if isinstance(prompts, list) else [])
        for key, value in (prompt.items() if isinstance(prompt, dict) else ())
        if key not in ("raw", "id", "label")
    ]


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
        env = config.data.get("env")  # a mapping or none: _env refused any other before this runs
        try:
            relative = render(relative, {}, env if isinstance(env, dict) else {})
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
