"""Paths in a case (`inputs.prompt`, `assertions[].value`) and in a dialect file: reached,
walked, located and written in words; what the readers ask of a dialect's places."""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled one by
# one at import, on every lint and import (see model.py).
import functools
import re
from collections.abc import Iterator
from typing import Any, NamedTuple


def path_text(path: tuple[Any, ...]) -> str:
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text or "(top level)"


def _has(tree: Any, path: tuple[Any, ...]) -> bool:
    try:
        _at(tree, path)
    except (KeyError, IndexError, TypeError):
        return False
    return True


def _at(tree: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        tree = tree[step]
    return tree


def position(tree: Any, path: tuple[Any, ...]) -> tuple[int | None, int | None]:
    """1-based line and column of the deepest node along `path` (ruamel's marks)."""
    line = column = None
    node = tree
    for depth, step in enumerate(path, 1):
        lc = getattr(node, "lc", None)
        try:
            if lc is not None and isinstance(node, dict):  # a key on the way, its value at the end
                line, column = lc.value(step) if depth == len(path) else lc.key(step)
            elif lc is not None:
                line, column = lc.item(step)
            node = node[step]
        except (KeyError, IndexError, TypeError):
            break
    if line is None and getattr(tree, "lc", None) is not None:
        line, column = tree.lc.line, tree.lc.col
    return (line + 1 if line is not None else None), (column + 1 if column is not None else None)


_CAN_FAIL = frozenset("\\()[]{}?*+")


def regex_problem(pattern: str) -> str | None:
    """Why Python's `re` cannot compile `pattern` (None when it can)."""
    if not _CAN_FAIL.intersection(pattern):  # literal text, ^, $, . and | always compile
        return None
    try:
        re.compile(pattern)
    except re.error as exc:
        where = f" at position {exc.pos}" if exc.pos is not None else ""
        return f"{exc.msg}{where}"
    except (RecursionError, OverflowError, ValueError) as exc:
        return str(exc) or type(exc).__name__
    return None


def reach(case: Any, path: str) -> tuple[bool, Any]:
    """(found, value) at a dotted path of plain keys (`inputs.prompt`); one dict lookup for a plain key."""
    if "." not in path:
        if isinstance(case, dict) and path in case:
            return True, case[path]
        return False, None
    value = case
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            return False, None
        value = value[key]
    return True, value


def stopped(case: Any, path: str) -> str:
    """Where a dotted path stopped, in words: "inputs has no key prompt", "inputs is a string"."""
    value, walked = case, ""
    for key in path.split("."):
        if not isinstance(value, dict):
            return f"{walked} is {_type(value)}, not an object with a key {key}"
        if key not in value:
            return f"{walked} has no key {key}" if walked else f"no key {key}"
        value, walked = value[key], f"{walked}.{key}" if walked else key
    return f"{walked} is there"


def _type(value: Any) -> str:
    """A JSON value's type in words (its text is shown beside it)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    return "a string" if isinstance(value, str) else "a list"


class Stop(NamedTuple):
    """Where a criteria path could not go on: the path so far, and what was there."""

    at: tuple[str | int, ...]
    value: Any
    why: str


def walk(case: dict[str, object], path: str) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """The values a criteria path names in a case: `a.b` nests, `k[]` walks a list."""
    for at, value in trace(case, path):
        if not isinstance(value, Stop):
            yield at, value


@functools.lru_cache(maxsize=256)
def steps(path: str) -> tuple[tuple[str, bool], ...]:
    """A criteria path's keys, each with whether it walks a list (`k[]`)."""
    return tuple((part[:-2], True) if part.endswith("[]") else (part, False) for part in path.split("."))


def trace(case: dict[str, object], path: str) -> list[tuple[tuple[str | int, ...], Any]]:
    """What a criteria path reaches, and where it stopped: a value per place reached, or a
    `Stop` for each item or object the path could not walk through (a string where
    `rubric[].pass_if` expects an object, a list item without the key). Outside a walked
    list nothing stops: a case without the path does not use this place at all."""
    walked = steps(path)
    short = _short_trace(case, walked)
    if short is not None:
        return short
    found: list[tuple[tuple[str | int, ...], Any]] = [((), case)]
    for key, spread in walked:
        found = [reached for at, value in found for reached in _step(at, value, key, spread)]
    return found


def _short_trace(
    case: dict[str, object], walked: tuple[tuple[str, bool], ...]
) -> list[tuple[tuple[str | int, ...], Any]] | None:
    """The common places without the general walk: one key, one list, or `a.b` one object
    down (None: walk it)."""
    if len(walked) == 1:
        key, spread = walked[0]
        if key not in case:
            return []
        child = case[key]
        if spread and type(child) is list:
            return [((key, i), item) for i, item in enumerate(child)]
        return [((key,), child)]
    if len(walked) == 2 and not walked[0][1] and not walked[1][1]:
        (first, _), (second, _) = walked
        outer = case.get(first)
        if type(outer) is dict:
            return [((first, second), outer[second])] if second in outer else []
    return None


def _step(
    at: tuple[str | int, ...], value: Any, key: str, spread: bool
) -> list[tuple[tuple[str | int, ...], Any]]:
    """One place walked one key further: what it reaches there, or where it stops."""
    if isinstance(value, Stop):
        return [(at, value)]
    if isinstance(value, dict) and key in value:
        child = value[key]
        if spread and isinstance(child, list):
            return [((*at, key, i), item) for i, item in enumerate(child)]
        return [((*at, key), child)]
    if not any(type(s) is int for s in at):
        # Not inside a walked list: the case does not use this place, and the
        # key the path started from is left to the format (read there, or a note).
        return []
    if isinstance(value, dict):
        return [(at, Stop(at, value, f"no key {key}"))]
    return [(at, Stop(at, value, f"{_type(value)}, not an object with a key {key}"))]
