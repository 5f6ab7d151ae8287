"""One-line `javascript` assertions whose meaning the vocabulary states exactly.

promptfoo runs a javascript assertion's value as JavaScript on `output`. A few
one-line forms mean exactly what a vocabulary check means, on every output,
and become that check (promptfoo's verdicts are compared with ours on the
fixture javascript-subset):

| javascript | check |
| --- | --- |
| `output.includes(S)` | contains(S), letter case as written |
| `output.startsWith(S)` | starts_with(S), nothing stripped |
| `output.endsWith(S)` | regex(S escaped, then `\\Z`) |
| `/P/.test(output)` | regex(P as Python reads it), no flags |
| `!` before any of these | its negation |

`S` is a string literal ('...' or "...", with \\\\, \\', \\", \\n, \\t, \\r and
\\uXXXX escapes); a final `;` is allowed. promptfoo runs a one-line value as
`return <value>`, so a value that says `return` itself always fails there (and
stays a placeholder, which fails too). Anything
else stays a placeholder, on purpose: `output.length` counts UTF-16 code units
where the vocabulary counts code points, `toLowerCase()` is not the
vocabulary's case-folding, and `&&`/`||` join two verdicts into one that no
single check gives.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from ...model import CheckKind
from .jsregex import NotTranslatable, translate


class Converted(NamedTuple):
    kind: CheckKind
    args: tuple[Any, ...]
    options: tuple[tuple[str, Any], ...]


_STRING = r"""(?P<q>['"])(?P<s>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)"""
# promptfoo trims the end of the value, then runs `return <value>` when it is one line (a value
# holding a newline is a function body, which returns nothing here): so no `return`, no line
# break before the end, and only spaces and tabs in front.
_LEAD, _TAIL = r"[ \t]*(?P<not>![ \t]*)?", r"[ \t]*;?[ \t\r\n]*"
_CALL = re.compile(
    _LEAD
    + r"output[ \t]*\.[ \t]*(?P<method>includes|startsWith|endsWith)[ \t]*\([ \t]*"
    + _STRING
    + r"[ \t]*\)"
    + _TAIL
)
_TEST = re.compile(_LEAD + r"/(?P<p>(?:\\.|[^/\\\n])+)/\.test\([ \t]*output[ \t]*\)" + _TAIL)
_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t", "r": "\r"}
_EXACT = (("ignore_case", False),)


def javascript_check(source: str) -> Converted | None:
    """The vocabulary check that means exactly what the one-line `source` means, or None."""
    call = _CALL.fullmatch(source)
    if call is not None:
        text = _literal(call.group("s"))
        if text is None or not text:
            return None  # an empty needle: includes('') is always true, which no needle says
        return _method(call.group("method"), text, bool(call.group("not")))
    test = _TEST.fullmatch(source)
    if test is not None:
        try:
            pattern = translate(test.group("p"))
        except NotTranslatable:
            return None
        return Converted(CheckKind.NOT_REGEX if test.group("not") else CheckKind.REGEX, (pattern,), _EXACT)
    return None


def _method(method: str, text: str, negated: bool) -> Converted:
    if method == "includes":
        if negated:
            return Converted(CheckKind.CONTAINS_NONE, ([text],), _EXACT)
        return Converted(CheckKind.CONTAINS, (text,), _EXACT)
    if method == "startsWith":
        kind = CheckKind.NOT_STARTS_WITH if negated else CheckKind.STARTS_WITH
        return Converted(kind, (text,), (("ignore_case", False), ("strip", False)))
    kind = CheckKind.NOT_REGEX if negated else CheckKind.REGEX
    return Converted(kind, (re.escape(text) + r"\Z",), _EXACT)


def _literal(body: str) -> str | None:
    """A JavaScript string literal's text (its body between the quotes), or None for an escape
    this does not read (\\x, octal, \\u{...}, a line continuation) or a lone surrogate."""
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]  # the pattern guarantees a character after every backslash
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", body[i + 2 : i + 6]):
            code = int(body[i + 2 : i + 6], 16)
            if 0xD800 <= code <= 0xDFFF:
                return None
            out.append(chr(code))
            i += 6
        else:
            return None
    return "".join(out)
