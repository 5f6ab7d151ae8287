"""Export a catalog (and its check module) to a promptfoo config or a skill-creator evals.json.

"Import faithfully, export thinly": a team must be able to leave with its
cases. What survives, and how:

- promptfoo: one test per case, `vars: {prompt}` under `prompts: ["{{prompt}}"]`
  (the prompt's text wrapped in `{% raw %}` when it holds template syntax, its
  final newlines carried by `options.suffix`, since promptfoo drops one from a
  var); the id, category and risk in `metadata.adhd_evals`; each criterion's
  wording in its assertion's `config.criterion`. A generated check the
  vocabulary can say in promptfoo's words (contains, icontains, -any, -all,
  equals and starts-with without stripping, regex whose pattern means the same
  in JavaScript, is-json, and their negations) becomes that assertion; every
  other criterion becomes `llm-rubric` with its text.
- evals-json: `{skill_name, evals: [{id, prompt, expectations}]}`, every
  criterion as text; skill_name is the catalog's one category.

Lost: hand-written check bodies (their criterion's text goes as llm-rubric),
risk in evals-json, notes, categories beyond the first in evals-json.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypedDict

from ..errors import UsageError
from .model import TRACE_KINDS
from .registrations import registration

if TYPE_CHECKING:
    from ..catalog import CaseRow
    from ..schema import Risk

TARGETS = ("promptfoo", "evals-json")
PROMPT_TEMPLATE = "{{prompt}}"
_TEMPLATE_MARKS = ("{{", "{%", "{#")


_TRACED = frozenset(kind.value for kind in TRACE_KINDS)


class Mechanical(NamedTuple):
    """A generated check's call: the helper and its literal arguments."""

    helper: str
    args: tuple[object, ...]  # Python literals as written in the module (ast.literal_eval's)
    keywords: dict[str, object]


# What export writes, in the order it writes the keys (the YAML keeps it).


class AssertionConfig(TypedDict):
    criterion: str  # the catalog's wording, so an import back keeps it


class _AssertionType(TypedDict):
    type: str


class Assertion(_AssertionType, total=False):
    """A promptfoo assertion export makes: a type, the value it compares with (a needle, the
    needles, a pattern, a schema; none for is-json without one), the criterion's wording."""

    value: str | list[str] | dict[str, object] | bool  # a schema is an object or a boolean
    config: AssertionConfig


class CaseMetadata(TypedDict):
    id: str
    category: str
    risk: Risk


class Metadata(TypedDict):
    adhd_evals: CaseMetadata


# `assert` is a Python keyword: the functional form names it
_TestKeys = TypedDict(
    "_TestKeys",
    {
        "description": str,
        "vars": dict[str, str],  # {"prompt": its text}
        # ours, or an assertion a module imported from promptfoo held verbatim (any JSON object)
        "assert": list["Assertion | dict[str, object]"],
        "metadata": Metadata,
    },
)


class PromptfooTest(_TestKeys, total=False):
    options: dict[str, str]  # {"suffix": the prompt's final newlines}, written before assert


class PromptfooConfig(TypedDict):
    description: str
    prompts: list[str]
    tests: list[PromptfooTest]


class EvalsJsonCase(TypedDict):
    id: str
    prompt: str
    expectations: list[str]


class EvalsJson(TypedDict):
    skill_name: str
    evals: list[EvalsJsonCase]


def from_promptfoo(module_text: str) -> bool:
    """Whether the module was imported from a promptfoo config (its header says so): then an
    unwritten(...) holding an assertion object holds promptfoo's own assertion."""
    return bool(_PROMPTFOO_HEADER.search(module_text[:4096]))


_PROMPTFOO_HEADER = re.compile(r"^Imported from .* \(promptfoo\)[.:]$", re.MULTILINE)


def suite_checks(module_text: str) -> dict[tuple[str, str], Mechanical | None]:
    """(case id, criterion) -> the vocabulary call its function returns (unwritten with the text
    it holds), or None when the body is anything else (hand-written)."""
    tree = ast.parse(module_text)
    found: dict[tuple[str, str], Mechanical | None] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        key = _registration(node)
        if key is not None:
            found[key] = _call(node)
    return found


def _registration(node: ast.FunctionDef) -> tuple[str, str] | None:
    found = registration(node)
    if found is None or found[0] is None or found[1] is None:
        return None
    return found[0], found[1]


def _call(node: ast.FunctionDef) -> Mechanical | None:
    """The call a generated function returns (unwritten included); None for a body a person wrote."""
    body = [n for n in node.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
        return None
    call = body[0].value
    if isinstance(call.func, ast.Name) and call.func.id == "unwritten":
        held = call.args[0] if call.args else None
        text = held.value if isinstance(held, ast.Constant) and isinstance(held.value, str) else None
        return Mechanical("unwritten", () if text is None else (text,), {})
    if not isinstance(call.func, ast.Name):
        return None
    traced = call.func.id in _TRACED  # a trace check reads the row's trace: no answer comes first
    if not traced and (not call.args or not isinstance(call.args[0], ast.Name)):
        return None
    try:
        args = tuple(ast.literal_eval(a) for a in call.args[0 if traced else 1 :])
        keywords = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
    except ValueError:
        return None
    return Mechanical(call.func.id, args, keywords)


def _raw(text: str) -> str | None:
    """Text that promptfoo's rendering gives back unchanged, or None when none can."""
    if not any(mark in text for mark in _TEMPLATE_MARKS):
        return text
    if "endraw" in text:
        return None
    return "{% raw %}" + text + "{% endraw %}"


def _needles(value: object) -> str | list[str] | None:
    if isinstance(value, str):
        return _raw(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = [_raw(v) for v in value]
        kept = [i for i in items if i is not None]
        return kept if len(kept) == len(items) else None
    return None


_LISTS = {
    "contains_any": "contains-any",
    "contains_all": "contains-all",
    "contains_none": "not-contains-any",
    "not_contains_all": "not-contains-all",
}


def assertion_for(
    criterion: str, call: Mechanical | None, *, promptfoo: bool = False
) -> Assertion | dict[str, object]:
    """The promptfoo assertion that checks what `call` checks (a placeholder of a module imported
    from promptfoo: the assertion it holds), else llm-rubric with the criterion."""
    mapped = _mapped(call) if call is not None else None
    original = held_assertion(call) if promptfoo and call is not None else None
    if original is not None:
        config = original.get("config")
        if config is None or isinstance(config, dict):  # the catalog's wording rides along
            original["config"] = {**(config or {}), "criterion": criterion}
        return original
    if mapped is None:
        value = _raw(criterion)
        return {
            "type": "llm-rubric",
            "value": value if value is not None else criterion,
            "config": {"criterion": criterion},
        }
    mapped["config"] = {"criterion": criterion}
    return mapped


def held_assertion(call: Mechanical) -> dict[str, object] | None:
    """The promptfoo assertion an unwritten(...) holds verbatim (the import keeps every one it
    cannot check, its reason after it in parentheses), when its type is promptfoo's own."""
    if call.helper != "unwritten" or not call.args:
        return None
    text = str(call.args[0])
    try:
        held, end = json.JSONDecoder().raw_decode(text)
    except ValueError:
        return None
    rest = text[end:]
    if not isinstance(held, dict) or (rest and not rest.startswith(" (")):
        return None
    kind = held.get("type")
    if not isinstance(kind, str):
        return None
    base = kind[4:] if kind.startswith("not-") else kind
    # promptfoo's package (PyYAML, jinja2) only for `export --to promptfoo`, the one caller
    from .formats.promptfoo.asserts import KNOWN, SPECIAL

    return held if base in KNOWN or kind in SPECIAL else None


def _mapped(call: Mechanical) -> Assertion | None:
    # A call without ignore_case ignores case (the plain helpers' and contains_*'s default);
    # the vocabulary's generated calls always state it.
    ignore = call.keywords.get("ignore_case", True)
    prefix = "i" if ignore else ""
    exact = call.keywords.get("strip", True) is False and not ignore
    args = call.args
    if call.helper == "contains" and len(args) == 1:
        value = _needles(args[0])
        return {"type": f"{prefix}contains", "value": value} if value else None
    if call.helper in _LISTS and isinstance(args[0], list) and not args[0]:
        return None  # promptfoo reads an empty list as no value
    if call.helper in _LISTS and len(args) == 1:
        value = _needles(list(args[0]) if isinstance(args[0], (list, tuple)) else [args[0]])
        kind = _LISTS[call.helper]
        kind = kind.replace("contains", f"{prefix}contains", 1)
        return {"type": kind, "value": value} if value else None
    if call.helper in ("equals", "not_equals", "starts_with", "not_starts_with") and exact and len(args) == 1:
        value = _needles(args[0])
        kind = call.helper.replace("not_", "not-").replace("starts_with", "starts-with")
        return {"type": kind, "value": value} if value else None
    if call.helper in ("regex", "not_regex") and not ignore and len(args) == 1 and isinstance(args[0], str):
        from .formats.promptfoo.jsregex import javascript_for  # promptfoo's package: only here

        source = javascript_for(args[0])
        value = _needles(source) if source is not None else None
        return {"type": call.helper.replace("_", "-"), "value": value} if value else None
    if call.helper in ("is_json", "not_is_json") and not args:
        schema = call.keywords.get("schema")
        if schema is None:
            return {"type": call.helper.replace("_", "-")}
        # the vocabulary writes a schema as JSON text; anything else is a person's, not mapped
        read = _schema_text(schema) if call.helper == "is_json" else None
        return {"type": "is-json", "value": read} if read is not None else None
    return None


def _schema_text(schema: object) -> dict[str, object] | bool | None:
    """A schema= as the vocabulary writes it, JSON text of a JSON Schema (an object or a
    boolean), read; None for anything else: a dict, or text a person left unparseable ('{bad')
    or that is no schema ('null'), is theirs, and the criterion goes as its text."""
    if not isinstance(schema, str):
        return None
    try:
        read = json.loads(schema)
    except (ValueError, RecursionError):
        return None
    return read if isinstance(read, (dict, bool)) else None


def to_promptfoo(
    rows: list[CaseRow],
    checks: dict[tuple[str, str], Mechanical | None],
    *,
    description: str,
    promptfoo: bool = False,
) -> tuple[PromptfooConfig, list[str]]:
    """The config, and what did not survive (one line each); `promptfoo`: the module was imported
    from a promptfoo config, so each placeholder holding one of its assertions goes back as it."""
    tests = []
    lost: list[str] = []
    for row in rows:
        test, row_lost = _test(row, checks, promptfoo)
        tests.append(test)
        lost += row_lost
    return {"description": description, "prompts": [PROMPT_TEMPLATE], "tests": tests}, lost


def _test(
    row: CaseRow, checks: dict[tuple[str, str], Mechanical | None], promptfoo: bool = False
) -> tuple[PromptfooTest, list[str]]:
    lost = []
    prompt = row["prompt"]
    # promptfoo drops a var's final newline: every final newline goes in options.suffix instead,
    # so the var ends in none (moving only one would lose the next one to the same drop)
    body = prompt.rstrip("\n")
    value = _raw(body)
    if value is None or _REFERENCE.search(prompt):
        lost.append(f"{row['id']}: its prompt holds template text promptfoo cannot be told to leave alone")
        value = prompt
    asserts: list[Assertion | dict[str, object]] = []
    for criterion in row["criteria"]:
        key = (row["id"], criterion)
        assertion = assertion_for(criterion, checks.get(key), promptfoo=promptfoo)
        if assertion["type"] == "llm-rubric" and key in checks:
            lost += as_text(row["id"], criterion, checks[key], "llm-rubric")
        asserts.append(assertion)
    metadata: Metadata = {"adhd_evals": {"id": row["id"], "category": row["category"], "risk": row["risk"]}}
    if body == prompt:
        return {
            "description": row["id"],
            "vars": {"prompt": value},
            "assert": asserts,
            "metadata": metadata,
        }, lost
    suffix = {"suffix": prompt[len(body) :]}  # options sits before assert, as it always was written
    test: PromptfooTest = {
        "description": row["id"],
        "vars": {"prompt": value},
        "options": suffix,
        "assert": asserts,
        "metadata": metadata,
    }
    return test, lost


# promptfoo replaces `{{ prompt }}` inside a var's text before any template runs, raw blocks or not
_REFERENCE = re.compile(r"\{\{\s*prompt\s*\}\}")


def as_text(case_id: str, criterion: str, call: Mechanical | None, target: str) -> list[str]:
    """What a criterion loses when only its text is written (a rubric, an expectation): nothing
    for prose (a placeholder holding its own criterion), else a line naming case and check."""
    if call is None:
        return [f"{case_id}: the hand-written check of {criterion!r} goes as its text ({target})"]
    if call.helper == "unwritten":
        held = str(call.args[0]) if call.args else criterion
        if held == criterion:
            return []
        return [f"{case_id}: the placeholder of {criterion!r} goes as its text ({target}); it held {held}"]
    return [f"{case_id}: the {call.helper} check of {criterion!r} goes as its text ({target})"]


def evals_json_lost(rows: list[CaseRow], checks: dict[tuple[str, str], Mechanical | None]) -> list[str]:
    """Every check an evals.json cannot hold (it holds each criterion's text), by case and check."""
    return [
        line
        for row in rows
        for criterion in row["criteria"]
        if (row["id"], criterion) in checks
        for line in as_text(row["id"], criterion, checks[(row["id"], criterion)], "an expectation")
    ]


def to_evals_json(rows: list[CaseRow], *, skill_name: str) -> EvalsJson:
    return {
        "skill_name": skill_name,
        "evals": [
            {"id": row["id"], "prompt": row["prompt"], "expectations": list(row["criteria"])} for row in rows
        ],
    }


def skill_name_of(rows: list[CaseRow], fallback: str) -> tuple[str, list[str]]:
    categories = list(dict.fromkeys(row["category"] for row in rows))
    if len(categories) == 1:
        stripped = (
            []
            if categories[0] == categories[0].strip()
            else [f"category {categories[0]!r}: read back stripped"]
        )
        return categories[0], stripped
    return fallback, [f"categories {', '.join(categories)}: evals.json has one skill_name ({fallback})"]


class ExportResult(NamedTuple):
    text: str
    cases: int
    lost: list[str]


def export(target: str, cases: Path, suite: Path | None, *, as_json: bool = False) -> ExportResult:
    """The exported file's text for the catalog at `cases` (and its module at `suite`)."""
    from ..catalog import load_valid

    if target not in TARGETS:
        raise UsageError(f"--to must be one of {', '.join(TARGETS)}, not {target!r}")
    rows = load_valid(cases)
    module = _module_text(suite)
    try:
        checks = suite_checks(module) if module else {}
    except (SyntaxError, ValueError) as exc:
        raise UsageError(f"{suite} cannot be read as a check module ({exc})") from exc
    if target == "evals-json":
        name, lost = skill_name_of(rows, cases.resolve().parent.parent.name or "skill")
        lost.append("risk: evals.json has none (pass --risk when importing it back)")
        lost += evals_json_lost(rows, checks)
        return ExportResult(
            json.dumps(to_evals_json(rows, skill_name=name), indent=2, ensure_ascii=False) + "\n",
            len(rows),
            lost,
        )
    config, lost = to_promptfoo(
        rows, checks, description=f"Exported from {cases}", promptfoo=from_promptfoo(module)
    )
    return ExportResult(config_text(config, as_json=as_json), len(rows), lost)


def _module_text(suite: Path | None) -> str:
    """The check module's text ("" when there is none); one that cannot be read is a usage error."""
    if suite is None or not suite.exists():
        return ""
    try:
        return suite.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{suite} cannot be read as a check module ({exc})") from exc


def config_text(config: PromptfooConfig, *, as_json: bool) -> str:
    """JSON (ASCII, so every reader agrees), or YAML with every string double-quoted: a plain
    scalar could mean a number or a boolean to js-yaml and a string to PyYAML, or the reverse."""
    if as_json:
        return json.dumps(config, indent=2, ensure_ascii=True) + "\n"
    import yaml

    return str(yaml.safe_dump(config, allow_unicode=True, sort_keys=False, default_style='"', width=10**9))
