"""Templates rendered as promptfoo's Nunjucks renders them, or refused by name.

Jinja2 and Nunjucks share a syntax, not a meaning. Rendering runs in Jinja2's
immutable sandbox, over an AST that has first been checked against a
whitelist of the constructs configs use and whose meaning is the same in both
engines once a few are re-pointed at JavaScript's semantics:

- output (`{{ x }}`) prints as JavaScript's String() does, undefined and null
  as nothing (`finalize`);
- `~` concatenation, comparisons and `for` loops are rewritten into calls of
  helpers with JavaScript's rules (loose `==`, arrays only, a loop budget);
- attribute and item access reach only an object's own keys and an array's
  indexes: never a Python attribute (`''.__class__` is refused, not run);
- filters: upper, lower, trim, dump, join, default (d), length, first, last,
  safe, load (promptfoo's JSON.parse), each written to JavaScript's rules.

Everything else (include, import, extends, macros, set, calls, arithmetic,
slices, literals lists, other filters) is refused naming the construct: there
is no loader, no file or environment access, and no call at all.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Iterator, Mapping
from typing import Any

from jinja2 import TemplateSyntaxError, Undefined, nodes
from jinja2.runtime import LoopContext
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

from .jsvalues import JS_SPACE, JSDict, JSList, js_keys, js_string
from .nunjucks import (
    FILTERS,
    MAX_OUTPUT,
    TESTS,
    EnvVars,
    TemplateProblem,
    _Budget,
    _compare,
    _concat,
    _fail,
    _iterable,
    _Undefined,
)


class _Environment(ImmutableSandboxedEnvironment):
    def getattr(self, obj: Any, attribute: str) -> Any:
        return _member(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        return _member(obj, argument)


def _member(obj: Any, key: Any) -> Any:
    """Nunjucks' memberLookup, limited to what has one meaning in both languages."""
    if obj is None or isinstance(obj, Undefined):
        return _Undefined()
    if isinstance(obj, EnvVars):
        if isinstance(key, str) and key in obj:
            return obj[key]
        _fail(f"env.{key}: a variable of the environment promptfoo runs in")
    if isinstance(obj, dict):
        key = js_string(key) if isinstance(key, (int, float)) else key
        return obj[key] if isinstance(key, str) and key in obj else _Undefined()
    if isinstance(obj, LoopContext) and key in (
        "index",
        "index0",
        "revindex",
        "revindex0",
        "first",
        "last",
        "length",
    ):
        return getattr(obj, key)
    if isinstance(obj, list) and isinstance(key, int) and not isinstance(key, bool):
        return obj[key] if 0 <= key < len(obj) else _Undefined()
    kind = (
        type(obj).__name__
        if not isinstance(obj, (list, str))
        else ("an array" if isinstance(obj, list) else "a string")
    )
    _fail(f"looking up {key!r} in {kind} (JavaScript gives its own properties there)")


_ALLOWED = (
    nodes.Template,
    nodes.Output,
    nodes.TemplateData,
    nodes.Name,
    nodes.Const,
    nodes.Getattr,
    nodes.Getitem,
    nodes.If,
    nodes.For,
    nodes.CondExpr,
    nodes.And,
    nodes.Or,
    nodes.Not,
    nodes.Filter,
    nodes.Test,
    nodes.Compare,
    nodes.Operand,
    nodes.Concat,
    nodes.Call,
    nodes.Scope,  # only {% autoescape %} makes one (without a line): its body names it, with its line
)


_NAMED = {
    nodes.Include: "{% include %} (a file the template would read)",
    nodes.Import: "{% import %}",
    nodes.FromImport: "{% from ... import %}",
    nodes.Extends: "{% extends %}",
    nodes.Block: "{% block %}",
    nodes.Macro: "{% macro %}",
    nodes.CallBlock: "{% call %}",
    nodes.FilterBlock: "{% filter %} blocks",
    nodes.Assign: "{% set %}",
    nodes.AssignBlock: "{% set %} blocks",
    nodes.With: "{% with %} (not Nunjucks)",
    nodes.ScopedEvalContextModifier: "{% autoescape %}",
    nodes.ExprStmt: "{% do %} (not Nunjucks)",
    nodes.Continue: "{% continue %} (not Nunjucks)",
    nodes.Break: "{% break %} (not Nunjucks)",
    nodes.Slice: "slices ([a:b]), which Nunjucks reads differently",
    nodes.List: "list literals",
    nodes.Tuple: "tuples and several loop variables",
    nodes.Dict: "object literals",
    nodes.Pos: "unary +",
    nodes.Neg: "unary -",
    nodes.Add: "+ (JavaScript adds text and numbers differently)",
    nodes.Sub: "-",
    nodes.Mul: "* (repeats text in Python)",
    nodes.Div: "/",
    nodes.FloorDiv: "//",
    nodes.Mod: "%",
    nodes.Pow: "** (unbounded in Python)",
}


def _problem(node: nodes.Node) -> TemplateProblem | None:
    what = _unsupported(node)
    return TemplateProblem(what, getattr(node, "lineno", None)) if what is not None else None


def _unsupported(node: nodes.Node) -> str | None:
    """What in the node promptfoo's Nunjucks would not render alike (None: nothing)."""
    named = _NAMED.get(type(node))
    if named is not None:
        return named
    if not isinstance(node, _ALLOWED):
        return f"the {type(node).__name__} construct"
    if isinstance(node, nodes.Call):  # checked before the helpers' own calls are written in
        return "calling a function or method"
    if isinstance(node, (nodes.Filter, nodes.Test, nodes.For)):
        return _block_problem(node)
    return _expression_problem(node)


def _block_problem(node: nodes.Filter | nodes.Test | nodes.For) -> str | None:
    if isinstance(node, nodes.Filter) and node.name not in FILTERS:
        return f"the {node.name} filter"
    if isinstance(node, nodes.Filter) and (node.kwargs or node.dyn_args or node.dyn_kwargs):
        return f"keyword arguments to the {node.name} filter"
    if isinstance(node, nodes.Test) and node.name not in TESTS:
        return f"the `is {node.name}` test"
    if isinstance(node, nodes.For) and (node.recursive or node.test is not None):
        return "for loops with `if` or `recursive` (not Nunjucks)"
    if isinstance(node, nodes.For) and not isinstance(node.target, nodes.Name):
        return "for loops with several variables"
    return None


def _expression_problem(node: nodes.Node) -> str | None:
    if isinstance(node, nodes.Compare) and len(node.ops) > 1:
        return "chained comparisons (JavaScript compares the first result with the next)"
    if isinstance(node, nodes.Const) and not isinstance(node.value, (str, int, float, bool, type(None))):
        return f"a {type(node.value).__name__} literal"
    if isinstance(node, nodes.Name) and node.name.startswith(_HELPER):
        return f"the name {node.name}"
    return None


_HELPER = "__pf_"


_CAPITALIZED = ("True", "False", "None")  # Nunjucks has only true, false, none and null


def _helper_call(name: str, args: list[nodes.Expr], lineno: int) -> nodes.Call:
    return nodes.Call(nodes.Name(_HELPER + name, "load", lineno=lineno), args, [], None, None, lineno=lineno)


class _Rewrite(NodeTransformer):
    """Concatenation, comparison and loop iterables re-pointed at the JavaScript helpers; strings
    whose escapes Nunjucks reads otherwise given Nunjucks' value."""

    def __init__(self, strings: Strings | None = None) -> None:
        self.strings = strings or {}

    def visit_Const(self, node: nodes.Const) -> nodes.Node:
        if self.strings and isinstance(node.value, str):
            value = self.strings.get((node.lineno, node.value))
            if value is not None:
                return nodes.Const(value, lineno=node.lineno)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        parts: list[nodes.Expr] = [self.visit(n) for n in node.nodes]
        return _helper_call("concat", [nodes.List(parts, lineno=node.lineno)], node.lineno)

    def visit_Compare(self, node: nodes.Compare) -> nodes.Node:
        left = self.visit(node.expr)
        result: nodes.Expr | None = None
        for operand in node.ops:
            right = self.visit(operand.expr)
            call = _helper_call("compare", [left, nodes.Const(operand.op), right], node.lineno)
            result = call if result is None else nodes.And(result, call, lineno=node.lineno)
            left = right
        assert result is not None
        return result

    def visit_Name(self, node: nodes.Name) -> nodes.Node:
        if node.name == "null" and node.ctx == "load":  # Nunjucks' lexer reads `null` as `none`
            return nodes.Const(None, lineno=node.lineno)
        return node

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        iterable: nodes.Expr = node.iter  # type: ignore[assignment]  # jinja2 types it as Node
        node.iter = _helper_call("iterable", [iterable], node.lineno)
        return node


def check(tree: nodes.Template) -> None:
    """Raise TemplateProblem for the first construct outside the whitelist."""
    for node in _walk(tree):
        problem = _problem(node)
        if problem is not None:
            raise problem


Strings = dict[tuple[int, str], str]  # (line, Jinja2's value of a string) -> Nunjucks' value


def check_tokens(env: _Environment, template: str) -> Strings:
    """Raise TemplateProblem for a token the two lexers read differently (the AST no longer shows
    it); return the strings whose escapes the two read differently, with Nunjucks' value."""
    previous = ""
    strings: list[tuple[int, str]] = []  # (line, the string as written) of each string token
    for lineno, kind, value in env.lex(template):
        problem = _token_problem(kind, value, previous)
        if problem is not None:
            raise TemplateProblem(problem, lineno)
        if kind == "string":
            strings.append((lineno, value))
        if kind != "whitespace":
            previous = value
    foreign = any("\\" in text and _foreign(text) for _, text in strings)
    return _nunjucks_strings(env, template, strings) if foreign else {}


def _token_problem(kind: str, value: str, previous: str) -> str | None:
    if kind == "name" and value in _CAPITALIZED:
        return f"{value} (a constant in Jinja2, a variable name in Nunjucks)"
    if kind in ("integer", "float") and not _NUNJUCKS_NUMBER.fullmatch(value):
        return f"the number {value} (Nunjucks reads digits with at most one point, nothing else)"
    if kind == "integer" and previous == ".":
        return f".{value} (an index after a dot, which Nunjucks cannot read)"
    return None


def _foreign(written: str) -> bool:
    return any(m.group(1) not in _SHARED_ESCAPES for m in _ESCAPE.finditer(written))


def _nunjucks_strings(env: _Environment, template: str, written: list[tuple[int, str]]) -> Strings:
    """The strings Nunjucks reads otherwise than Jinja2 (`\\{`, `\\x41`), keyed by line and Jinja2's
    value (what the tree holds), with Nunjucks' value. Every string of the template is paired
    with Jinja2's value of it (its lexer yields them in the same order); two on one line that
    Jinja2 reads alike and Nunjucks does not (`"\\x41"` beside `"A"`) cannot be told apart in the
    tree: refused."""
    decoded = [str(token.value) for token in env.lexer.tokenize(template) if token.type == "string"]
    read: Strings = {}
    for (lineno, text), theirs in zip(written, decoded, strict=True):
        ours = nunjucks_string(text)
        if read.get((lineno, theirs), ours) != ours:
            raise TemplateProblem(
                f"the escapes of {text} (two strings alike in Jinja2, not in Nunjucks)", lineno
            )
        read[(lineno, theirs)] = ours
    return {key: value for key, value in read.items() if key[1] != value}


def nunjucks_string(written: str) -> str:
    """A string token's value as Nunjucks' lexer reads it: \\n, \\t and \\r are control
    characters, any other escaped character is itself (`\\{` is `{`, `\\x41` is `x41`)."""
    return _ESCAPE.sub(lambda m: _CONTROL.get(m.group(1), m.group(1)), written[1:-1])


_CONTROL = {"n": "\n", "t": "\t", "r": "\r"}


_NUNJUCKS_NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?")


# Nunjucks' lexer: \n, \t and \r are control characters, any other escaped character is itself;
# Python's unicode-escape, which Jinja2 applies, agrees only on these and on \\, \' and \"
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


_SHARED_ESCAPES = "ntr\\'\""


def _walk(tree: nodes.Node) -> Iterator[nodes.Node]:
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(list(node.iter_child_nodes())))


@functools.lru_cache(maxsize=1)
def _environment() -> _Environment:
    env = _Environment(autoescape=False, keep_trailing_newline=True, undefined=_Undefined, finalize=js_string)
    env.filters = dict(FILTERS)
    env.tests = {
        "defined": lambda v: not isinstance(v, Undefined),
        "undefined": lambda v: isinstance(v, Undefined),
        "none": lambda v: v is None,
    }
    env.globals = {}
    return env


@functools.lru_cache(maxsize=4096)
def _compiled(template: str) -> Any:
    env = _environment()
    # Jinja2 decodes a string's escapes with Python's unicode-escape, which warns of one it does
    # not know (`\{`): such a string is given Nunjucks' value below, so the warning says nothing.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            tree = env.parse(template)
        except TemplateSyntaxError as exc:
            raise TemplateProblem(
                f"a template Nunjucks cannot read either: {exc.message}", exc.lineno
            ) from None
        check(tree)
        strings = check_tokens(env, template)
    rewritten = _Rewrite(strings).visit(tree)
    return env.template_class.from_code(env, env.compile(rewritten), env.globals, None)


def has_template(text: str) -> bool:
    return "{{" in text or "{%" in text or "{#" in text


def render(template: str, variables: Mapping[str, object], env_vars: Mapping[str, object]) -> str:
    """`template` rendered with `variables` (already in their JavaScript form) as Nunjucks renders it."""
    if not has_template(template):
        return template
    compiled = _compiled(template)
    budget = _Budget()
    context = dict(variables)
    context.setdefault("env", EnvVars(env_vars))
    context[_HELPER + "concat"] = _concat
    context[_HELPER + "compare"] = _compare
    context[_HELPER + "iterable"] = lambda value: _iterable(value, budget)
    pieces: list[str] = []
    size = 0
    try:
        for piece in compiled.generate(context):
            size += len(piece)
            if size > MAX_OUTPUT:
                raise TemplateProblem(f"output longer than {MAX_OUTPUT} characters")
            pieces.append(piece)
    except TemplateProblem:
        raise
    except RecursionError:
        raise TemplateProblem("nesting too deep to render") from None
    except Exception as exc:  # anything Jinja2 raises is something Nunjucks would not do the same way
        raise TemplateProblem(f"{type(exc).__name__}: {exc}") from None
    return "".join(pieces)


# promptfoo wraps a template holding an unfinished tag in {% raw %} (autoWrapRawIfPartialNunjucks):
# a tag opened and not closed before the end of a line (JavaScript's multiline $).
_LINE_END = "(?=[\n\r\u2028\u2029]|\\Z)"


_PARTIAL = re.compile(f"({{%[^%]*{_LINE_END}|{{{{[^}}]*{_LINE_END}|{{#[^#]*{_LINE_END})")


_RAW = re.compile(r"{%\s*raw\s*%}")


_ENDRAW = re.compile(r"{%\s*endraw\s*%}")


def auto_wrap(template: str) -> str:
    if _PARTIAL.search(template) and not (_RAW.search(template) and _ENDRAW.search(template)):
        if _ENDRAW.search(template):
            raise TemplateProblem(
                "an unfinished tag beside {% endraw %} (promptfoo's raw wrapping breaks there)"
            )
        return "{% raw %}" + template + "{% endraw %}"
    return template


# resolveVariables: before rendering, `{{ name }}` in a var's text is replaced by var `name`
# (the first such reference per var per pass, at most five passes), as JavaScript's
# String.replace does it, `$&`-style patterns in the replacement included.
_REFERENCE = re.compile(f"\\{{\\{{[{JS_SPACE}]*([A-Za-z0-9_]+)[{JS_SPACE}]*\\}}\\}}")


_DOLLAR = re.compile(r"\$([$&`'])")


def resolve_variables(variables: dict[str, object]) -> None:
    for _ in range(5):
        resolved = True
        for key in list(variables):
            value = variables[key]
            if not isinstance(value, str):
                continue
            match = _REFERENCE.search(value)
            if match and match.group(1) in variables:
                variables[key] = _replace_first(value, match, js_string_of_var(variables[match.group(1)]))
                resolved = False
        if resolved:
            return


def _replace_first(value: str, match: re.Match[str], replacement: str) -> str:
    r"""String.prototype.replace(string, string): `$$`, `$&`, `$\`` and `$'` expand in the replacement."""
    before, after = value[: match.start()], value[match.end() :]
    specials = {"$": "$", "&": match.group(0), "`": before, "'": after}
    return before + _DOLLAR.sub(lambda m: specials[m.group(1)], replacement) + after


def js_string_of_var(value: object) -> str:
    """String(value) for a replacement: null and undefined are printed by name here."""
    if value is None:
        return "null"
    return js_string(value)


def render_in_object(
    value: object, variables: Mapping[str, object], env_vars: Mapping[str, object]
) -> object:
    """renderVarsInObject: every string inside a JSON prompt rendered with the vars."""
    if isinstance(value, str):
        return render(value, variables, env_vars)
    if isinstance(value, list):
        return JSList(render_in_object(v, variables, env_vars) for v in value)
    if isinstance(value, dict):
        return JSDict((k, render_in_object(value[k], variables, env_vars)) for k in js_keys(value))
    return value


__all__ = [
    "JSDict",
    "JSList",
    "TemplateProblem",
    "auto_wrap",
    "render",
    "render_in_object",
    "resolve_variables",
]
