"""Which part of a region of the check module the import wrote, and whether it is as written.

A marker's fingerprint is the hash of the text the import generated for its
region. When the region's text no longer hashes to it, either a person
changed something, or a formatter did (black and ruff format change quotes,
blank lines and wrapping, never the code). This module tells them apart,
and finds the generated function among what a person added around it:

- `formatted_only`: the region is the generated text once formatting is set
  aside: its code (the AST) and its comments are those of a text rebuilt
  from the region in the generator's layout, and that text hashes to the
  fingerprint (so it is exactly what was generated);
- `generated_function`: in a check region a person added to, the function
  the import wrote: the one whose own text hashes (as written or once
  formatted) to the fingerprint; else the one registering the criterion the
  marker's key names.

Everything here reads with `ast` and `tokenize`, and only runs on regions
whose fingerprint does not match (an untouched module is never parsed).
"""

from __future__ import annotations

import ast
import functools
import io
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import checkgen
from .checkgen import Arg, check_text, fingerprint, short_hash
from .registrations import registration


def parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def comments(text: str) -> list[str] | None:
    """The comments of `text`, in order and without trailing spaces; None when it does not tokenize."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return [token.string.rstrip() for token in tokens if token.type == tokenize.COMMENT]


def same_code(text: str, other: str) -> bool:
    """The same code and comments once layout is set aside (quotes, blank lines, wrapping)."""
    mine, theirs = parse(text), parse(other)
    if mine is None or theirs is None or ast.dump(mine) != ast.dump(theirs):
        return False
    found = comments(text)
    return found is not None and found == comments(other)


def formatted_only(kind: str, text: str, print_: str) -> bool:
    """`text`, whose fingerprint is not `print_`, is the generated text reformatted."""
    return any(
        fingerprint(candidate) == print_ and same_code(text, candidate)
        for candidate in candidates(kind, text)
    )


def candidates(kind: str, text: str) -> list[str]:
    """The generated texts `text` may be a formatting of, rebuilt from it."""
    if kind == "case":
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return ["\n".join(lines)] if all(line.startswith("#") for line in lines) else []
    tree = parse(text)
    if tree is None:
        return []
    if kind == "preamble":
        return preamble_candidates(tree)
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    return check_candidates(functions[0]) if len(tree.body) == 1 and functions else []


def preamble_candidates(tree: ast.Module) -> list[str]:
    """Header (from the module's docstring) and helpers, as this version and the one before wrote them."""
    docstring = ast.get_docstring(tree, clean=False)
    if docstring is None or not docstring.endswith("\n"):
        return []
    body = docstring[:-1].replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    header = '"""' + body + '\n"""\n\n'
    return [header + helpers.rstrip("\n") for helpers in helper_texts()]


def helper_texts() -> list[str]:
    """The helpers a preamble may hold: without and with a dialect, as this version writes
    them, as this version's text in the layout before formatters laid it out, and exactly as
    each released version wrote them (kept verbatim in released/: the vocabulary grows between
    releases, so an older module's preamble cannot be rebuilt from today's text); each also
    followed by the trace checks, as a module with a trace check holds them."""
    now = [checkgen.HELPERS, checkgen.vocabulary_source()]
    plain = now + [_before(text) for text in now] + _released(_HELPERS)
    traces = [checkgen.trace_helpers(), *_released(_TRACES)]
    # as checkgen.preamble joins them
    return plain + [text.rstrip("\n") + "\n\n\n" + trace for text in plain for trace in traces]


_HELPERS = ("*-helpers.txt", "*-vocabulary.txt")
_TRACES = ("*-tracehelpers.txt",)


@functools.cache
def _released(patterns: tuple[str, ...]) -> list[str]:
    folder = Path(__file__).with_name("released")
    paths = sorted(path for pattern in patterns for path in folder.glob(pattern))
    return [path.read_text(encoding="utf-8") for path in paths]


def _before(text: str) -> str:
    """`text` as the version before today's layout wrote it (undoing each change, by hand)."""
    for name in ("contains_any", "contains_all", "contains_none", "in_order"):
        one_line = f"def {name}(answer: str, needles: str | Sequence[str], *, ignore_case: bool) -> bool:"
        for default in (" = True", ""):
            exploded = (
                f"def {name}(\n    answer: str,\n    needles: str | Sequence[str],\n    *,\n"
                f"    ignore_case: bool{default},\n) -> bool:"
            )
            text = text.replace(exploded, one_line)
    for now, before in _CHANGED_LINES:
        text = text.replace(now, before)
    return text


_CHANGED_LINES = [
    (
        "    if actual == wanted:\n        return True\n"
        "    return _without_punctuation(actual) == _without_punctuation(wanted)\n",
        "    return actual == wanted or _without_punctuation(actual) == _without_punctuation(wanted)\n",
    ),
    (
        "# (Kana and Han in the BMP, then Hangul and Han beyond the BMP.)\n"
        '_KANA_HAN = "\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff"\n'
        '_CJK = _KANA_HAN + "\\uac00-\\ud7af\\U00020000-\\U0003134f"\n',
        '_CJK = "\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\uac00-\\ud7af\\U00020000-\\U0003134f"\n',
    ),
    (
        "    parsed = json.loads(schema)\n"
        "    return jsonschema.validators.validator_for(parsed)(parsed).is_valid(value)\n",
        "    return jsonschema.validators.validator_for(json.loads(schema))(json.loads(schema)).is_valid(value)\n",
    ),
]


def check_candidates(function: ast.FunctionDef) -> list[str]:
    """A generated check function rebuilt from its parts: in today's layout and in the
    one before it (repr quotes, one line each)."""
    found = registration(function)
    body = function.body
    if found is None or None in found or len(body) != 1 or not isinstance(body[0], ast.Return):
        return []
    call = body[0].value
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        return []
    try:
        args: list[Any] = [_value(arg) for arg in call.args]
        options = [(keyword.arg, ast.literal_eval(keyword.value)) for keyword in call.keywords]
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return []
    case_id, criterion = found
    assert case_id is not None and criterion is not None
    rendered: list[Arg] = [_ANSWER if arg is _ANSWER else checkgen._arg(arg) for arg in args]
    rendered += [checkgen._arg(value, f"{name}=") for name, value in options]
    today = check_text(case_id, criterion, function.name, call.func.id, rendered)
    flat = [_ANSWER if arg is _ANSWER else repr(arg) for arg in args]
    flat += [f"{name}={value!r}" for name, value in options]
    before = (
        f"@check({case_id!r}, {criterion!r})\ndef {function.name}(answer: str) -> bool:\n"
        f"    return {call.func.id}({', '.join(flat)})"
    )
    return [today, before]


_ANSWER = "answer"


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.Name) and node.id == _ANSWER:
        return _ANSWER
    return ast.literal_eval(node)


@dataclass(frozen=True)
class Generated:
    """The function the import wrote in a check region: its lines (1-based, inclusive),
    its name and registration, and whether it is as generated (or only reformatted)."""

    first: int
    last: int
    name: str
    case_id: str
    criterion: str
    untouched: bool


def generated_function(text: str, key: str, print_: str) -> Generated | None:
    """The function the import wrote in a check region's `text`; None when it cannot be told."""
    tree = parse(text)
    if tree is None:
        return None
    lines = text.split("\n")
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    registered = []
    for function in functions:
        found = registration(function)
        if found is None or found[0] is None or found[1] is None:
            continue
        first = min([function.lineno, *(d.lineno for d in function.decorator_list)])
        last = function.end_lineno or function.lineno
        own = "\n".join(lines[first - 1 : last])
        if fingerprint(own) == print_ or formatted_only("check", own, print_):
            return Generated(first, last, function.name, found[0], found[1], True)
        if _registers_key(found[0], found[1], function.name, key):
            registered.append(Generated(first, last, function.name, found[0], found[1], False))
    return registered[0] if len(registered) == 1 else None


def _registers_key(case_id: str, criterion: str, name: str, key: str) -> bool:
    case_part, _, rest = key.partition(".")
    if len(case_part) == 2 * checkgen.KEY_BYTES:
        return short_hash(case_id) == case_part and short_hash(criterion) == rest.split("_", 1)[0]
    # a 32-bit key of an older module: the case's short hash, then the function name's ending
    return short_hash(case_id, 4) == case_part and name.endswith("_" + rest)


__all__ = ["Generated", "formatted_only", "generated_function", "same_code"]


def generated_preamble(text: str, print_: str) -> str | None:
    """The preamble the import wrote, found from an edited one: a rebuilt candidate with the
    marker's fingerprint (None when the person edited its docstring, or it does not parse)."""
    tree = parse(text)
    found = [] if tree is None else [c for c in preamble_candidates(tree) if fingerprint(c) == print_]
    return found[0] if found else None


def generated_comments(text: str, print_: str) -> str:
    """A case region without the comment lines the import wrote (the whole region when they
    cannot be found as written: then every line may be a person's)."""
    lines = text.split("\n")
    for start, line in enumerate(lines):
        if line != checkgen.RULE:
            continue
        for end in range(start + 1, min(len(lines), start + _MOST_CASE_LINES) + 1):
            if fingerprint("\n".join(lines[start:end])) == print_:
                return "\n".join(lines[:start] + lines[end:])
    return text


_MOST_CASE_LINES = 5_000  # a case's comments: its id, origin and notes


def defined_names(text: str) -> set[str] | None:
    """The names `text` defines at its top level; None when that cannot be told
    (it does not parse alone, or it imports with `*`)."""
    tree = parse(text)
    if tree is None:
        return None
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    return None
                names.add(alias.asname or alias.name.split(".", 1)[0])
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def called_names(text: str) -> set[str]:
    """The names `text` reads (every name a check might call); none when it does not parse alone."""
    tree = parse(text)
    if tree is None:
        return set()
    return {
        node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


@functools.cache
def helper_names() -> frozenset[str]:
    """Every helper a generated preamble defines, with or without a dialect."""
    names: set[str] = set()
    for text in (checkgen.HELPERS, checkgen.vocabulary_source()):
        names |= defined_names(text) or set()
    return frozenset(names)
