"""The catalog as a `claude plugin eval` suite: one case folder per case.

`OUT_DIR/<case>/prompt.md` holds the case's name (its id), its tags (its category, then its
risk as `adhd-evals:risk=<level>`) and the prompt as its body; `OUT_DIR/<case>/case.yaml`
holds its graders, one per criterion, in the criteria's order (an inline list keeps the order
and every grader's name exactly; graders/*.md files would be read back sorted by name).

Folders are numbered in the catalog's order (`01-<id>`): plugin eval reads them sorted.

- a placeholder that carries a plugin eval grader (an imported `tool_used`, say) is that grader;
- a regex or trace check (tool_used, tool_order) whose criterion is one this format's import
  writes, and whose call is what that grader imports to, is that grader;
- every other criterion is an `llm` grader with the criterion as its rubric; a generated or
  hand-written check that goes so is listed as lost, by case and criterion.

Each grader is checked to import back to the same criterion before it is written.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from ....errors import OutputError, UsageError
from ...model import Check
from ..promptfoo.jsregex import NotTranslatable
from .graders import (
    CARRIED,
    GraderProblem,
    carried_grader,
    check_of,
    regex_grader_of,
    trace_grader_of,
    validate,
)

if TYPE_CHECKING:
    from ....catalog import CaseRow

Call = tuple[str, tuple[object, ...], dict[str, object]]  # a generated check's helper, arguments, keywords


def module_calls(module_text: str) -> dict[tuple[str, str], Call | None]:
    """(case id, criterion) -> the call its function returns (unwritten's argument included), or
    None for a body a person wrote."""
    from ...export import suite_checks  # the registrations, read as every export reads them

    found: dict[tuple[str, str], Call | None] = {}
    tree = ast.parse(module_text)
    placeholders = _placeholder_arguments(tree)
    for key, call in suite_checks(module_text).items():
        if call is None:
            found[key] = None
        elif call.helper == "unwritten":
            found[key] = ("unwritten", (placeholders.get(key, ""),), {})
        else:
            found[key] = (call.helper, call.args, call.keywords)
    return found


def _placeholder_arguments(tree: ast.Module) -> dict[tuple[str, str], str]:
    """(case id, criterion) -> the text a generated `return unwritten("...")` holds."""
    from ...registrations import registration

    found: dict[tuple[str, str], str] = {}
    for node in tree.body:
        registered = registration(node) if isinstance(node, ast.FunctionDef) else None
        if registered is None or registered[0] is None or registered[1] is None:
            continue
        for inner in ast.walk(node):
            if (
                isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Name)
                and inner.func.id == "unwritten"
                and inner.args
                and isinstance(inner.args[0], ast.Constant)
                and isinstance(inner.args[0].value, str)
            ):
                found[(registered[0], registered[1])] = inner.args[0].value
    return found


def suite_files(
    rows: list[CaseRow], calls: dict[tuple[str, str], Call | None]
) -> tuple[dict[str, str], list[str]]:
    """Each file's path under OUT_DIR and its text, and what did not survive (one line each)."""
    files: dict[str, str] = {}
    lost: list[str] = []
    width = len(str(len(rows)))
    for number, row in enumerate(rows, start=1):
        folder = _folder(row["id"], number, width)
        graders = []
        for index, criterion in enumerate(row["criteria"]):
            grader, gone = grader_for(row["id"], criterion, calls, index)
            graders.append(grader)
            lost += gone
        _unique_names(graders)
        files[f"{folder}/prompt.md"] = prompt_md(row)
        files[f"{folder}/case.yaml"] = _dump({"graders": graders})
    return files, lost


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _folder(case_id: str, number: int, width: int) -> str:
    """A folder name from the id (its name: key holds the id itself), numbered so that plugin
    eval, which reads case folders sorted, reads them in the catalog's order."""
    stem = _UNSAFE.sub("-", case_id).strip("-.")[:60].strip("-.") or "case"
    return f"{number:0{width}d}-{stem}"


def prompt_md(row: CaseRow) -> str:
    from . import RISK_TAG

    front = {
        "schema_version": "1.1",
        "name": row["id"],
        "tags": [row["category"], f"{RISK_TAG}{row['risk']}"],
    }
    return f"---\n{_dump(front)}---\n{row['prompt']}"


def grader_for(
    case_id: str, criterion: str, calls: dict[tuple[str, str], Call | None], index: int
) -> tuple[dict[str, object], list[str]]:
    """The grader a criterion is written as, and what was lost doing so."""
    key = (case_id, criterion)
    call = calls.get(key)
    found = _carried(call) if call is not None and call[0] == "unwritten" else _mechanical(criterion, call)
    if found is not None and _imports_to(found, criterion, call):
        return found, []
    rubric: dict[str, object] = {"name": f"criterion-{index + 1}", "type": "llm", "criteria": criterion}
    if key in calls and call is None:
        return rubric, [
            f"{case_id}: the hand-written check of {criterion!r} goes as an llm grader (its text)"
        ]
    if call is not None and call[0] != "unwritten":
        return rubric, [f"{case_id}: the {call[0]} check of {criterion!r} goes as an llm grader (its text)"]
    return rubric, []


def _carried(call: Call) -> dict[str, object] | None:
    argument = call[1][0] if call[1] else ""
    return carried_grader(argument) if isinstance(argument, str) and CARRIED in argument else None


def _mechanical(criterion: str, call: Call | None) -> dict[str, object] | None:
    """The regex or trace grader a mechanical check's criterion says (checked by _imports_to)."""
    if call is None:
        return None
    return regex_grader_of(criterion) or trace_grader_of(criterion)


def _imports_to(grader: dict[str, object], criterion: str, call: Call | None) -> bool:
    """Whether the grader imports back to this criterion and (for a regex) this very call."""
    try:
        check = check_of(validate(grader))
    except (GraderProblem, NotTranslatable, KeyError, TypeError, AttributeError):
        return False
    if check.criterion != criterion:
        return False
    return call is None or call[0] == "unwritten" or _same_call(check, call)


def _same_call(check: Check, call: Call) -> bool:
    return (check.kind.value, tuple(check.args), dict(check.options)) == (call[0], tuple(call[1]), call[2])


def _unique_names(graders: list[dict[str, object]]) -> None:
    """A fallback grader's name never repeats another grader's of the case."""
    names = [g["name"] for g in graders]
    for grader in graders:
        if (
            grader["type"] == "llm"
            and str(grader["name"]).startswith("criterion-")
            and names.count(grader["name"]) > 1
        ):
            number = 1
            while f"{grader['name']}-{number}" in names:
                number += 1
            grader["name"] = f"{grader['name']}-{number}"
            names.append(grader["name"])


class _Dumper(yaml.SafeDumper):
    """Every string double-quoted: a plain scalar could read back as a number or a boolean."""


def _quoted(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    plain = _PLAIN.fullmatch(data) is not None and data.lower() not in _WORDS
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=None if plain else '"')


_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")  # keys and words every YAML reader takes as text
_WORDS = {"true", "false", "null", "yes", "no", "on", "off", "y", "n"}


_Dumper.add_representer(str, _quoted)


def _dump(data: object) -> str:
    return str(yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=10**9))


def export_suite(cases: Path, suite: Path | None) -> tuple[dict[str, str], int, list[str]]:
    """The suite's files for the catalog at `cases` and its module at `suite`, the case count,
    and what did not survive."""
    from ....catalog import load_valid

    rows = load_valid(cases)
    calls: dict[tuple[str, str], Call | None] = {}
    if suite is not None and suite.exists():
        try:
            calls = module_calls(suite.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
            raise UsageError(f"{suite} cannot be read as a check module ({exc})") from exc
    files, lost = suite_files(rows, calls)
    return files, len(rows), lost


def write_suite(out: Path, files: dict[str, str]) -> None:
    """Every file into a new folder beside OUT_DIR, then that folder renamed into place: the
    suite appears whole or not at all, and an existing suite is never written over."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise OutputError(f"--out {out} exists and is not an empty folder: name a new one")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as exc:
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from exc
    try:
        for relative, text in files.items():
            target = building / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))
        os.replace(building, out)
    except OSError as exc:
        shutil.rmtree(building, ignore_errors=True)
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from exc
