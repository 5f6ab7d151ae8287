"""`claude plugin eval` suites (Claude Code v2.1.269+), read as plugin eval loads them.

A case is a folder under the suite folder holding `prompt.md` (YAML front matter, the prompt
as its body) and/or `case.yaml`; folders holding neither group cases. One catalog case per
case folder: its id is `name` (else the folder's path under the suite), its category the
group folder's path (else the first tag, else the suite's name), its prompt the `prompt.md`
body as written (else `execution.prompt`). Each grader (case.yaml's `graders:` list first,
then `graders/*.md` by name) becomes exactly one criterion (graders.py). The run settings
and every other key are kept as notes. What plugin eval itself would not load is refused
by file, case, field and position: an unknown `prompt.md` key, no grader, no prompt, `runs`
outside 1-50, an `env` key outside `EVAL_[A-Z0-9_]*`, an unknown `schema_version`.

An exported case's tags carry its risk as `adhd-evals:risk=<level>` (export.py): read back
here, so an export imports to the same five fields.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple, cast

from ...model import RISKS, Case, Check, Note, Refusal, RefusalCode, describe
from .._common import ReadOptions, collecting, jsonable, note, strict, text_problem
from . import graders as kinds
from .casefiles import NOT_CASE, Origin, Source, _markdown, _refuse_not_mappings, _refuse_unknown, _yaml
from .graders import BODY_KEYS, GraderProblem, check_of, validate

NAME = "plugin-eval"


CASE_FILES = ("prompt.md", "case.yaml")


SCHEMA_VERSIONS = ("1.0", "1.1")


FRONT_MATTER = (
    "schema_version",
    "name",
    "description",
    "tags",
    "plugins",
    "runs",
    "expected_outcome",
    "model",
    "max_turns",
    "timeout_seconds",
    "allowed_tools",
    "append_system_prompt",
    "env",
)


CASE_KEYS = ("schema_version", "name", "description", "tags", "plugins", "runs", "expected_outcome")


EXECUTION = (
    "prompt",
    "model",
    "max_turns",
    "timeout_seconds",
    "allowed_tools",
    "append_system_prompt",
    "env",
)


CONTEXT = ("scaffold_script", "history_file", "add_dirs")


RISK_TAG = "adhd-evals:risk="  # the tag an export writes a case's risk in


_ENV_KEY = re.compile(r"EVAL_[A-Z0-9_]*")


_LIMITS = {"runs": (1, 50), "max_turns": (1, 200), "timeout_seconds": (1, 3600)}


UNDOCUMENTED = "not a key plugin eval documents; kept as written"


def _read(
    source: Path, display: str, options: ReadOptions, collect: bool
) -> tuple[list[Case], list[Refusal], bool]:
    root, folders = case_folders(source, display)
    cases: list[Case] = []
    refusals: list[Refusal] = []
    owner: dict[str, str] = {}
    for folder in folders:
        where = folder.relative_to(root).as_posix()
        try:
            case = read_case(folder, where, _shown(display, source, root, where), options, root)
            if case.id in owner:
                raise Refusal(
                    RefusalCode.NOT_PLUGIN_EVAL,
                    case.origin,
                    NOT_CASE,
                    case=f"case {where}",
                    field_path="name",
                    expected="a name no other case of the suite has",
                    actual=f'"{case.id}", which {owner[case.id]} has too',
                )
        except Refusal as refusal:
            if not collect:
                raise
            refusals.append(refusal)
            continue
        owner[case.id] = f"case {where}"
        cases.append(case)
    return cases, refusals, True


read = strict(_read, RefusalCode.NOT_PLUGIN_EVAL, NOT_CASE)


problems = collecting(_read, RefusalCode.NOT_PLUGIN_EVAL, NOT_CASE)


def _shown(display: str, source: Path, root: Path, where: str) -> str:
    """How messages name a case folder: under the suite as the user named it."""
    if source.is_file() or (source / "case.yaml").is_file() or (source / "prompt.md").is_file():
        return str(Path(display).parent) if source.is_file() else display
    return str(Path(display) / where)


def _join(shown: str, name: str) -> str:
    return name if shown in ("", ".") else f"{shown}/{name}"


def case_folders(source: Path, display: str) -> tuple[Path, list[Path]]:
    """The suite's root and its case folders, sorted; a case file or folder is a suite of one."""
    if source.is_file():
        if source.name not in CASE_FILES:
            raise Refusal(
                RefusalCode.NOT_PLUGIN_EVAL,
                display,
                NOT_CASE,
                expected="a suite folder, a case folder, or a case's prompt.md or case.yaml",
                actual=f"a file named {source.name}",
            )
        return source.parent.parent, [source.parent]
    if not source.is_dir():
        raise Refusal(
            RefusalCode.FILE_UNREADABLE, display, "cannot be read", actual="no such file or directory"
        )
    if any((source / name).is_file() for name in CASE_FILES):
        return source.parent, [source]
    from ....files import walk

    holders = sorted({p.parent for p in walk(source) if p.name in CASE_FILES})
    folders = [f for f in holders if not any(other in f.parents for other in holders)]
    if not folders:
        raise Refusal(
            RefusalCode.DIRECTORY_EMPTY,
            display,
            "has nothing to import",
            expected="a case folder (holding prompt.md or case.yaml) beneath it",
            actual="none",
        )
    return source, folders


def read_case(folder: Path, where: str, shown: str, options: ReadOptions, root: Path) -> Case:
    label = f"case {where}"
    prompt_md = _markdown(folder / "prompt.md", _join(shown, "prompt.md"), label)
    case_yaml = _yaml(folder / "case.yaml", _join(shown, "case.yaml"), label)
    if prompt_md is not None:
        _refuse_unknown(prompt_md, FRONT_MATTER, label)
    if case_yaml is not None:
        _refuse_not_mappings(case_yaml, label)
    merged = _merged(prompt_md, case_yaml)
    for key, (value, origin) in merged.items():
        _setting(origin, key, value, label)
    prompt = _prompt(prompt_md, case_yaml, folder, shown, label)
    checks = [check_of(found.grader) for found in graders_of(case_yaml, folder, shown, label)]
    if not checks:
        raise Refusal(
            RefusalCode.NOT_PLUGIN_EVAL,
            _join(shown, "case.yaml" if case_yaml is not None else "prompt.md"),
            NOT_CASE,
            case=label,
            field_path="graders",
            expected="at least one grader (case.yaml's graders: or graders/*.md); plugin eval loads no case without",
            actual="none",
        )
    # a list of strings: _setting refused any other tags above
    tags = cast("list[str]", merged["tags"][0]) if "tags" in merged else []
    case_id = _case_id(merged, where)
    return Case(
        id=case_id,
        category=options.category or _category(where, tags, root),
        prompt=prompt,
        risk=_risk(tags, options.risk),
        checks=tuple(checks),
        notes=tuple(_notes(prompt_md, case_yaml, label, prompt)),
        origin=f"{shown}",
    )


def _merged(prompt_md: Source | None, case_yaml: Source | None) -> dict[str, tuple[object, Origin]]:
    """The case's settings: case.yaml's (top level and execution), then prompt.md's over them."""
    found: dict[str, tuple[object, Origin]] = {}
    if case_yaml is not None:
        data = case_yaml.data
        found |= {k: (data[k], (case_yaml, (k,))) for k in CASE_KEYS if k in data}
        execution = data.get("execution")
        if isinstance(execution, dict):
            found |= {
                k: (v, (case_yaml, ("execution", k)))
                for k, v in execution.items()
                if k in EXECUTION and k != "prompt"
            }
    if prompt_md is not None:
        # every key is a string: _refuse_unknown refused any not in FRONT_MATTER
        found |= {str(k): (v, (prompt_md, (str(k),))) for k, v in prompt_md.data.items()}
    return found


def _setting(origin: Origin, key: str, value: object, label: str) -> None:
    """Refuse a setting plugin eval would not load (range, pattern, type)."""
    source, at = origin
    field = ".".join(str(s) for s in at)
    problem = _setting_problem(key, value)
    if problem is not None:
        bad = _bad_env_name(value) if key == "env" and isinstance(value, dict) else None
        raise source.refuse(
            case=label,
            field_path=field if bad is None else f"{field}.{bad}",
            at=at if bad is None else (*at, bad),
            expected=problem,
            actual=describe(jsonable(value)) if bad is None else f"the name {bad!r}",
        )


def _setting_problem(key: str, value: object) -> str | None:
    if key in _LIMITS:
        low, high = _LIMITS[key]
        ok = isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
        return None if ok else f"a whole number from {low} to {high}"
    if key == "schema_version":
        return (
            None
            if str(value) in SCHEMA_VERSIONS
            else f"a schema_version plugin eval knows ({', '.join(SCHEMA_VERSIONS)})"
        )
    if key == "env":
        if not isinstance(value, dict):
            return "a mapping of EVAL_* names to values"
        return None if _bad_env_name(value) is None else "env names matching EVAL_[A-Z0-9_]*"
    if key in ("tags", "plugins", "allowed_tools"):
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        return None if ok else "a list of strings"
    if key == "name":
        return text_problem(value)
    return None if isinstance(value, str) else "a string"


def _bad_env_name(env: dict[object, object]) -> str | None:
    return next((str(k) for k in env if not (isinstance(k, str) and _ENV_KEY.fullmatch(k))), None)


def _prompt(prompt_md: Source | None, case_yaml: Source | None, folder: Path, shown: str, label: str) -> str:
    if prompt_md is not None and prompt_md.body is not None and prompt_md.body.strip():
        return prompt_md.body
    execution = case_yaml.data.get("execution") if case_yaml is not None else None
    if isinstance(execution, dict) and "prompt" in execution:
        problem = text_problem(execution["prompt"])
        if problem is None:
            return str(execution["prompt"])
        assert case_yaml is not None
        raise case_yaml.refuse(
            case=label,
            field_path="execution.prompt",
            at=("execution", "prompt"),
            expected=problem,
            actual=describe(jsonable(execution["prompt"])),
        )
    where = case_yaml or prompt_md
    assert where is not None
    top = case_yaml is not None and "prompt" in case_yaml.data
    raise where.refuse(
        case=label,
        field_path="execution.prompt" if case_yaml is not None else "(body)",
        at=("prompt",) if top else (),
        expected="the prompt: prompt.md's body or case.yaml's execution.prompt",
        actual="a top-level prompt:, which plugin eval does not read" if top else "none",
    )


class Grader(NamedTuple):
    """A validated grader and where it was written."""

    grader: kinds.Grader
    source: Source
    at: tuple[str | int, ...]


def graders_of(case_yaml: Source | None, folder: Path, shown: str, label: str) -> list[Grader]:
    """The case's graders in plugin eval's order: case.yaml's list, then graders/*.md by name."""
    found: list[Grader] = []
    names: set[str] = set()
    inline = case_yaml.data.get("graders", []) if case_yaml is not None else []
    if not isinstance(inline, list):
        assert case_yaml is not None  # the default, [], is a list
        raise case_yaml.refuse(
            case=label,
            field_path="graders",
            at=("graders",),
            expected="a list of graders",
            actual=describe(inline),
        )
    for index, grader in enumerate(inline):
        assert case_yaml is not None
        at: tuple[str | int, ...] = ("graders", index)
        if not isinstance(grader, dict):
            raise case_yaml.refuse(
                case=label,
                field_path=f"graders[{index}]",
                at=at,
                expected="a mapping",
                actual=describe(grader),
            )
        found.append(
            Grader(_grader(jsonable(grader), case_yaml, at, f"graders[{index}]", label, names), case_yaml, at)
        )
    folder_of_graders = folder / "graders"
    files = sorted(folder_of_graders.glob("*.md")) if folder_of_graders.is_dir() else []
    for path in files:
        source = _markdown(path, _join(shown, f"graders/{path.name}"), label)
        assert source is not None
        grader = _with_body({"name": path.stem, **jsonable(source.data)}, source, label, path.name)
        found.append(Grader(_grader(grader, source, (), f"graders/{path.name}", label, names), source, ()))
    return found


def _with_body(grader: dict[str, object], source: Source, label: str, name: str) -> dict[str, object]:
    """A grader file's body, trimmed, as the key its type reads text from (a regex's pattern, an
    llm's or baseline's criteria); kept as `body` for a type that reads none."""
    body = (source.body or "").strip()
    if not body:
        return grader
    kind = grader.get("type")
    key = BODY_KEYS.get(kind, "body") if isinstance(kind, str) else "body"  # a wrong type: refused later
    if key in grader:
        raise source.refuse(
            case=label,
            field_path=f"graders/{name}.{key}",
            at=(key,),
            expected=f"the {key} in the front matter or the body, not both",
            actual="both",
        )
    return {**grader, key: body}


def _grader(
    grader: dict[str, object],
    source: Source,
    at: tuple[str | int, ...],
    field: str,
    label: str,
    names: set[str],
) -> kinds.Grader:
    name = grader.get("name")
    if text_problem(name) is not None:
        raise source.refuse(
            case=label,
            field_path=f"{field}.name",
            at=at,
            expected="the grader's name",
            actual=describe(name) if "name" in grader else "missing",
        )
    if name in names:
        raise source.refuse(
            case=label,
            field_path=f"{field}.name",
            at=(*at, "name") if at else (),
            expected="a name no other grader of the case has",
            actual=describe(name),
        )
    names.add(str(name))
    try:
        return validate(grader)
    except GraderProblem as problem:
        key = problem.field if problem.field in grader else ""
        raise source.refuse(
            case=label,
            field_path=f"{field}.{problem.field}",
            at=(*at, key) if key and at else (key,) if key else at,
            expected=problem.expected,
            actual=problem.actual,
        ) from None


def _case_id(merged: dict[str, tuple[object, Origin]], where: str) -> str:
    if "name" in merged:
        return str(merged["name"][0])
    return where


def _category(where: str, tags: list[str], root: Path) -> str:
    group = where.rpartition("/")[0]
    if group:
        return group
    first = next((t for t in tags if t.strip() and not t.startswith(RISK_TAG)), None)
    if first is not None:
        return first
    name = root.resolve().name
    return (root.resolve().parent.name if name == "evals" else name) or NAME


def _risk(tags: list[str], default: str) -> str:
    found = [t.removeprefix(RISK_TAG) for t in tags if t.startswith(RISK_TAG)]
    return found[0] if len(found) == 1 and found[0] in RISKS else default


def _notes(prompt_md: Source | None, case_yaml: Source | None, label: str, prompt: str) -> list[Note]:
    """Every key but name, the prompt and the graders, as it was written, with where it came from."""
    notes: list[Note] = []
    if case_yaml is not None:
        for key, value in case_yaml.data.items():
            if key in ("name", "graders"):
                continue
            if key in ("execution", "context") and isinstance(value, dict):
                known = EXECUTION if key == "execution" else CONTEXT
                notes += [
                    _kept(case_yaml, f"{key}.{k}", v, label, "" if k in known else UNDOCUMENTED)
                    for k, v in value.items()
                    if not (key == "execution" and k == "prompt" and v == prompt)
                ]
                continue
            notes.append(_kept(case_yaml, str(key), value, label, "" if key in CASE_KEYS else UNDOCUMENTED))
    if prompt_md is not None:
        notes += [
            _kept(prompt_md, f"prompt.md {k}", v, label) for k, v in prompt_md.data.items() if k != "name"
        ]
    return notes


def _kept(source: Source, key: str, value: object, label: str, remark: str = "") -> Note:
    return note(source.refuse, key, jsonable(value), case=label, at=(), remark=remark)


__all__ = ["NAME", "Check", "problems", "read"]
