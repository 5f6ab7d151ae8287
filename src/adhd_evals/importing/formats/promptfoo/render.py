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
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

from jinja2 import TemplateSyntaxError, Undefined, nodes
from jinja2.runtime import LoopContext
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

from .jsvalues import JS_SPACE, JSDict, JSList, js_json, js_keys, js_parse_json, js_string, js_trim, js_truthy

MAX_LOOP_ITERATIONS = 100_000  # all loops of one render together
MAX_OUTPUT = 10_000_000  # characters of one render


class TemplateProblem(Exception):
    """A template (or a value it meets) that cannot be rendered as Nunjucks would render it."""

    def __init__(self, construct: str, line: int | None = None) -> None:
        super().__init__(construct)
        self.construct = construct
        self.line = line


class _Undefined(Undefined):
    """Nunjucks' undefined: prints as nothing, and looking into it gives undefined again."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name[:2] == "__":
            raise AttributeError(name)
        return self

    def __getitem__(self, key: Any) -> Any:
        return self

    def __str__(self) -> str:
        return ""


class EnvVars(JSDict):
    """`env`: only the config's own `env:` entries; any other name depends on the machine."""

    missing: Callable[[str], NoReturn] | None = None


def _fail(construct: str) -> NoReturn:
    raise TemplateProblem(construct)


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


# --- filters, to Nunjucks' definitions --------------------------------------------------------


def _text_filter(name: str, apply: Callable[[str], str], *, normalizes: bool = True) -> Callable[[Any], str]:
    def run(value: Any) -> str:
        if value is None or value is False or isinstance(value, Undefined):
            if not normalizes:  # Nunjucks' trim calls str.replace on them: a TypeError stops the render
                _fail(f"the {name} filter on {_nothing(value)} (Nunjucks stops with a TypeError there)")
            return ""  # upper and lower normalize these to ""
        if not isinstance(value, str):
            _fail(f"the {name} filter on a {type(value).__name__} (JavaScript has no such method there)")
        return apply(value)

    return run


def _nothing(value: Any) -> str:
    return "undefined" if isinstance(value, Undefined) else "null" if value is None else "false"


def _dump(value: Any, spaces: Any = None) -> str:
    if spaces is not None and (not isinstance(spaces, int) or isinstance(spaces, bool)):
        _fail("the dump filter with an indent that is not a whole number")
    # JSON.stringify: an indent below 1 is none, above 10 is 10
    return js_json(value, max(0, min(spaces or 0, 10))) or ""


def _join(value: Any, separator: Any = "", attribute: Any = None) -> str:
    if attribute is not None:
        _fail("the join filter with an attribute")
    if isinstance(value, Undefined) or value is None:
        _fail(f"the join filter on {_nothing(value)} (Nunjucks stops with a TypeError there)")
    if not isinstance(value, list):
        _fail("the join filter on something that is not an array")
    # `del = del || ''`: a false separator (0, false, null) joins with nothing
    return (js_string(separator) if js_truthy(separator) else "").join(
        "" if v is None or isinstance(v, Undefined) else js_string(v) for v in value
    )


def _default(value: Any, fallback: Any = "", boolean: Any = False) -> Any:
    if js_truthy(boolean):
        return value if js_truthy(value) and not isinstance(value, Undefined) else fallback
    return fallback if isinstance(value, Undefined) else value


def _utf16_length(text: str) -> int:
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _length(value: Any) -> int:
    if isinstance(value, str):
        return _utf16_length(value)
    if isinstance(value, dict):
        return len(value)
    if isinstance(value, list):
        return len(value)
    if value is None or isinstance(value, Undefined):
        return 0
    _fail(f"the length filter on a {type(value).__name__}")


def _end(first: bool) -> Callable[[Any], Any]:
    def run(value: Any) -> Any:
        if isinstance(value, list):
            return (value[0] if first else value[-1]) if len(value) else _Undefined()  # JSList is always true
        if isinstance(value, str):
            return (value[0] if first else value[-1]) if value and value.isascii() else _fail_astral(value)
        _fail(f"the {'first' if first else 'last'} filter on a {type(value).__name__}")

    return run


def _fail_astral(value: str) -> Any:
    if not value:
        return _Undefined()
    _fail("first/last of a string with characters outside ASCII (JavaScript counts UTF-16 units)")


def _load(value: Any) -> Any:
    if not isinstance(value, str):
        _fail("the load filter on something that is not text")
    try:
        return js_parse_json(value)
    except ValueError:
        _fail("the load filter on text that is not JSON (promptfoo stops there)")


FILTERS: dict[str, Callable[..., Any]] = {
    "upper": _text_filter("upper", str.upper),
    "lower": _text_filter("lower", str.lower),
    "trim": _text_filter("trim", js_trim, normalizes=False),
    "dump": _dump,
    "join": _join,
    "default": _default,
    "d": _default,
    "length": _length,
    "first": _end(True),
    "last": _end(False),
    "safe": lambda value: value,  # autoescape is off in promptfoo: safe changes nothing
    "load": _load,
}
TESTS = ("defined", "undefined", "none")


# --- the helpers rewritten constructs call -----------------------------------------------------


def _js_primitive(value: Any) -> Any:
    if isinstance(value, Undefined):
        return _UNDEFINED
    if isinstance(value, (list, dict)):
        _fail("comparing an array or object (JavaScript compares identities)")
    return value


_UNDEFINED = object()


def _loose_equal(a: Any, b: Any) -> bool:
    """JavaScript's == between primitives."""
    a, b = _js_primitive(a), _js_primitive(b)
    nullish = (None, _UNDEFINED)
    if a in nullish or b in nullish:
        return a in nullish and b in nullish
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return _to_number(a) == _to_number(b)


def _to_number(value: Any) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    text = js_trim(value)
    if text == "":
        return 0.0
    try:
        if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?Infinity", text):
            return float(text.replace("Infinity", "inf"))
        if re.fullmatch(r"0[xX][0-9a-fA-F]+", text):
            return float(int(text, 16))
    except ValueError:
        pass
    return float("nan")


def _compare(left: Any, op: str, right: Any) -> bool:
    if op == "eq":
        return _loose_equal(left, right)
    if op == "ne":
        return not _loose_equal(left, right)
    if op in ("in", "notin"):
        found = _contains(right, left)
        return found if op == "in" else not found
    a, b = _js_primitive(left), _js_primitive(right)
    if isinstance(a, str) and isinstance(b, str):
        if not (a.isascii() and b.isascii()):
            _fail("ordering text outside ASCII (JavaScript compares UTF-16 units)")
        pair: tuple[Any, Any] = (a, b)
    else:
        if a is _UNDEFINED or b is _UNDEFINED:
            return False
        pair = (_to_number(a if a is not None else 0), _to_number(b if b is not None else 0))
    outcome: bool = {
        "lt": pair[0] < pair[1],
        "gt": pair[0] > pair[1],
        "lteq": pair[0] <= pair[1],
        "gteq": pair[0] >= pair[1],
    }[op]
    return outcome


def _contains(container: Any, item: Any) -> bool:
    """Nunjucks' `in`: an array's element, a substring, or an object's key."""
    if isinstance(container, list):
        return any(not isinstance(v, (list, dict)) and _strict_equal(v, item) for v in container)
    if isinstance(container, str) and isinstance(item, str):
        return item in container
    if isinstance(container, dict) and isinstance(item, str):
        return item in container
    _fail("`in` on something that is not an array, text or object")


def _strict_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _concat(parts: list[Any]) -> str:
    """Nunjucks' `a ~ b` is JavaScript's `a + "" + b`: null and undefined print by name there."""
    return "".join(
        "null" if p is None else "undefined" if isinstance(p, Undefined) else js_string(p) for p in parts
    )


class _Budget:
    def __init__(self) -> None:
        self.left = MAX_LOOP_ITERATIONS


def _iterable(value: Any, budget: _Budget) -> Any:
    if value is None or isinstance(value, Undefined):
        return []
    if not isinstance(value, list):
        what = "an object" if isinstance(value, dict) else f"a {type(value).__name__}"
        _fail(f"a for loop over {what} (Nunjucks iterates arrays the same way, nothing else)")
    budget.left -= len(value)
    if budget.left < 0:
        _fail(f"loops of more than {MAX_LOOP_ITERATIONS} iterations in one template")
    return value


# --- checking and rewriting the AST ------------------------------------------------------------

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
    line = getattr(node, "lineno", None)
    named = _NAMED.get(type(node))
    if named is not None:
        return TemplateProblem(named, line)
    if not isinstance(node, _ALLOWED):
        return TemplateProblem(f"the {type(node).__name__} construct", line)
    if isinstance(node, nodes.Call):  # checked before the helpers' own calls are written in
        return TemplateProblem("calling a function or method", line)
    if isinstance(node, nodes.Filter) and node.name not in FILTERS:
        return TemplateProblem(f"the {node.name} filter", line)
    if isinstance(node, nodes.Filter) and (node.kwargs or node.dyn_args or node.dyn_kwargs):
        return TemplateProblem(f"keyword arguments to the {node.name} filter", line)
    if isinstance(node, nodes.Test) and node.name not in TESTS:
        return TemplateProblem(f"the `is {node.name}` test", line)
    if isinstance(node, nodes.For) and (node.recursive or node.test is not None):
        return TemplateProblem("for loops with `if` or `recursive` (not Nunjucks)", line)
    if isinstance(node, nodes.For) and not isinstance(node.target, nodes.Name):
        return TemplateProblem("for loops with several variables", line)
    if isinstance(node, nodes.Compare) and len(node.ops) > 1:
        return TemplateProblem(
            "chained comparisons (JavaScript compares the first result with the next)", line
        )
    if isinstance(node, nodes.Const) and not isinstance(node.value, (str, int, float, bool, type(None))):
        return TemplateProblem(f"a {type(node.value).__name__} literal", line)
    if isinstance(node, nodes.Name) and node.name.startswith(_HELPER):
        return TemplateProblem(f"the name {node.name}", line)
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


def render(template: str, variables: dict[str, Any], env_vars: dict[str, Any]) -> str:
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


def resolve_variables(variables: dict[str, Any]) -> None:
    for _ in range(5):
        resolved = True
        for key in list(variables):
            value = variables[key]
            match = _REFERENCE.search(value) if isinstance(value, str) else None
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


def js_string_of_var(value: Any) -> str:
    """String(value) for a replacement: null and undefined are printed by name here."""
    if value is None:
        return "null"
    return js_string(value)


def render_in_object(value: Any, variables: dict[str, Any], env_vars: dict[str, Any]) -> Any:
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
