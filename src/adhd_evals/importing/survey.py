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

import io
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..files import walk
from ..text import plural, printable
from .dialect import VOCABULARY, WHOLE_FILE
from .formats._common import compact, jsonable
from .formats._evals_json_asserts import documented_kind
from .formats._evals_json_cases import _PROMPT_LOOKALIKES, LIST_KEYS
from .formats._typed import shape_of
from .formats.evals_json import _OTHER_SHAPES
from .model import Refusal, RefusalCode
from .sourcetext import Lines, decode_utf8, read_bytes

# Where case lists are looked for, in this order, before any list of objects.
_LIST_KEYS = ("evals", *_OTHER_SHAPES)
_TEXT_KEYS = ("text", "description", "criterion", "name", "title")
_NOT_READ = RefusalCode.FILE_UNREADABLE  # survey lists such files; it never stops for them


@dataclass
class Shape:
    """One assertion-object shape: its type/kind value and its key set."""

    selector: dict[str, Any]  # {"type": "contains"}, or {} when it has neither
    keys: tuple[str, ...]
    count: int = 0
    example: str = ""
    today: str = ""
    found_in: Counter[str] = field(default_factory=Counter)

    @property
    def label(self) -> str:
        selector = shape_of(self.selector) if self.selector else "(no type or kind)"
        return f"{selector} with keys {{{', '.join(self.keys)}}}"


@dataclass
class Survey:
    format: str
    files: list[str] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    no_list: list[str] = field(default_factory=list)
    lists: Counter[str] = field(default_factory=Counter)  # where the case list is: files
    list_cases: Counter[str] = field(default_factory=Counter)
    cases: int = 0
    case_keys: Counter[str] = field(default_factory=Counter)
    lookalike_prompts: Counter[str] = field(default_factory=Counter)  # cases with no prompt
    without_id: int = 0
    imports: Counter[str] = field(default_factory=Counter)  # where the case list is: files that import today
    strings: int = 0
    shapes: dict[tuple[str, tuple[str, ...]], Shape] = field(default_factory=dict)
    prompts: Counter[str] = field(default_factory=Counter)  # prompt-like paths: cases holding each
    no_prompt: list[str] = field(default_factory=list)  # files with a case holding none
    ids: Counter[str] = field(default_factory=Counter)  # id-like paths (yaml): cases holding each
    prose: Counter[str] = field(default_factory=Counter)  # keys holding statements of success
    needles: Counter[str] = field(default_factory=Counter)  # keys holding lists of words to find


# ---- reading --------------------------------------------------------------------


def survey(fmt: str, sources: list[Path], displays: list[str] | None = None) -> Survey:
    from .importer import collector_paused

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


def _case_list(data: Any) -> tuple[str | None, list[dict[str, Any]]]:
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
    from .formats import yaml_cases

    text = decode_utf8(read_bytes(path, shown), shown, _NOT_READ, "is not UTF-8 text")
    root = yaml_cases._compose(text, shown)
    data = jsonable(yaml_cases._construct(text, root, shown))
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
        line = lambda inner, b=base: _where(shown, yaml_cases.locate_node(root, (*b, *inner))[0])  # noqa: E731
        missing += _case(found, case, line)
    if missing:
        found.no_prompt.append(shown)


ONE_CASE = "(one case per file)"


def _yaml_cases(data: Any) -> tuple[str | None, list[dict[str, Any]]]:
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


def _case(found: Survey, case: dict[str, Any], where: Any) -> bool:
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


def prompt_paths(case: dict[str, Any]) -> list[str]:
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


def id_paths(case: dict[str, Any]) -> list[str]:
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


def needle_places(case: dict[str, Any]) -> list[str]:
    """Lists of words to find (`must_contain`, `expected.output_contains`): checks that need a
    person to say whether letter case matters, so the draft names them and leaves them out."""
    found = [k for k, v in case.items() if _needle_name(k) and _texts(v)]
    for key, value in case.items():
        if isinstance(value, dict):
            found += [f"{key}.{k}" for k, v in value.items() if _needle_name(k) and _texts(v)]
    return found


def _needle_name(key: str) -> bool:
    return any(word in key for word in _NEEDLE_WORDS)


def _shape(found: Survey, key: str, item: dict[str, Any], where: Any) -> None:
    selector: dict[str, Any] = next(
        ({k: item[k]} for k in ("type", "kind") if k in item and _scalar(item[k])), {}
    )
    keys = tuple(sorted(map(str, item)))
    ident = (json.dumps(selector, sort_keys=True), keys)
    shape = found.shapes.get(ident)
    if shape is None:
        shape = found.shapes[ident] = Shape(selector, keys, example=where(), today=_today(key, item))
    shape.count += 1
    shape.found_in[key] += 1


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _today(key: str, item: dict[str, Any]) -> str:
    if key not in LIST_KEYS:
        return "note (outside the assertion list)"
    if documented_kind(item) is not None:
        return "converted (the documented content_contains_* kind)"
    if "text" in item:
        return "placeholder (its text is the criterion)"
    return "placeholder (the object verbatim)"


# ---- the report -----------------------------------------------------------------


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


# ---- the draft dialect ------------------------------------------------------------


def draft(found: Survey, existing: str | None) -> tuple[str, int, int]:
    """The dialect file's text, how many entries this run added, and how many of those leave
    a choice open (import refuses the file until a person makes it)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    yaml = YAML(typ="rt")
    yaml.indent(mapping=2, sequence=4, offset=2)
    tree = yaml.load(existing) if existing is not None else None
    if tree is None:
        tree = _new_tree(found)
    rules = tree.get("assertions")
    if rules is None:
        rules = tree["assertions"] = CommentedSeq()
    covered = [_covers(entry) for entry in rules if isinstance(entry, dict)]
    added = opened = 0
    for shape in sorted(found.shapes.values(), key=lambda s: (-s.count, s.label)):
        ident = _ident(shape)
        if ident is None or ident in covered or shape.today.startswith("converted"):
            continue
        covered.append(ident)
        entry = _entry(shape, CommentedMap)
        rules.append(entry)
        opened += entry["check"] is None
        rules.yaml_set_comment_before_after_key(len(rules) - 1, before=_about(found, shape), indent=2)
        added += 1
    stream = io.StringIO()
    yaml.dump(tree, stream)
    return stream.getvalue(), added, opened


_PROSE_KEYS = frozenset({"text", "id"})  # {text} and {id, text} are prose: no rule to draft


def _ident(shape: Shape) -> str | None:
    """What a rule for this shape matches on: its type/kind, or (type-less) its keys."""
    if shape.selector:
        return json.dumps(shape.selector, sort_keys=True)
    if set(shape.keys) <= _PROSE_KEYS:
        return None
    return "has " + json.dumps(sorted(shape.keys))


def _covers(entry: Any) -> str:
    when = entry.get("when")
    if when is None and entry.get("has"):
        return "has " + json.dumps(sorted(str(k) for k in entry["has"]))
    return json.dumps(_plain(when), sort_keys=True)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value if _scalar(value) else str(value)


def _new_tree(found: Survey) -> Any:
    from ruamel.yaml.comments import CommentedMap

    tree = CommentedMap()
    tree["adhd-evals-dialect"] = 1
    tree["format"] = found.format
    tree.yaml_set_start_comment(
        f"Draft dialect written by 'adhd-evals survey' from {plural(len(found.files), 'file')}.\n"
        "Each typed assertion shape below is one rule. A shape named like a check of the vocabulary\n"
        f"({', '.join(VOCABULARY)})\n"
        "leaves its check and, for a check that compares text, whether letter case matters open\n"
        "(case: sensitive | insensitive): until each is chosen, 'import --dialect' refuses this\n"
        "file. Any other shape is drafted as unwritten (a placeholder, as import does without a\n"
        "dialect): choose a check there if one means what it does.\n"
        "Running survey again into this file keeps what you wrote and adds only new shapes."
    )
    cases = _draft_cases(found)
    if cases:
        tree["cases"] = cases
    return tree


def _draft_cases(found: Survey) -> Any:
    from ruamel.yaml.comments import CommentedMap

    cases = CommentedMap()
    outside = sorted(
        {
            key
            for shape in found.shapes.values()
            if shape.selector
            for key in shape.found_in
            if key not in (*LIST_KEYS, "judge_context")
        }
    )
    if outside:
        cases["criteria"] = outside
        cases.yaml_add_eol_comment(
            "case keys holding typed objects; keep those that are criteria", "criteria"
        )
    prose = [key for key, _ in found.prose.most_common() if key not in outside]
    if prose:
        cases["criteria"] = [*outside, *prose]
        cases.yaml_add_eol_comment(
            "case keys holding typed objects or stating success as prose; keep those that are criteria",
            "criteria",
        )
    if found.format != "evals-json":
        return _draft_yaml(found, cases)
    places = [where for where, _ in found.lists.most_common()]
    if places and places != ["evals"]:
        cases["at"] = places
        cases.yaml_add_eol_comment(
            "where the case list is, in the files surveyed; keep the ones you mean", "at"
        )
    if found.lookalike_prompts:
        cases["prompt"] = ["prompt", *(k for k, _ in found.lookalike_prompts.most_common())]
        cases.yaml_add_eol_comment("keys that held the prompt in cases without one; check each", "prompt")
    if found.without_id:
        cases["id"] = ["id", "#"]
        cases.yaml_add_eol_comment('"#" numbers cases with no id in file order', "id")
    _needle_comment(found, cases)
    return cases


def _draft_yaml(found: Survey, cases: Any) -> Any:
    """yaml: where the case lists are, the prompt and id keys when not `task` and `name`."""
    places = [where for where, _ in found.lists.most_common() if where != ONE_CASE]
    if places:
        cases["at"] = places
        note = "where the case list is"
        if found.lists[ONE_CASE]:  # some files are one case each: the list's files and these differ
            note += f"; {plural(found.lists[ONE_CASE], 'file')} of one case each would be refused"
        cases.yaml_add_eol_comment(note, "at")
    if found.cases - found.case_keys["task"] and found.prompts:
        own = ["task"] if found.case_keys["task"] else []
        cases["prompt"] = [*own, *(k for k, _ in found.prompts.most_common() if k != "task")]
        cases.yaml_add_eol_comment(
            "keys that held text in cases without task; the first a case has is used", "prompt"
        )
    if found.without_id:
        own = ["name"] if found.case_keys["name"] else []
        numbered = ["#"] if places else []
        cases["id"] = [*own, *(k for k, _ in found.ids.most_common() if k != "name"), *numbered]
        cases.yaml_add_eol_comment("keys that held an id in cases without name", "id")
    _needle_comment(found, cases)
    return cases


def _needle_comment(found: Survey, cases: Any) -> None:
    """Lists of words to find become checks only once a person says whether letter case
    matters: named in a comment above the draft's first case key (printable: the keys come
    from the files), not drafted as an entry, so the draft imports as it is."""
    if not found.needles or not cases:
        return
    keys = printable(", ".join(key for key, _ in found.needles.most_common()))
    cases.yaml_set_comment_before_after_key(
        next(iter(cases)),
        before=f"Lists of words to find: {keys}. To check them, add to criteria e.g.\n"
        "{at: KEY, check: contains, case: sensitive} (or insensitive: letter case is yours to decide).",
        indent=2,
    )


def _entry(shape: Shape, mapping: Any) -> Any:
    name = next(iter(shape.selector.values()), None)
    if name not in VOCABULARY or name == "unwritten":
        return _placeholder_entry(shape, mapping)
    entry = mapping()
    _selector(entry, shape, mapping)
    entry["check"] = None
    # a name in the vocabulary is one of ours: nothing from the file reaches a comment
    entry.yaml_add_eol_comment(f"perhaps {name}, if it means what the vocabulary's {name} does", "check")
    rest = [k for k in shape.keys if k not in shape.selector and k not in (*_TEXT_KEYS, "id")]
    entry["needle"] = rest[0] if len(rest) == 1 else None
    if len(rest) != 1:
        entry.yaml_add_eol_comment(
            "the key holding the argument: one of " + printable(", ".join(rest))
            if rest
            else "no key left: is_json or unwritten?",
            "needle",
        )
    entry["case"] = None
    entry.yaml_add_eol_comment("sensitive | insensitive (not needed for counts, is_json, unwritten)", "case")
    text_key = next((k for k in _TEXT_KEYS if k in shape.keys), None)
    if text_key is not None:
        entry["criterion"] = text_key
    return entry


def _placeholder_entry(shape: Shape, mapping: Any) -> Any:
    """A shape no vocabulary check is named by: a placeholder carrying the object (what import
    does without a dialect), its rubric text the first text key it has ({name, description}:
    the description). Choosing a check instead is the person's; nothing is left open."""
    entry = mapping()
    _selector(entry, shape, mapping)
    entry["check"] = "unwritten"
    entry.yaml_add_eol_comment("a placeholder carrying the object; or choose a check", "check")
    text_key = next((k for k in _TEXT_KEYS if k in shape.keys), None)
    if text_key is not None:
        entry["criterion"] = text_key
    return entry


def _selector(entry: Any, shape: Shape, mapping: Any) -> None:
    if shape.selector:
        when = mapping(shape.selector)
        when.fa.set_flow_style()
        entry["when"] = when
    else:  # no type key: the object is told by its keys (rules are tried in file order)
        from ruamel.yaml.comments import CommentedSeq

        has = CommentedSeq(shape.keys)
        has.fa.set_flow_style()
        entry["has"] = has


def _about(found: Survey, shape: Shape) -> str:
    """Two comment lines. Their text comes from the files (keys, values, file names), so each
    is made printable: a newline, U+2028 or a control in a key would end the comment early and
    leave a draft that does not read back as YAML."""
    example = compact({k: shape.selector.get(k, "...") for k in shape.keys})
    first = printable(f"{plural(shape.count, 'object')} like {example}, e.g. {shape.example}")
    return f"{first}\n{printable(f'today: {shape.today}')}"
