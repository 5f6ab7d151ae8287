"""YAML read safely: merge-conflict markers refused, nesting and alias expansion bounded before
libyaml sees them, scalars kept as written, and every node's position for refusals."""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..model import Refusal, RefusalCode
from ..sourcetext import too_long_number

MAX_DEPTH = 100  # libyaml's composer recurses in C: past a few thousand it crashes


MAX_NODES = 100_000  # what aliases may expand to (a "billion laughs" stops here)


_CONFLICT = re.compile(r"^(<{7}|={7}|>{7})(?:[ \t].*)?\r?$", re.MULTILINE)


NOT_YAML = "is not YAML"


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
