"""A JavaScript regular expression (no flags, as promptfoo's regex builds it) as a Python one.

`new RegExp(pattern)` and Python's `re` agree on most syntax and differ on
meaning in a few places, each translated here: `\\d`, `\\w` and `\\b` are
ASCII-only in JavaScript (Python's `(?a)` flag), `\\s` is JavaScript's
whitespace set, `.` stops at four line terminators (Python's at one), and `$`
is the very end (Python's also matches before a final newline). Anything
whose meaning differs and is not translated — named groups, `[^]`, escapes
of letters Python rejects, inline flags JavaScript has no syntax for — raises
`NotTranslatable` naming it, and the assertion stays a placeholder.
"""

from __future__ import annotations

import re

from .jsvalues import JS_SPACE


class NotTranslatable(ValueError):
    pass


_CLASS_ESCAPES = {"d": "0-9", "w": "A-Za-z0-9_", "s": JS_SPACE}
_OUTSIDE = {
    "d": "[0-9]",
    "D": "[^0-9]",
    "w": "[A-Za-z0-9_]",
    "W": "[^A-Za-z0-9_]",
    "s": f"[{JS_SPACE}]",
    "S": f"[^{JS_SPACE}]",
}
_DOT = "[^\n\r\u2028\u2029]"  # JavaScript's `.`: any character but its four line terminators
_SAME = set("bB^$.|?*+()[]{}\\/-nrtfv0123456789")
_GROUP_OPENERS = ("(?:", "(?=", "(?!", "(?<=", "(?<!")


def translate(pattern: str) -> str:
    """The Python pattern that matches exactly where the JavaScript one does."""
    out: list[str] = []
    i, n = 0, len(pattern)
    needs_ascii = False
    quantified = False  # the previous piece was a quantifier
    while i < n:
        ch = pattern[i]
        if ch == "+" and quantified:  # Python 3.11 reads `a*+` as possessive; JavaScript rejects it
            raise NotTranslatable("a possessive quantifier (*+, ++, ?+, {n}+), which JavaScript rejects")
        quantified = ch in "*+?"
        if ch == "\\":
            piece, i, ascii_word = _escape(pattern, i, in_class=False)
            needs_ascii |= ascii_word
            out.append(piece)
            continue
        if ch == "[":
            piece, i = _char_class(pattern, i)
            out.append(piece)
            continue
        if ch == "(" and pattern.startswith("(?", i):
            opener = next((o for o in _GROUP_OPENERS if pattern.startswith(o, i)), None)
            if opener is None:
                raise NotTranslatable(
                    f"the group {pattern[i : i + 4]!r}… (JavaScript reads it differently or not at all)"
                )
            out.append(opener)
            i += len(opener)
            continue
        if ch == ".":
            out.append(_DOT)
        elif ch == "$":
            out.append(r"\Z")
        elif ch == "{" and (quantifier := _QUANTIFIER.match(pattern, i)):
            out.append(quantifier.group())  # {n}, {n,} and {n,m} repeat, as in Python
            i, quantified = quantifier.end(), True
            continue
        elif ch in "{}":
            out.append("\\" + ch)  # a brace that is not a quantifier is literal in JavaScript
        else:
            out.append(ch)
        i += 1
    translated = "".join(out)
    try:
        re.compile(translated)
    except re.error as exc:
        raise NotTranslatable(f"a pattern Python cannot compile once translated ({exc})") from None
    return ("(?a)" if needs_ascii else "") + translated


_QUANTIFIER = re.compile(r"\{\d+(,\d*)?\}")


def _escape(pattern: str, i: int, *, in_class: bool) -> tuple[str, int, bool]:
    if i + 1 >= len(pattern):
        raise NotTranslatable("a pattern ending in a backslash")
    ch = pattern[i + 1]
    if ch in _OUTSIDE:
        if in_class:
            if ch not in _CLASS_ESCAPES:
                raise NotTranslatable(f"\\{ch} inside a character class")
            return _CLASS_ESCAPES[ch], i + 2, False
        return _OUTSIDE[ch], i + 2, False
    if ch in "bB":
        if in_class:  # [\b] is a backspace, [\B] the letter B
            return "\\x08" if ch == "b" else "B", i + 2, False
        return "\\" + ch, i + 2, True
    if ch == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", pattern[i + 2 : i + 6]):
        return pattern[i : i + 6], i + 6, False
    if ch == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", pattern[i + 2 : i + 4]):
        return pattern[i : i + 4], i + 4, False
    if ch.isalpha() and ch not in "nrtfv":
        raise NotTranslatable(f"the escape \\{ch}")
    if ch.isdigit() and ch != "0":
        return pattern[i : i + 2], i + 2, False  # a back-reference, read alike
    if ch == "0":
        if i + 2 < len(pattern) and pattern[i + 2].isdigit():
            raise NotTranslatable("an octal escape")
        return "\\x00", i + 2, False
    if ch in "nrtfv":
        return "\\" + ch if ch != "v" else "\\x0b", i + 2, False
    return "\\" + ch if not ch.isalnum() else ch, i + 2, False


def _char_class(pattern: str, i: int) -> tuple[str, int]:
    j = i + 1
    out = ["["]
    if j < len(pattern) and pattern[j] == "^":
        out.append("^")
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        raise NotTranslatable("an empty character class [] or [^]")
    while j < len(pattern) and pattern[j] != "]":
        if pattern[j] == "\\":
            piece, j, _ = _escape(pattern, j, in_class=True)
            out.append(piece)
            continue
        if pattern[j] == "[":
            out.append("\\[")  # literal in JavaScript; Python warns of nested sets
        else:
            out.append(pattern[j])
        j += 1
    if j >= len(pattern):
        raise NotTranslatable("an unterminated character class")
    out.append("]")
    return "".join(out), j + 1


# What translate() writes for a JavaScript token, and the token: read backwards by
# javascript_for. Longest first, so `[A-Za-z0-9_]` is \w before its `0-9` is \d.
_BACK_OUTSIDE = sorted(
    [(python, "\\" + js) for js, python in _OUTSIDE.items()] + [(_DOT, "."), ("\\Z", "$")],
    key=lambda pair: -len(pair[0]),
)
_BACK_INSIDE = sorted(
    [(python, "\\" + js) for js, python in _CLASS_ESCAPES.items()], key=lambda p: -len(p[0])
)


def javascript_for(python: str) -> str | None:
    """A JavaScript pattern (for `new RegExp`, no flags) that matches exactly where the Python
    one does, or None when there is none this can write. Each expansion translate() makes is
    read back as the token it came from (`[^\\n\\r\\u2028\\u2029]` is `.`, `\\Z` is `$`, the space
    class is `\\s`); the answer is kept only when translate() gives the Python pattern back
    from it, so it means the same by translate's own rules."""
    body = python.removeprefix("(?a)")  # translate's flag for \b and \B: they come back bare
    candidate = _read_back(body)
    try:
        return candidate if translate(candidate) == python else None
    except NotTranslatable:
        return None


def _read_back(body: str) -> str:
    out: list[str] = []
    i, n, inside = 0, len(body), False
    while i < n:
        table = _BACK_INSIDE if inside else _BACK_OUTSIDE
        found = next(((python, js) for python, js in table if body.startswith(python, i)), None)
        if found is not None:
            out.append(found[1])
            i += len(found[0])
            continue
        ch = body[i]
        if ch == "\\":
            out.append(body[i : i + 2])
            i += 2
            continue
        if ch == "[" and not inside:
            inside = True
            out.append("[^" if body.startswith("[^", i) else "[")
            i += 2 if body.startswith("[^", i) else 1
            continue
        if ch == "]" and inside:
            inside = False
        out.append(ch)
        i += 1
    return "".join(out)
