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


_TERMINATORS = "\n\r\u2028\u2029"  # JavaScript's line terminators: `.`, `^` and `$` (m) stop at each
# The flags `new RegExp(pattern, flags)` takes whose meaning Python reproduces; g and d change
# what a match returns, not where one is found. u, v and y change the syntax or anchor the search.
FLAGS = frozenset("gimsd")


def translate(pattern: str, flags: str = "") -> str:
    """The Python pattern that matches exactly where the JavaScript one does (with `flags`, the
    `new RegExp(pattern, flags)` it is): i folds ASCII letters only (JavaScript's non-Unicode
    case folding keeps non-ASCII letters from matching ASCII ones, which Python's does not, so a
    non-ASCII letter under i is refused), m makes `^` and `$` stop at every line terminator,
    s lets `.` match them."""
    _check_flags(pattern, flags)
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
        elif ch == "[":
            piece, i = _char_class(pattern, i)
        elif ch == "(" and pattern.startswith("(?", i):
            piece, i = _group_opener(pattern, i)
        elif ch == "{" and (quantifier := _QUANTIFIER.match(pattern, i)):
            # {n}, {n,} and {n,m} repeat, as in Python
            piece, i, quantified = quantifier.group(), quantifier.end(), True
        else:
            piece, i = _single(ch, flags), i + 1
        out.append(piece)
    return _flagged("".join(out), flags, needs_ascii=needs_ascii)


def _group_opener(pattern: str, i: int) -> tuple[str, int]:
    """A `(?` group JavaScript and Python read alike, and where the pattern goes on."""
    opener = next((o for o in _GROUP_OPENERS if pattern.startswith(o, i)), None)
    if opener is None:
        raise NotTranslatable(
            f"the group {pattern[i : i + 4]!r}… (JavaScript reads it differently or not at all)"
        )
    return opener, i + len(opener)


def _single(ch: str, flags: str) -> str:
    """One character outside a class, escape or group: `.`, `^` and `$` under the flags."""
    if ch == ".":
        return r"[\s\S]" if "s" in flags else _DOT
    if ch == "$":
        return f"(?=[{_TERMINATORS}]|\\Z)" if "m" in flags else r"\Z"
    if ch == "^" and "m" in flags:
        return f"(?:\\A|(?<=[{_TERMINATORS}]))"
    if ch in "{}":
        return "\\" + ch  # a brace that is not a quantifier is literal in JavaScript
    return ch


def _flagged(translated: str, flags: str, *, needs_ascii: bool) -> str:
    """The translation with the inline flags it needs, once Python is seen to compile it."""
    try:
        re.compile(translated)
    except re.error as exc:
        raise NotTranslatable(f"a pattern Python cannot compile once translated ({exc})") from None
    if "i" in flags:
        return "(?ai)" + translated
    return ("(?a)" if needs_ascii else "") + translated


def _check_flags(pattern: str, flags: str) -> None:
    unknown = sorted(set(flags) - FLAGS)
    if unknown or len(set(flags)) != len(flags):
        what = f"the flag {unknown[0]!r}" if unknown else "a flag given twice"
        raise NotTranslatable(f"{what} (flags {flags!r}; Python reproduces g, i, m, s and d)")
    if "i" in flags and _NON_ASCII_LETTER.search(pattern):
        raise NotTranslatable(
            "a non-ASCII letter under the i flag (JavaScript and Python fold its letter case differently)"
        )


# A cased letter outside ASCII, written or escaped (\u00e9, \xe9): under i, JavaScript's folding differs.
_NON_ASCII_LETTER = re.compile(r"[^\x00-\x7f]|\\u(?!00[0-7])[0-9a-fA-F]{4}|\\x[89a-fA-F][0-9a-fA-F]")


_QUANTIFIER = re.compile(r"\{\d+(,\d*)?\}")


def _escape(pattern: str, i: int, *, in_class: bool) -> tuple[str, int, bool]:
    if i + 1 >= len(pattern):
        raise NotTranslatable("a pattern ending in a backslash")
    ch = pattern[i + 1]
    if ch in _OUTSIDE or ch in "bB":
        return _shorthand(ch, i, in_class=in_class)
    if ch in "ux" and (code := _code_escape(pattern, i)) is not None:
        return code, i + len(code), False
    return _plain_escape(pattern, i)


def _shorthand(ch: str, i: int, *, in_class: bool) -> tuple[str, int, bool]:
    """\\d, \\w, \\s (and their negations), \\b and \\B: the flag says \\b or \\B needs (?a)."""
    if ch in _OUTSIDE:
        if in_class:  # \D, \W and \S in a class never come here (_char_class)
            return _CLASS_ESCAPES[ch], i + 2, False
        return _OUTSIDE[ch], i + 2, False
    if in_class:  # [\b] is a backspace, [\B] the letter B
        return "\\x08" if ch == "b" else "B", i + 2, False
    return "\\" + ch, i + 2, True


def _code_escape(pattern: str, i: int) -> str | None:
    """\\uXXXX or \\xXX, read alike; None when the hex digits are not all there."""
    width = 4 if pattern[i + 1] == "u" else 2
    if re.fullmatch(f"[0-9a-fA-F]{{{width}}}", pattern[i + 2 : i + 2 + width]):
        return pattern[i : i + 2 + width]
    return None


def _plain_escape(pattern: str, i: int) -> tuple[str, int, bool]:
    """An escaped digit, control letter or punctuation; any other letter is refused."""
    ch = pattern[i + 1]
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


_NEGATED_IN_CLASS = {"D": "0-9", "W": "A-Za-z0-9_", "S": JS_SPACE}  # what \\D, \\W, \\S leave out


def _char_class(pattern: str, i: int) -> tuple[str, int]:
    """A class as Python reads it alike; one holding \\D, \\W or \\S (Python's own differ, and a
    negated set cannot sit inside a set) becomes a group: a member of the rest or of each."""
    j = i + 1
    negated = j < len(pattern) and pattern[j] == "^"
    j += negated
    if j < len(pattern) and pattern[j] == "]":
        raise NotTranslatable("an empty character class [] or [^]")
    members: list[str] = []
    outside: list[str] = []  # the sets a \\D, \\W or \\S in the class stands outside of
    while j < len(pattern) and pattern[j] != "]":
        if pattern[j : j + 2] in ("\\D", "\\W", "\\S"):
            outside.append(_NEGATED_IN_CLASS[pattern[j + 1]])
            j += 2
            continue
        if pattern[j] == "\\":
            piece, j, _ = _escape(pattern, j, in_class=True)
            members.append(piece)
            continue
        members.append("\\[" if pattern[j] == "[" else pattern[j])  # literal in JavaScript
        j += 1
    if j >= len(pattern):
        raise NotTranslatable("an unterminated character class")
    rest = "".join(members)
    if not outside:
        return ("[^" if negated else "[") + rest + "]", j + 1
    if not negated:  # in the rest, or outside any one of the sets
        return "(?:" + "|".join([f"[{rest}]"] * bool(rest) + [f"[^{o}]" for o in outside]) + ")", j + 1
    # in none of the rest, and inside every one of the sets
    ahead = f"(?![{rest}])" * bool(rest) + "".join(f"(?=[{o}])" for o in outside[:-1])
    return f"(?:{ahead}[{outside[-1]}])", j + 1


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
