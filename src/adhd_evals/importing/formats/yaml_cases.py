"""YAML task files: one case per file, `name` and `task` required.

`task` is the prompt verbatim, `name` slugged is the id, every
`judge_context` entry is a placeholder, `max_steps` and any other key are
notes (dates kept as the text that was written). A directory imports its
`*.yaml` / `*.yml` files sorted by name; the first bad file stops it.
"""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled one by
# one at import, on every lint and import (see model.py).
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..dialect_paths import reach, stopped
from ..dialect_words import NO_SHAPE, NUMBERED, WHOLE_FILE
from ..model import MISSING, Case, Check, LeftOut, Note, Refusal, RefusalCode, describe
from ..sourcetext import decode_utf8, read_bytes
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
    slug,
    strict,
    text_problem,
)
from ._typed import Reading, converted, criteria_checks, is_typed, passed_by, shape_of
from ._yaml_safe import (
    NOT_YAML,
    _compose,
    _construct,
    _refuse_conflict_markers,
    locate_node,
)

if TYPE_CHECKING:
    from ..dialect import Dialect
    from ..dialect_words import CaseShape

NAME = "yaml"


SUFFIXES = (".yaml", ".yml")


NOT_CASE = "is not a YAML case file"


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
            read = _read_file(path, name, category, options)
            for case in read:
                if case.id in owner:
                    raise _collision(case.id, name, owner[case.id])
                owner[case.id] = name
        except Refusal as refusal:
            if not collect:
                raise  # the first bad file stops an import, by name
            refusals.append(refusal)
            continue
        cases += read
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
    files = [p for p in entries if _case_file(p)]
    for folder in (p for p in entries if p.is_dir() and not p.is_symlink()):
        files += _one_down(folder)  # one folder per task (gevals): its files, one level only
    files.sort(key=lambda p: p.relative_to(source).as_posix())
    if not files:
        raise Refusal(
            RefusalCode.DIRECTORY_EMPTY,
            display,
            "has nothing to import",
            expected="at least one *.yaml or *.yml file",
            actual="none",
        )
    return files, [str(Path(display) / p.relative_to(source)) for p in files]


def _case_file(path: Path) -> bool:
    return path.suffix.lower() in SUFFIXES and not path.is_symlink() and path.is_file()


def _one_down(folder: Path) -> list[Path]:
    """A sub-folder's case files (none when it cannot be listed: it is not this folder's case)."""
    try:
        return [p for p in folder.iterdir() if _case_file(p)]
    except OSError:
        return []


def _read_file(path: Path, display: str, category: str, options: ReadOptions) -> list[Case]:
    """A file's cases: the file itself, or (with the dialect's `cases.at`) each item of its list."""
    text = decode_utf8(read_bytes(path, display), display, RefusalCode.NOT_YAML, NOT_YAML)
    _refuse_conflict_markers(text, display)
    root = _compose(text, display)
    refuse = Refuser(RefusalCode.NOT_YAML_CASE, display, NOT_CASE, lambda at: locate_node(root, at))
    data = _construct(text, root, display)
    dialect = options.dialect
    shape = dialect.cases if dialect is not None else NO_SHAPE
    if shape.at:
        items, where = _case_list(refuse, data, shape.at)
        found = []
        for index, raw in enumerate(items):
            spot = _Spot(category, options.risk, display, (*where, index), index)
            if not _skipped(refuse, raw, spot, shape, options):
                found.append(_case(refuse, raw, spot, dialect))
        beside = [
            note(refuse, f"(file) {key}", jsonable(value), case="(file)", at=(key,))
            for key, value in (jsonable(data).items() if isinstance(data, dict) else ())
            if (key,) != where
        ]
        if beside and found:  # keys beside the list travel with the first case (as in evals-json)
            found[0] = found[0]._replace(notes=(*beside, *found[0].notes))
        return found
    if not isinstance(data, dict):
        raise refuse(
            field_path="(top level)", expected="a mapping with name and task", actual=describe(jsonable(data))
        )
    spot = _Spot(category, options.risk, display)
    return [] if _skipped(refuse, data, spot, shape, options) else [_case(refuse, data, spot, dialect)]


class _Spot(NamedTuple):
    """Where one case sits: its file's category, risk and name, its path in the file, its index."""

    category: str
    risk: str
    display: str
    at: tuple[str | int, ...] = ()
    position: int | None = None  # in the file's case list (None: the file is the case)


def _case_list(refuse: Refuser, data: object, keys: tuple[str, ...]) -> tuple[list[object], tuple[str, ...]]:
    """The case list where the dialect's `cases.at` says ("." : the file is the list)."""
    for key in keys:
        if key == WHOLE_FILE and isinstance(data, list):
            where: tuple[str, ...] = ()
            items = data
        elif key != WHOLE_FILE and isinstance(data, dict) and key in data:
            where, items = (key,), data[key]
        else:
            continue
        shown = key if where else "(top level)"
        if not isinstance(items, list):
            raise refuse(
                field_path=shown, at=where, expected="a list of cases", actual=describe(jsonable(items))
            )
        if not items:
            raise refuse(
                code=RefusalCode.FILE_EMPTY,
                field_path=shown,
                at=where,
                expected="at least one case",
                actual="an empty list",
            )
        return items, where
    raise refuse(
        field_path="(top level)" if keys[0] == WHOLE_FILE or not isinstance(data, dict) else keys[0],
        expected="a case list at " + " or ".join(f'"{k}"' for k in keys) + " (as the dialect says)",
        actual=describe(jsonable(data)),
    )


def _skipped(refuse: Refuser, raw: object, spot: _Spot, shape: "CaseShape", options: ReadOptions) -> bool:
    """A case the dialect's `cases.skip` leaves out: remembered with its reason."""
    if not shape.skip or not isinstance(raw, dict):
        return False
    plain = jsonable(raw)
    entry = next((skip for skip in shape.skip if skip.matches(plain)), None)
    if entry is None:
        return False
    try:
        case_id, label = _case_id(refuse, plain, _pick(plain, shape.id or ("name",)), spot)
    except Refusal:  # left out whole: an id it cannot have is not a problem
        case_id, label = None, _number(spot)
    options.left_out.append(LeftOut(spot.display, label, case_id, entry.reason))
    return True


def _case(refuse: Refuser, data: object, spot: _Spot, dialect: "Dialect | None" = None) -> Case:
    base = spot.at
    if not isinstance(data, dict):  # an item of a case list
        raise refuse(case=_number(spot), at=base, expected="an object", actual=describe(jsonable(data)))
    shape = dialect.cases if dialect is not None else NO_SHAPE
    plain = jsonable(data)  # the case as JSON values: what dotted paths and the dialect walk
    name_key = _pick(plain, shape.id or ("name",))
    case_id, label = _case_id(refuse, plain, name_key, spot)
    reading = Reading(refuse, label, base)
    task_key = _pick(plain, shape.prompt or ("task",))
    prompt = _text(reading, plain, task_key, shape.prompt or ("task",))
    category = spot.category
    category_key = _pick(plain, shape.category) if shape.category else ""
    if category_key and reach(plain, category_key)[0]:
        category = _text(reading, plain, category_key, shape.category).strip()
    else:
        category_key = ""
    checks, empty = _judge_context(refuse, data, label, base)
    notes: list[Note] = []
    roots: set[str] = set()
    consumed: set[tuple[str | int, ...]] = set()
    skipped: list[str] = []
    if dialect is not None and dialect.cases.criteria:
        found = criteria_checks(
            reading, plain, dialect, lambda item, path, where: _item(reading, dialect, item, path, where)
        )
        more, notes, roots, skipped, consumed = found
        if more:  # the no-criteria placeholder gives way to what the dialect found
            checks, empty = ([] if empty else checks) + more, False
    taken = {"judge_context", *roots}
    for key in (name_key, task_key, category_key):
        if "." in key:  # a nested key: its root is read, what the path passed by becomes notes
            steps = tuple(key.split("."))
            roots = roots | {steps[0]}
            consumed = consumed | {steps}
        taken.add(key.split(".")[0])
    if roots:
        notes += passed_by(reading, plain, roots, consumed)
    notes += [_note(refuse, key, value, label, base) for key, value in data.items() if key not in taken]
    origin = spot.display if spot.position is None else f"{spot.display}, {label}"
    return Case(
        case_id,
        category,
        prompt,
        spot.risk,
        tuple(checks),
        tuple(notes),
        origin=origin,
        had_no_criteria=empty,
        skipped=tuple(skipped),
    )


def _pick(plain: dict[str, object], keys: tuple[str, ...]) -> str:
    """The first of the dialect's alternatives the case holds (else the first); an alternative
    may be a dotted path (`inputs.prompt`) or "#" (number the cases of a list)."""
    for key in keys:
        if key == NUMBERED or reach(plain, key)[0]:
            return key
    return keys[0]


def _number(spot: _Spot) -> str:
    return "(file)" if spot.position is None else f"case #{spot.position + 1}"


def _text(reading: Reading, plain: dict[str, object], key: str, keys: tuple[str, ...]) -> str:
    """The text at `key` (a dotted path walks objects), or a refusal saying where it stopped."""
    present, value = reach(plain, key)
    problem = text_problem(value)
    if present and problem is None:
        return str(value)
    steps = tuple(key.split("."))
    shown = " or ".join(keys)
    if present:
        raise reading.refusal(key, (*reading.at, *steps), problem, describe(value))
    dotted = any("." in k for k in keys)
    expected = f"a non-empty string at {shown} (as the dialect says)" if dotted else "a string"
    actual = stopped(plain, key) if "." in key else MISSING
    reached = 1  # the keys of the path the case has, in order: the refusal points at the last
    while reached < len(steps) and reach(plain, ".".join(steps[: reached + 1]))[0]:
        reached += 1
    raise reading.refusal(key, (*reading.at, *steps[:reached]), expected, actual)


def _case_id(refuse: Refuser, plain: dict[str, object], key: str, spot: _Spot) -> tuple[str, str]:
    """The id and the case's label for messages: a name slugged; an integer, or "#" (the
    case's number in its list), after the category's slug."""
    prefix = slug(spot.category) or "case"
    if key == NUMBERED and spot.position is not None:
        return f"{prefix}-{spot.position + 1}", f"case #{spot.position + 1}"
    present, name = reach(plain, key)
    if type(name) is int:
        return f"{prefix}-{name}", f"case {name}"
    steps = tuple(key.split("."))
    if not present or text_problem(name) is not None:
        _text(Reading(refuse, _number(spot), spot.at), plain, key, (key,))  # refuses, saying why
    label = f'case "{name}"'
    case_id = slug(str(name))
    if not case_id:
        raise refuse(
            case=label,
            field_path=key,
            at=(*spot.at, *steps),
            expected="a name with at least one letter or digit",
            actual=describe(name),
        )
    return case_id, label


_STEPS_REMARK = "a step budget for agent runs; adhd-evals does not enforce it"


def _note(refuse: Refuser, key: object, value: object, label: str, base: tuple[str | int, ...] = ()) -> Note:
    if key == "max_steps" and (not isinstance(value, int) or isinstance(value, bool)):
        raise refuse(
            case=label,
            field_path="max_steps",
            at=(*base, "max_steps"),
            expected="an integer",
            actual=describe(jsonable(value)),
        )
    shown = key if isinstance(key, str) else describe(jsonable(key))
    remark = _STEPS_REMARK if key == "max_steps" else ""
    return note(refuse, shown, jsonable(value), case=label, at=(*base, shown), remark=remark)


def _judge_context(
    refuse: Refuser, data: dict[Any, Any], label: str, base: tuple[str | int, ...] = ()
) -> tuple[list[Check], bool]:
    items = data.get("judge_context")
    if items is None or items == []:
        return [no_criteria_placeholder()], True
    if not isinstance(items, list):
        raise refuse(
            case=label,
            field_path="judge_context",
            at=(*base, "judge_context"),
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
                at=(*base, "judge_context", position),
                expected=problem,
                actual=describe(jsonable(item)),
            )
        checks.append(placeholder(item))
    return checks, False


def _item(
    reading: Reading, dialect: "Dialect", item: object, path: str, at: tuple[str | int, ...]
) -> tuple[Check, list[Note]]:
    """One criterion a dialect points at: prose, or an object through its rules."""
    if isinstance(item, dict):
        rule = dialect.match(item)
        if rule is not None:
            return converted(reading, rule, item, path, at)
        if "text" in item and not is_typed(item) and not text_problem(item["text"]):
            return placeholder(item["text"], compact(item)), []
        return placeholder(compact(item), compact(item))._replace(via=shape_of(item)), []
    problem = text_problem(item)
    if problem or not isinstance(item, str):  # text_problem says "a string" of a non-string
        raise reading.refusal(path, at, problem, describe(jsonable(item)))
    return placeholder(item), []
