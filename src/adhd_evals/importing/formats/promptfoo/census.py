"""`survey --format promptfoo`: the shapes a team's configs use and their assertion types, counted.

promptfoo's meaning is promptfoo's own (no dialect can change it), so this
survey drafts nothing: it says what the configs hold and what the import
does with each assertion type today.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ....files import walk
from ....text import plural
from ...model import Refusal
from . import NAME
from .asserts import KNOWN, PROSE
from .config import CONFIG_NAMES, _load_structured
from .prompts import maybe_file_path

_MECHANICAL = (
    "equals",
    "contains",
    "icontains",
    "contains-any",
    "icontains-any",
    "contains-all",
    "icontains-all",
    "regex",
    "starts-with",
    "is-json",
)


def configs(sources: list[Path]) -> list[Path]:
    found: list[Path] = []
    for source in sources:
        if source.is_dir():
            found += [
                p
                for p in walk(source)
                if p.name in CONFIG_NAMES or (p.name.endswith((".yaml", ".yml")) and _is_config(p))
            ]
        else:
            found.append(source)
    return found


def _is_config(path: Path) -> bool:
    from ...catalogue import format_of

    return format_of(path, explicit=False) == NAME


def census(sources: list[Path]) -> tuple[Counter[str], Counter[str], list[str]]:
    """(shapes, assertion types, unreadable files)."""
    shapes: Counter[str] = Counter()
    types: Counter[str] = Counter()
    unreadable: list[str] = []
    for path in configs(sources):
        try:
            data, _ = _load_structured(path, str(path))
        except Refusal as refusal:
            unreadable.append(refusal.message)
            continue
        if not isinstance(data, dict):
            unreadable.append(f"{path}: not a mapping")
            continue
        shapes["configs"] += 1
        _count(shapes, types, data)
    return shapes, types, unreadable


def _count(shapes: Counter[str], types: Counter[str], data: dict[str, object]) -> None:
    prompts = data.get("prompts")
    for prompt in prompts if isinstance(prompts, list) else [prompts]:
        if isinstance(prompt, dict):
            shapes["prompts: object {" + ", ".join(sorted(prompt)) + "}"] += 1
        elif isinstance(prompt, str):
            shapes["prompts: file" if maybe_file_path(prompt) else "prompts: inline text"] += 1
    tests = data.get("tests")
    for test in tests if isinstance(tests, list) else [tests] if tests is not None else []:
        if isinstance(test, str):
            shapes[f"tests: file ({Path(test).suffix or 'no extension'})"] += 1
        elif isinstance(test, dict):
            shapes["tests: inline"] += 1
            _asserts(types, test.get("assert"))
            if isinstance(test.get("vars"), dict) and "assert" in test["vars"]:
                shapes["tests: assert indented under vars"] += 1
    default = data.get("defaultTest")
    if isinstance(default, dict):
        shapes["defaultTest: {" + ", ".join(sorted(default)) + "}"] += 1
        _asserts(types, default.get("assert"))


def _asserts(types: Counter[str], asserts: object) -> None:
    for item in asserts if isinstance(asserts, list) else []:
        if isinstance(item, dict) and item.get("type") == "assert-set":
            types["assert-set"] += 1
            _asserts(types, item.get("assert"))
        elif isinstance(item, dict):
            types[str(item.get("type"))] += 1


def today(kind: str) -> str:
    base = kind.removeprefix("not-")
    if kind == "assert-set":
        return "flattened, its threshold a note"
    if base in _MECHANICAL:
        return "a mechanical check"
    if base in PROSE:
        return "a prose criterion"
    return "a placeholder" if base in KNOWN else "a placeholder (promptfoo rejects the type)"


def report(sources: list[Path]) -> list[str]:
    shapes, types, unreadable = census(sources)
    lines = [f"Surveyed {plural(shapes.pop('configs', 0), 'promptfoo config')}."]
    lines += ["Shapes:", *(f"  {shape}: {count}" for shape, count in shapes.most_common())]
    lines += [
        "Assertion types (count, what the import makes of it):",
        *(f"  {kind}: {count}, {today(kind)}" for kind, count in types.most_common()),
    ]
    lines += [f"Not read: {message}" for message in unreadable]
    return lines
