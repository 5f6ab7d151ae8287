"""YAML task files: one case per file, `name` and `task` required.

`task` is the prompt verbatim, `name` slugged is the id, every
`judge_context` entry is a placeholder, `max_steps` and any other key are
notes (dates kept as the text that was written). A directory imports its
`*.yaml` / `*.yml` files sorted by name; the first bad file stops it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..dialect import CaseShape, Dialect
from ..model import Case, Check, Note, Refusal, RefusalCode, describe
from ..sourcetext import decode_utf8, read_bytes, too_long_number
from ._common import (
    ReadOptions,
    Refuser,
    actual_of,
    collecting,
    compact,
    jsonable,
    no_criteria_placeholder,
    note,
    placeholder,
    require_text,
    slug,
    strict,
    text_problem,
)
from ._typed import converted, criteria_checks, is_typed, passed_by, shape_of

NAME = "yaml"
SUFFIXES = (".yaml", ".yml")
MAX_DEPTH = 100  # libyaml's composer recurses in C: past a few thousand it crashes
MAX_NODES = 100_000  # what aliases may expand to (a "billion laughs" stops here)
_CONFLICT = re.compile(r"^(<{7}|={7}|>{7})(?:[ \t].*)?\r?$", re.MULTILINE)
NOT_YAML = "is not YAML"
NOT_CASE = "is not a YAML case file"


class _Loader(yaml.CSafeLoader):
    """PyYAML's C loader, refusing duplicate keys and keeping dates as written."""

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[tuple[str, str]] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                key = (key_node.tag, key_node.value)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f'duplicate key "{key_node.value}"', key_node.start_mark
                    )
                seen.add(key)
        return super().construct_mapping(node, deep)


def _as_written(loader: yaml.SafeLoader, node: ScalarNode) -> str:
    return str(node.value)


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _as_written)
_Loader.add_constructor("tag:yaml.org,2002:binary", _as_written)


def _read(
    source: Path, display: str, options: ReadOptions, collect: bool
) -> tuple[list[Case], list[Refusal], bool]:
    files, shown = _files(source, display)
    folder = source if source.is_dir() else source.resolve().parent
    category = options.category if options.category is not None else folder.name or "yaml"
    cases: list[Case] = []
    refusals: list[Refusal] = []
    owner: dict[str, str] = {}
    for path, name in zip(files, shown, strict=True):
        try:
            case = _read_file(path, name, category, options.risk, options.dialect)
            if case.id in owner:
                raise _collision(case.id, name, owner[case.id])
        except Refusal as refusal:
            if not collect:
                raise  # the first bad file stops an import, by name
            refusals.append(refusal)
            continue
        owner[case.id] = name
        cases.append(case)
    return cases, refusals, True  # YAML has escapes of its own: every text is checked


def _collision(case_id: str, name: str, other: str) -> Refusal:
    return Refusal(
        RefusalCode.NOT_YAML_CASE,
        name,
        NOT_CASE,
        case=f'case "{case_id}"',
        field_path="name",
        expected="a name whose id no other file has",
        actual=f'the id "{case_id}", which {other} has too',
    )


def colliding_names(read: list[tuple[Path, str]]) -> list[Refusal]:
    """For lint, which reads a folder's case files one by one: names that slug alike,
    from the (file, case id) pairs its reading found (no file is parsed twice)."""
    owner: dict[str, str] = {}
    found = []
    for path, case_id in sorted(read, key=lambda pair: pair[0].name):
        if case_id in owner:
            found.append(_collision(case_id, str(path), owner[case_id]))
        else:
            owner[case_id] = str(path)
    return found


read = strict(_read, RefusalCode.NOT_YAML_CASE, NOT_CASE)  # the import: the first refusal stops it
problems = collecting(
    _read, RefusalCode.NOT_YAML_CASE, NOT_CASE
)  # lint: every bad file of a directory, not only the first


def _files(source: Path, display: str) -> tuple[list[Path], list[str]]:
    if not source.is_dir():
        if not source.exists():
            raise Refusal(
                RefusalCode.FILE_UNREADABLE, display, "cannot be read", actual="no such file or directory"
            )
        return [source], [display]
    try:
        entries = sorted(source.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        raise Refusal(
            RefusalCode.DIRECTORY_UNREADABLE, display, "cannot be listed", actual=exc.strerror or str(exc)
        ) from exc
    # A link is not followed (as lint's walk does not): what it names inside the folder is
    # there already, and what lies outside it is not this folder's case.
    files = [p for p in entries if p.suffix.lower() in SUFFIXES and not p.is_symlink() and p.is_file()]
    if not files:
        raise Refusal(
            RefusalCode.DIRECTORY_EMPTY,
            display,
            "has nothing to import",
            expected="at least one *.yaml or *.yml file",
            actual="none",
        )
    return files, [str(Path(display) / p.name) for p in files]


def _read_file(path: Path, display: str, category: str, risk: str, dialect: Dialect | None = None) -> Case:
    text = decode_utf8(read_bytes(path, display), display, RefusalCode.NOT_YAML, NOT_YAML)
    _refuse_conflict_markers(text, display)
    root = _compose(text, display)
    refuse = Refuser(RefusalCode.NOT_YAML_CASE, display, NOT_CASE, lambda at: locate_node(root, at))
    data = _construct(text, root, display)
    if not isinstance(data, dict):
        raise refuse(
            field_path="(top level)", expected="a mapping with name and task", actual=describe(jsonable(data))
        )
    return _case(refuse, data, category, risk, display, dialect)


def _refuse_conflict_markers(text: str, display: str) -> None:
    if "<<<<<<<" in text or ">>>>>>>" in text or "=======" in text:
        match = _CONFLICT.search(text)
        if match:
            line = text.count("\n", 0, match.start()) + 1
            raise Refusal(
                RefusalCode.NOT_YAML,
                display,
                NOT_YAML,
                actual=f"a merge-conflict marker {match.group(1)}",
                line=line,
                column=1,
                hint="resolve the merge conflict, then import again",
            )


def _yaml_refusal(display: str, exc: yaml.YAMLError) -> Refusal:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    if getattr(exc, "context", None) == "expected a single document in the stream":
        problem = "a second YAML document; a case file holds one document"
    return Refusal(
        RefusalCode.NOT_YAML,
        display,
        NOT_YAML,
        actual=problem,
        line=mark.line + 1 if mark else None,
        column=mark.column + 1 if mark else None,
    )


def _compose(text: str, display: str, loader_class: type[yaml.CSafeLoader] = _Loader) -> Node:
    """One YAML document's node tree, within the bounds on nesting and aliases, or a refusal
    by position; `loader_class` decides how scalars resolve (promptfoo's configs use YAML 1.2's
    core schema, as js-yaml does)."""
    if _nesting_bound(text) > MAX_DEPTH and _nesting(text) > MAX_DEPTH:
        raise Refusal(
            RefusalCode.NOT_YAML,
            display,
            NOT_YAML,
            expected=f"nesting at most {MAX_DEPTH} levels deep",
            actual="deeper",
        )
    loader = loader_class(text)
    try:
        root = loader.get_single_node()
    except yaml.YAMLError as exc:
        raise _yaml_refusal(display, exc) from exc
    finally:
        loader.dispose()
    if root is None:
        raise Refusal(
            RefusalCode.FILE_EMPTY,
            display,
            "has nothing to import",
            expected="one YAML document",
            actual="none",
        )
    if "*" in text and _expanded_size(root) > MAX_NODES:
        raise Refusal(
            RefusalCode.NOT_YAML,
            display,
            NOT_YAML,
            expected=f"aliases that expand to at most {MAX_NODES} nodes",
            actual="more (a recursive or exponential alias)",
        )
    return root


def _nesting_bound(text: str) -> int:
    """A cheap upper bound: every level needs one of these indicator characters."""
    return sum(text.count(ch) for ch in "[{-:?") + 1


def _nesting(text: str) -> int:
    """The exact depth up to MAX_DEPTH + 1, from libyaml's event stream (iterative, no
    recursion). It stops reading there: past that the answer is known, and an older libyaml
    (PyYAML 6.0's) takes time quadratic in the depth to read the rest (26 s at 80,000)."""
    depth = deepest = 0
    try:
        for event in yaml.parse(text, Loader=yaml.CSafeLoader):
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                deepest = max(deepest, depth)
                if deepest > MAX_DEPTH:
                    break
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    except yaml.YAMLError:
        pass  # the composer reports the syntax error with its position
    return deepest


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _expanded_size(root: Node) -> int:
    """Node count with every alias expanded, memoized; a cycle counts as too many."""
    sizes: dict[int, int] = {}
    entered: set[int] = set()  # entered, not finished: reaching one again is a cycle
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        if not children_done:
            if id(node) in entered:
                continue  # its parent will count it as too many
            entered.add(id(node))
            stack.append((node, True))
            stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
            continue
        total = 1 + sum(sizes.get(id(child), MAX_NODES + 1) for child in _children(node))
        sizes[id(node)] = total
        if total > MAX_NODES:
            return total
    return sizes[id(root)]


def _construct(text: str, root: Node, display: str) -> Any:
    loader = _Loader("")
    try:
        return loader.construct_document(root)
    except yaml.YAMLError as exc:
        raise _yaml_refusal(display, exc) from exc
    except RecursionError as exc:
        raise Refusal(RefusalCode.NOT_YAML, display, NOT_YAML, actual="nesting too deep to read") from exc
    except ValueError as exc:  # a whole number past Python's digit limit
        raise _long_number(text, root, display, exc) from exc
    finally:
        loader.dispose()


def _long_number(text: str, root: Node, display: str, exc: ValueError) -> Refusal:
    """Name the scalar whose digits Python refuses, by its key path and position."""
    stack: list[tuple[Node, str]] = [(root, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, ScalarNode) and node.tag.endswith(":int") and len(node.value) > 4300:
            return Refusal(
                RefusalCode.NOT_YAML,
                display,
                NOT_YAML,
                field_path=path or "(top level)",
                actual=too_long_number(node.value, exc),
                line=node.start_mark.line + 1,
                column=node.start_mark.column + 1,
            )
        if isinstance(node, MappingNode):
            stack += [(v, f"{path}.{k.value}" if path else str(k.value)) for k, v in reversed(node.value)]
        elif isinstance(node, SequenceNode):
            stack += [(v, f"{path}[{i}]") for i, v in reversed(list(enumerate(node.value)))]
    return Refusal(RefusalCode.NOT_YAML, display, NOT_YAML, actual=str(exc))


def locate_node(root: Node, at: tuple[str | int, ...]) -> tuple[int | None, int | None]:
    node = root
    for step in at:
        child = None
        if isinstance(node, MappingNode) and isinstance(step, str):
            child = next((v for k, v in node.value if isinstance(k, ScalarNode) and k.value == step), None)
        elif isinstance(node, SequenceNode) and isinstance(step, int) and step < len(node.value):
            child = node.value[step]
        if child is None:
            break
        node = child
    return node.start_mark.line + 1, node.start_mark.column + 1


def _case(
    refuse: Refuser,
    data: dict[Any, Any],
    category: str,
    risk: str,
    display: str,
    dialect: Dialect | None = None,
) -> Case:
    shape = dialect.cases if dialect is not None else CaseShape()
    name_key = next((k for k in shape.id if k in data), (shape.id or ("name",))[0])
    case_id, label = _case_id(refuse, data, name_key)
    task_key = next((k for k in shape.prompt if k in data), (shape.prompt or ("task",))[0])
    prompt = require_text(refuse, data, task_key, case=label, at=(task_key,))
    checks, empty = _judge_context(refuse, data, label)
    notes: list[Note] = []
    roots: set[str] = set()
    skipped: list[str] = []
    if dialect is not None and dialect.cases.criteria:
        plain = jsonable(data)
        found = criteria_checks(
            refuse,
            plain,
            dialect,
            label,
            (),
            lambda item, path, where: _item(refuse, dialect, item, label, path, where),
        )
        more, notes, roots, skipped = found.checks, found.notes, found.roots, found.skipped
        notes += passed_by(refuse, plain, roots, found.consumed, label, ())
        if more:  # the no-criteria placeholder gives way to what the dialect found
            checks, empty = ([] if empty else checks) + more, False
    taken = {name_key, task_key, "judge_context", *roots}
    notes += [_note(refuse, key, value, label) for key, value in data.items() if key not in taken]
    return Case(
        case_id,
        category,
        prompt,
        risk,
        tuple(checks),
        tuple(notes),
        origin=display,
        had_no_criteria=empty,
        skipped=tuple(skipped),
    )


def _case_id(refuse: Refuser, data: dict[Any, Any], key: str) -> tuple[str, str]:
    """The id (the name, slugged) and the case's label for messages."""
    name = require_text(refuse, data, key, case="(file)", at=(key,))
    label = f'case "{name}"'
    case_id = slug(name)
    if not case_id:
        raise refuse(
            case=label,
            field_path=key,
            at=(key,),
            expected="a name with at least one letter or digit",
            actual=describe(name),
        )
    return case_id, label


_STEPS_REMARK = "a step budget for agent runs; adhd-evals does not enforce it"


def _note(refuse: Refuser, key: Any, value: Any, label: str) -> Note:
    if key == "max_steps" and (not isinstance(value, int) or isinstance(value, bool)):
        raise refuse(
            case=label,
            field_path="max_steps",
            at=("max_steps",),
            expected="an integer",
            actual=describe(jsonable(value)),
        )
    shown = key if isinstance(key, str) else describe(jsonable(key))
    remark = _STEPS_REMARK if key == "max_steps" else ""
    return note(refuse, shown, jsonable(value), case=label, at=(shown,), remark=remark)


def _judge_context(refuse: Refuser, data: dict[Any, Any], label: str) -> tuple[list[Check], bool]:
    items = data.get("judge_context")
    if items is None or items == []:
        return [no_criteria_placeholder()], True
    if not isinstance(items, list):
        raise refuse(
            case=label,
            field_path="judge_context",
            at=("judge_context",),
            expected="a list of strings",
            actual=actual_of(data, "judge_context"),
        )
    checks = []
    for position, item in enumerate(items):
        problem = text_problem(item)
        if problem:
            raise refuse(
                case=label,
                field_path=f"judge_context[{position}]",
                at=("judge_context", position),
                expected=problem,
                actual=describe(jsonable(item)),
            )
        checks.append(placeholder(item))
    return checks, False


def _item(
    refuse: Refuser, dialect: Dialect, item: Any, label: str, path: str, at: tuple[str | int, ...]
) -> tuple[Check, list[Note]]:
    """One criterion a dialect points at: prose, or an object through its rules."""
    if isinstance(item, dict):
        rule = dialect.match(item)
        if rule is not None:
            return converted(refuse, rule, item, label, path, at)
        if "text" in item and not is_typed(item) and not text_problem(item["text"]):
            return placeholder(item["text"], compact(item)), []
        return placeholder(compact(item), compact(item))._replace(via=shape_of(item)), []
    problem = text_problem(item)
    if problem:
        raise refuse(case=label, field_path=path, at=at, expected=problem, actual=describe(jsonable(item)))
    return placeholder(item), []
