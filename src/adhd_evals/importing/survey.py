"""Survey: every shape a team's case files use, and a draft dialect for them.

Survey reads leniently (it never refuses a file for its shape; files it
cannot read at all are listed) and reports where the case list is, the keys
of cases, and every assertion-object shape with a count, one real example
(`file:line`) and what the import does with it today. With `--out` it
writes a draft dialect with ruamel.yaml, leaving open the choices only a
person can make (which check, and whether letter case matters); run again
into the same file, it keeps everything a person wrote and adds only shapes
the file does not cover yet.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from ..collector import collector_paused
from ..files import walk
from ..text import plural, printable
from .dialect_words import WHOLE_FILE
from .formats._common import jsonable
from .formats._evals_json_asserts import documented_kind
from .formats._evals_json_cases import _PROMPT_LOOKALIKES, LIST_KEYS
from .formats.evals_json import _OTHER_SHAPES
from .model import Refusal, RefusalCode
from .sourcetext import Lines, decode_utf8, read_bytes
from .survey_draft import draft as draft  # the CLI's `survey --draft` finds it here, beside survey()
from .survey_found import ONE_CASE, Shape, Survey, _scalar

# Where case lists are looked for, in this order, before any list of objects.
_LIST_KEYS = ("evals", *_OTHER_SHAPES)


_NOT_READ = RefusalCode.FILE_UNREADABLE  # survey lists such files; it never stops for them


def survey(fmt: str, sources: list[Path], displays: list[str] | None = None) -> Survey:
    found = Survey(fmt)
    # Paused as the import pauses it: survey builds as many small objects (and tries the import)
    with collector_paused():
        for path, shown in _files(fmt, sources, displays or [str(s) for s in sources], found):
            found.files.append(shown)
            try:
                if fmt == "yaml":
                    _yaml_file(found, path, shown)
                else:
                    _json_file(found, path, shown)
            except Refusal as refusal:
                found.unreadable.append((shown, refusal.body if refusal.line is None else refusal.message))
    return found


def _imports(fmt: str, path: Path) -> bool:
    """Whether `import --format fmt` reads the file today, without a dialect (said only then)."""
    from ..errors import UsageError
    from .formats import READERS
    from .formats._common import ReadOptions

    try:
        READERS[fmt](path, display=str(path), options=ReadOptions(risk="medium"))
    except (Refusal, UsageError):
        return False
    return True


def _files(fmt: str, sources: list[Path], displays: list[str], found: Survey) -> list[tuple[Path, str]]:
    suffixes = (".yaml", ".yml") if fmt == "yaml" else (".json",)
    files = []
    for source, shown in zip(sources, displays, strict=True):
        if not source.is_dir():
            files.append((source, shown))
            continue
        inside = [p for p in walk(source) if p.suffix.lower() in suffixes]
        files += [(p, str(Path(shown) / p.relative_to(source))) for p in inside]
    return files


def _json_file(found: Survey, path: Path, shown: str) -> None:
    text = decode_utf8(read_bytes(path, shown), shown, _NOT_READ, "is not UTF-8 text")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        found.unreadable.append((shown, f"{shown} is not JSON ({exc})"))
        return
    where, cases = _case_list(data)
    if where is None:
        found.no_list.append(shown)
        return
    found.lists[where] += 1
    found.list_cases[where] += len(cases)
    found.imports[where] += _imports(found.format, path)
    lines = Lines(text)
    at_list: tuple[str | int, ...] = () if where == WHOLE_FILE else (where,)
    missing = 0
    for index, case in enumerate(cases):
        missing += _case(found, case, lambda inner, i=index: _where(shown, lines.line(at_list, i, inner)))
    if missing:
        found.no_prompt.append(shown)


def _case_list(data: Any) -> tuple[str | None, list[dict[str, object]]]:
    if isinstance(data, list):
        return WHOLE_FILE, [c for c in data if isinstance(c, dict)]
    if not isinstance(data, dict):
        return None, []
    keys = [k for k in _LIST_KEYS if k in data] + [k for k in data if k not in _LIST_KEYS]
    for key in keys:
        value = data[key]
        if isinstance(value, list) and any(isinstance(c, dict) for c in value):
            return key, [c for c in value if isinstance(c, dict)]
    return None, []


def _yaml_file(found: Survey, path: Path, shown: str) -> None:
    from .formats import _yaml_safe as yaml_safe  # PyYAML, only when a survey meets a YAML file

    text = decode_utf8(read_bytes(path, shown), shown, _NOT_READ, "is not UTF-8 text")
    root = yaml_safe._compose(text, shown)
    data = jsonable(yaml_safe._construct(text, root, shown))
    where, cases = _yaml_cases(data)
    if where is None:
        found.no_list.append(shown)
        return
    found.lists[where] += 1
    found.list_cases[where] += len(cases)
    found.imports[where] += _imports(found.format, path)
    at_list: tuple[str | int, ...] = () if where == WHOLE_FILE else (where,)
    missing = 0
    for index, case in enumerate(cases):
        base = () if where == ONE_CASE else (*at_list, index)
        line = lambda inner, b=base: _where(shown, yaml_safe.locate_node(root, (*b, *inner))[0])  # noqa: E731
        missing += _case(found, case, line)
    if missing:
        found.no_prompt.append(shown)


def _yaml_cases(data: Any) -> tuple[str | None, list[dict[str, object]]]:
    """A YAML file's cases: the file itself when it holds a prompt-like key (or no list of
    objects), else the list of objects it holds (skilljack's `tasks:`)."""
    if isinstance(data, dict) and "task" not in data and not prompt_paths(data):
        where, cases = _case_list(data)
        if where is not None:
            return where, cases
    if isinstance(data, dict):
        return ONE_CASE, [data]
    where, cases = _case_list(data)
    return (where, cases) if cases else (None, [])  # a list of no objects holds no case


def _where(shown: str, line: int | None) -> str:
    return f"{shown}:{line}" if line is not None else shown


def _case(found: Survey, case: dict[str, object], where: Any) -> bool:
    """Count one case's keys, prompt-like places and shapes: True when it holds no prompt."""
    found.cases += 1
    found.case_keys.update(list(case))  # keys, not a mapping of counts
    own_prompt = "prompt" if found.format == "evals-json" else "task"
    paths = prompt_paths(case)
    found.prompts.update(paths)
    if found.format == "evals-json":
        if "prompt" not in case:
            found.lookalike_prompts.update(k for k in _PROMPT_LOOKALIKES if k in case)
            found.lookalike_prompts.update(p for p in paths if "." in p)
        if "id" not in case:
            found.without_id += 1
    elif "name" not in case:
        found.ids.update(id_paths(case))
        found.without_id += 1
    found.prose.update(k for k, v in case.items() if _prose_place(found.format, k, v))
    found.needles.update(needle_places(case))
    for key, value in case.items():
        if not isinstance(value, list):
            continue
        for position, item in enumerate(value):
            if isinstance(item, dict) and item:
                _shape(found, key, item, lambda k=key, p=position: where((k, p)))
            elif isinstance(item, str) and key in (*LIST_KEYS, "judge_context"):
                found.strings += 1
    return own_prompt not in case and not paths


# Keys that hold a prompt, at the top or nested (`inputs.prompt`, `payload.message`); a
# prompt-like key holding an object names its text one level down (`steps.prompt.inline`).
_PROMPT_WORDS = ("prompt", "task", "input", "query", "question", "message", "text", "goal", "body", "brief")


_CONTENT = ("inline", "text", "content", "value")


_ID_WORDS = ("id", "name", "title", "slug")


# Keys that state what success looks like, as prose (expected_output is evals-json's own).
_PROSE_WORDS = ("checklist", "criteria", "behavior", "behaviour", "success", "rubric")


_SUCCESS_KEYS = ("expected_output", "expect", "expected")


_NEGATIVE_WORDS = ("forbid", "not", "avoid", "anti", "fail", "never", "wrong")


_NEEDLE_WORDS = ("contains", "contain", "includes", "regex", "pattern", "match")


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _texts(value: Any) -> bool:
    return _text(value) or (isinstance(value, list) and bool(value) and all(_text(v) for v in value))


def prompt_paths(case: dict[str, object]) -> list[str]:
    """Every prompt-like path of a case holding text, in the case's key order."""
    found = []
    for key, value in case.items():
        if isinstance(value, dict):
            for inner, child in value.items():
                path = f"{key}.{inner}"
                if _text(child) and (inner in _PROMPT_WORDS or (key in _PROMPT_WORDS and inner in _CONTENT)):
                    found.append(path)
                elif isinstance(child, dict) and inner in _PROMPT_WORDS:
                    found += [f"{path}.{c}" for c in _CONTENT if _text(child.get(c))][:1]
        elif key in _PROMPT_WORDS and _text(value):
            found.append(key)
    return found


def id_paths(case: dict[str, object]) -> list[str]:
    """Id-like keys holding text or a whole number, at the top or one object down."""
    found = [k for k in _ID_WORDS if _id_value(case.get(k))]
    for key, value in case.items():
        if isinstance(value, dict):
            found += [f"{key}.{k}" for k in _ID_WORDS if _id_value(value.get(k))]
    return found


def _id_value(value: Any) -> bool:
    return _text(value) or type(value) is int


def _prose_place(fmt: str, key: str, value: Any) -> bool:
    """A key whose name says it states success, holding text or a list of texts (evals-json
    reads its expected_output already: not proposed again)."""
    if fmt == "evals-json" and key == "expected_output":
        return False
    named = key in _SUCCESS_KEYS or any(word in key for word in _PROSE_WORDS)
    # what must not happen (forbidden_behaviors) would read as a requirement: it stays a note
    negative = any(word in key for word in _NEGATIVE_WORDS)
    return named and not negative and _texts(value)


def needle_places(case: dict[str, object]) -> list[str]:
    """Lists of words to find (`must_contain`, `expected.output_contains`): checks that need a
    person to say whether letter case matters, so the draft names them and leaves them out."""
    found = [k for k, v in case.items() if _needle_name(k) and _texts(v)]
    for key, value in case.items():
        if isinstance(value, dict):
            found += [f"{key}.{k}" for k, v in value.items() if _needle_name(k) and _texts(v)]
    return found


def _needle_name(key: str) -> bool:
    return any(word in key for word in _NEEDLE_WORDS)


def _shape(found: Survey, key: str, item: dict[str, object], where: Any) -> None:
    selector: dict[str, object] = next(
        ({k: item[k]} for k in ("type", "kind") if k in item and _scalar(item[k])), {}
    )
    keys = tuple(sorted(map(str, item)))
    ident = (json.dumps(selector, sort_keys=True), keys)
    shape = found.shapes.get(ident)
    if shape is None:
        shape = found.shapes[ident] = Shape(selector, keys, example=where(), today=_today(key, item))
    shape.count += 1
    shape.found_in[key] += 1


def _today(key: str, item: dict[str, object]) -> str:
    if key not in LIST_KEYS:
        return "note (outside the assertion list)"
    if documented_kind(item) is not None:
        return "converted (the documented content_contains_* kind)"
    if "text" in item:
        return "placeholder (its text is the criterion)"
    return "placeholder (the object verbatim)"


def report(found: Survey) -> list[str]:
    """The survey for a terminal: one line per item, whatever the files' keys hold."""
    return [printable(line) for line in _report(found)]


def _report(found: Survey) -> list[str]:
    read = len(found.files) - len(found.unreadable)
    lines = [
        f"Surveyed {plural(len(found.files), 'file')} ({found.format}): {read} read, "
        f"{len(found.unreadable)} unreadable, {plural(found.cases, 'case')}."
    ]
    lines += [f"  unreadable: {message}" for _, message in found.unreadable]
    lines.append("Case lists:")
    for where, files in found.lists.most_common():
        lines.append(
            f"  {_list_name(where):<24} {plural(files, 'file')}, {plural(found.list_cases[where], 'case')}"
            f"  {_list_today(found, where)}"
        )
    for shown in found.no_list:
        lines.append(f"  no case list: {shown}")
    lines.append(f"Case keys (of {plural(found.cases, 'case')}):")
    for key, count in found.case_keys.most_common():
        lines.append(f"  {key:<24} {count:>6}  {_key_today(found.format, key)}")
    if found.lookalike_prompts:
        lines.append(
            "  cases with no prompt but "
            + ", ".join(f'"{k}" ({c})' for k, c in found.lookalike_prompts.most_common())
            + ": refused today; declare cases.prompt"
        )
    lines += _place_lines(found)
    lines.append("Assertion objects:")
    for shape in sorted(found.shapes.values(), key=lambda s: (-s.count, s.label)):
        places = ", ".join(found_in for found_in, _ in shape.found_in.most_common())
        lines.append(
            f"  {shape.label}: {shape.count} in {places}, e.g. {shape.example}; today: {shape.today}"
        )
    if found.strings:
        lines.append(f"Strings in criteria lists: {found.strings} (prose: placeholders)")
    return lines


def _place_lines(found: Survey) -> list[str]:
    """Where prompts, ids and criteria were found beyond the format's own keys."""
    lines = []
    own = "id" if found.format == "evals-json" else "name"
    if found.without_id:
        lines.append(
            f"  {plural(found.without_id, 'case')} with no {own}: refused today; declare cases.id "
            + (f"({_counted(found.ids)} found)" if found.ids else '(a key, or "#" to number them)')
        )
    task_less = found.cases - found.case_keys["task"]
    if found.format == "yaml" and task_less and found.prompts:
        lines.append(
            f"  {plural(task_less, 'case')} with no task but {_counted(found.prompts)}: refused today; "
            "declare cases.prompt"
        )
    lines += [f"  no prompt key found: {shown}" for shown in found.no_prompt]
    if found.prose:
        lines.append(
            f"Statements of success (prose criteria, proposed in the draft): {_counted(found.prose)}"
        )
    if found.needles:
        lines.append(
            f"Lists of words to find (checks once you say whether letter case matters): "
            f"{_counted(found.needles)}"
        )
    return lines


def _counted(counter: Counter[str]) -> str:
    return ", ".join(f'"{key}" ({count})' for key, count in counter.most_common())


def _list_name(where: str) -> str:
    return (
        "(the file is a list)" if where == WHOLE_FILE else (where if where.startswith("(") else f'"{where}"')
    )


def _list_today(found: Survey, where: str) -> str:
    """What import does with these files today: said "imported" only of files it imports."""
    files, imports = found.lists[where], found.imports[where]
    if imports == files:
        return "imported today"
    own = where in ("evals", ONE_CASE)
    if imports == 0:
        return "refused today (lint says why)" if own else f'refused today: declare cases.at: "{where}"'
    refused = f"{files - imports} of {files} refused today"
    return f"{imports} imported today, {refused}" + (
        " (lint says why)" if own else f': declare cases.at: "{where}"'
    )


def _key_today(fmt: str, key: str) -> str:
    own = {
        "evals-json": {
            "id": "the id",
            "prompt": "the prompt",
            "assertions": "criteria",
            "expectations": "criteria",
            "expected_output": "criteria when the case has no assertion list, else a note",
        },
        "yaml": {"name": "the id", "task": "the prompt", "judge_context": "criteria"},
    }[fmt]
    return own.get(key, "note")
