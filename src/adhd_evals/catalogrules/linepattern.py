"""The fast path's first test: one regular expression over a catalog line, from the rules' facts.

Parsing a million clean lines and testing each parsed object in Python costs about twice the
parse (issue 38). So every row rule declares what the fields of a line it cannot report look
like (`facts`, contract.Field), and this module compiles them, field by field in the order
the rules first name them, into one pattern of a line: an object holding exactly those keys
in that order, each value written as its facts allow, and nothing else. Only this module
knows JSON's text (a string's escapes, the whitespace between tokens); the rules say what
their values may be. The pattern is sound, not complete: it admits only text the strict parse
accepts as such an object (UTF-8 already decoded; no surrogate escape, no raw control
character, no repeated key), and a line it refuses simply goes to the parse and the rules.

A field a recording check reads (E106's id) is matched in plain text (no escape), so the text
its group captures is the value itself; a list with a `free` test is captured whole.
"""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled
# one by one (the hook's start-up: see problem.py).
import functools
import json
import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

from .contract import ANY, TEXT, TEXTS, Field

PLAIN = r'[^"\\\x00-\x1f]'  # a character a JSON string holds as itself
# an escape, never of a surrogate (a lone one names no character: E110 looks at those)
ESCAPE = r'\\(?:["\\/bfnrt]|u(?:[0-9a-ce-fA-CE-F][0-9a-fA-F]{3}|[dD][0-7][0-9a-fA-F]{2}))'
SPACE = r"[^\S\x00-\x1f]"  # what str.strip() removes and a JSON string may hold as itself
SOLID = r'[^\s"\\\x00-\x1f]'  # a plain character str.strip() keeps
# an escape of a character str.strip() keeps: every space is U+00xx, U+1680, U+20xx or U+3000
SOLID_ESCAPE = r'\\(?:["\\/]|u(?!00|1680|20|3000|[dD][89a-fA-F])[0-9a-fA-F]{4})'
GAP = r"[ \t\n\r]*+"  # JSON's whitespace between tokens


class Merged(NamedTuple):
    """Every rule's facts about one field, added up."""

    kind: str
    nonblank: bool
    among: tuple[str, ...] | None
    nonempty: bool
    free: tuple[Callable[[str], bool], ...]


class LineTest(NamedTuple):
    """The compiled pattern, with the group each `free` test and each recorded field reads."""

    match: Callable[[str], re.Match[str] | None]
    free: tuple[tuple[int, Callable[[str], bool]], ...]
    recorded: dict[str, int]


def merged(facts: Iterable[Field]) -> dict[str, Merged]:
    """The facts by field, in the order the rules first name the fields."""
    fields: dict[str, Merged] = {}
    for fact in facts:
        was = fields.get(fact.name, Merged(ANY, False, None, False, ()))
        if ANY not in (was.kind, fact.kind) and was.kind != fact.kind:
            raise ValueError(f"two rules declare {fact.name} as {was.kind} and as {fact.kind}")
        among = _both(was.among, fact.among)
        fields[fact.name] = Merged(
            fact.kind if was.kind == ANY else was.kind,
            was.nonblank or fact.nonblank,
            among,
            was.nonempty or fact.nonempty,
            was.free + ((fact.free,) if fact.free is not None else ()),
        )
    return fields


def _both(one: tuple[str, ...] | None, other: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """The values both allow (None allows any)."""
    if one is None or other is None:
        return other if one is None else one
    return tuple(value for value in one if value in other)


@functools.lru_cache(maxsize=8)
def line_test(facts: tuple[Field, ...], recorded: tuple[str, ...]) -> LineTest | None:
    """The pattern of a line no rule can report by these facts (compiled on first use: a few
    milliseconds a hook linting 20 cases need not spend); None when some field has no kind
    (or a `free` test on a text: those read lists), or a recorded field is not text: then the
    pattern cannot vouch for any line."""
    fields = merged(facts)
    if any(field.kind == ANY or (field.free and field.kind != TEXTS) for field in fields.values()) or any(
        fields.get(name, Merged(ANY, False, None, False, ())).kind != TEXT for name in recorded
    ):
        return None
    parts, free, groups = [], [], {}
    for number, (name, field) in enumerate(fields.items(), start=1):
        plain = name in recorded
        parts.append(f"{GAP}{re.escape(json.dumps(name))}{GAP}:{GAP}{_value(field, plain=plain)}")
        free += [(number, test) for test in field.free]
        groups[name] = number
    pattern = re.compile(r"\{" + f"{GAP},".join(parts) + GAP + r"\}" + GAP)
    return LineTest(pattern.fullmatch, tuple(free), {name: groups[name] for name in recorded})


def _value(field: Merged, *, plain: bool) -> str:
    """A field's value, in one group: a text's characters within its quotes, a list whole."""
    if field.kind == TEXT:
        return f'"({_string(field.nonblank, field.among, plain=plain)})"'
    item = f'"{_string(field.nonblank, None, plain=plain)}"'
    items = f"{item}(?:{GAP},{GAP}{item})*+{GAP}"
    return rf"(\[{GAP}{items}\])" if field.nonempty else rf"(\[{GAP}(?:{items})?\])"


def _string(nonblank: bool, among: tuple[str, ...] | None, *, plain: bool) -> str:
    """The characters of a JSON string (within its quotes) these facts allow."""
    if among is not None:  # only the values written plainly; a blank one not when nonblank
        values = [
            v for v in among if json.dumps(v, ensure_ascii=False)[1:-1] == v and (v.strip() or not nonblank)
        ]
        return "(?:" + "|".join(re.escape(v) for v in values) + ")" if values else "(?!)"
    rest = f"{PLAIN}*+" if plain else f"{PLAIN}*+(?:{ESCAPE}{PLAIN}*+)*+"
    if nonblank:  # something strip() keeps, after spaces (or escapes that may be spaces)
        return (
            f"{SPACE}*+{SOLID}{rest}" if plain else f"(?:{SPACE}|{ESCAPE})*?(?:{SOLID}|{SOLID_ESCAPE}){rest}"
        )
    return rest
