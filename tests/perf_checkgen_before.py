"""The check module's generation as it was before issue 38's second pass (perf-checkgen): kept
verbatim, so a test can hold the faster code to writing byte for byte what this wrote.

Only what that pass changed or could change is kept here; the header, the helpers and the
preamble come from the live module (unchanged by it).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from adhd_evals.importing.checkgen import MARKER, RULE
from adhd_evals.importing.checkgen import preamble as live_preamble
from adhd_evals.importing.model import Case, Check, CheckKind, ImportResult, Note
from adhd_evals.text import printable


def literal(value: Any) -> str:
    """A Python literal for a string, a bool, a bounded int, or a list of strings.

    `repr` escapes quotes, backslashes and every non-printable character
    (newlines, NUL, form feed, U+2028/U+2029/U+0085, lone surrogates), so the
    result is always one line that evaluates back to exactly `value`.
    """
    if isinstance(value, str):
        return _quoted(value)
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):  # counts, bounded by the dialect's reader
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    raise TypeError(f"no literal for {type(value).__name__}")


def _quoted(value: str) -> str:
    """`repr`, with the quotes black and ruff format choose: double, unless that
    needs more escaped quotes than single (so a formatter leaves it as it is)."""
    written = repr(value)
    if written[0] == '"' or '"' not in value:  # Python chose double, or no quote to escape
        return written if written[0] == '"' else f'"{written[1:-1]}"'
    if "'" not in value or value.count('"') > value.count("'"):
        return written
    # repr escaped every ' (it holds both kinds): escape the " instead; in repr's
    # text a ' is always preceded by its escaping backslash.
    return '"' + written[1:-1].replace("\\'", "'").replace('"', '\\"') + '"'


LINE_LENGTH = 88  # black's and ruff format's default: the module is laid out as they lay it out


def _fits(line: str) -> bool:
    """Whether a formatter keeps `line` whole. Every non-ASCII character counts
    twice (an upper bound of the display width both formatters measure), so a
    line kept whole here is kept whole by both; a line split here carries a
    trailing comma, which both keep split."""
    size = len(line)
    if size > LINE_LENGTH:  # the width is at least the length: most criteria's lines end here
        return False
    if size * 2 <= LINE_LENGTH or line.isascii():
        return True
    # Width = length + the non-ASCII characters = 2 * length - the ASCII ones; the codec
    # counts those in C (ignore drops every other character, lone surrogates included).
    return 2 * size - len(line.encode("ascii", "ignore")) <= LINE_LENGTH


Arg = str | tuple[str, list[str]]  # a rendered argument, or a list literal: (its "name=" or "", items)


def _flat(arg: Arg) -> str:
    return arg if isinstance(arg, str) else f"{arg[0]}[{', '.join(arg[1])}]"


def call_lines(head: str, args: list[Arg], indent: str = "") -> list[str]:
    """`head(args)` on one line when it fits, else one argument a line with a trailing
    comma (a list that does not fit either: one item a line), as black and ruff write it."""
    whole = f"{indent}{head}({', '.join([arg if type(arg) is str else _flat(arg) for arg in args])})"
    if _fits(whole):
        return [whole]
    inner = indent + "    "
    lines = [f"{indent}{head}("]
    for arg in args:
        one = f"{inner}{_flat(arg)},"
        if isinstance(arg, str) or _fits(one):
            lines.append(one)
        else:
            lines += [f"{inner}{arg[0]}[", *(f"{inner}    {item}," for item in arg[1]), f"{inner}],"]
    lines.append(f"{indent})")
    return lines


def _arg(value: Any, prefix: str = "") -> Arg:
    if isinstance(value, (list, tuple)) and not any(isinstance(item, (list, tuple)) for item in value):
        return prefix, [literal(item) for item in value]
    return prefix + literal(value)


def comment(text: str, prefix: str = "# ") -> list[str]:
    """Comment lines for `text`: split on its own newlines, each line escaped.

    The merge trusts `# adhd-evals:` lines, so source text can never write one:
    the colon of "adhd-evals:" is escaped wherever it appears (as \\x3a).
    """
    if "\n" not in text:  # most comments are one line
        return [(prefix + _unforgeable(printable(text))).rstrip()]
    return [(prefix + _unforgeable(printable(line))).rstrip() for line in text.split("\n")]


_MARKER_WORD = MARKER[2:].rstrip(" ")  # "adhd-evals:"


def _unforgeable(line: str) -> str:
    return line.replace(_MARKER_WORD, _MARKER_WORD[:-1] + "\\x3a") if _MARKER_WORD in line else line


def note_text(note: Note) -> str:
    return f"{note.key}: {_NOTE_JSON(note.value)}"


_NOTE_JSON = json.JSONEncoder(ensure_ascii=False, default=str).encode  # built once, not per note


_IDENT = re.compile(r"[^0-9a-zA-Z]+")


def function_names(cases: Iterable[Case]) -> dict[str, str]:
    """A stable, unique ASCII function stem for each case id."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for case in cases:
        stem = _IDENT.sub("_", case.id).strip("_").lower()
        if not stem or stem in taken or not stem.isascii():
            digest = hashlib.blake2s(case.id.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()
            stem = f"{stem}_{digest}" if stem else f"case_{digest}"
        taken.add(stem)
        names[case.id] = stem
    return names


def call(check: Check, quoted: str = "") -> tuple[str, list[Arg]]:
    """The function and arguments that check one criterion against `answer`; `quoted`, when
    given, is the criterion's literal (an unwritten check's text is usually its criterion,
    so the module quotes it once, not twice)."""
    if check.kind is CheckKind.UNWRITTEN:
        text = check.args[0]
        return "unwritten", [quoted if quoted and text == check.criterion else literal(text)]
    answer: list[Arg] = [] if check.kind.traced else ["answer"]  # a trace check reads the row's trace
    args: list[Arg] = [*answer, *(_arg(arg) for arg in check.args)]
    args += [_arg(value, f"{name}=") for name, value in check.options]
    return check.kind.value, args


def check_text(case_id: str, criterion: str, name: str, function: str, args: list[Arg]) -> str:
    """One generated check: its registration, its function, its one return."""
    return _check_text(literal(case_id), literal(criterion), name, function, args)


def _check_text(quoted_id: str, quoted_criterion: str, name: str, function: str, args: list[Arg]) -> str:
    """`check_text` from the id's and the criterion's literals (a case quotes its id once)."""
    define = f"def {name}(answer: str) -> bool:"
    if not _fits(define):
        define = f"def {name}(\n    answer: str,\n) -> bool:"
    decorator = call_lines("@check", [quoted_id, quoted_criterion])
    body = call_lines(f"return {function}", args, "    ")
    return "\n".join([*decorator, define, *body])


class Unit(NamedTuple):
    """One generator-owned piece of the module, closed by its marker line.

    `key` is a stable identity (hashes of the case id and the criterion, so a
    hand-edited check stays attached when its neighbours change); the marker
    also carries a fingerprint of the text as generated, which is how a
    re-import tells an untouched unit from one a person edited. A NamedTuple:
    a module of 200,000 cases builds close to a million of these.
    """

    kind: str  # "preamble", "case" or "check"
    key: str
    text: str
    legacy_key: str = ""  # the 32-bit key of modules written before keys were 64 bits wide
    case_id: str = ""  # for a check: what it registers, and its function's name
    criterion: str = ""
    name: str = ""

    @property
    def marker(self) -> str:
        return f"{MARKER}{self.kind} {self.key} {fingerprint(self.text)}"


KEY_BYTES = 8  # 64-bit keys: a collision in a million-case catalog has odds below 1 in 10^7


def short_hash(text: str, size: int = KEY_BYTES) -> str:
    return _blake2s(text.encode("utf-8", "surrogatepass"), digest_size=size).hexdigest()


def _key_and_short(text: str) -> tuple[str, str]:
    """`short_hash(text)` and `short_hash(text, 3)`, from one encoding of `text`."""
    data = text.encode("utf-8", "surrogatepass")
    return _blake2s(data, digest_size=KEY_BYTES).hexdigest(), _blake2s(data, digest_size=3).hexdigest()


_blake2s = hashlib.blake2s


def fingerprint(text: str) -> str:
    """short_hash(text.strip("\n"), 8), without the call between (one for every unit written)."""
    return _blake2s(text.strip("\n").encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def case_units(case: Case, stem: str) -> list[Unit]:
    case_key, legacy_case = short_hash(case.id), short_hash(case.id, 4)
    lines = [RULE, *comment(f"case {case.id}")]
    if case.origin:
        lines += comment(f"from {case.origin}")
    for kept in case.notes:
        lines += comment(note_text(kept))
        if kept.remark:
            lines += comment(f"({kept.remark})", prefix="#   ")
    units = [Unit("case", case_key, "\n".join(lines), legacy_case)]
    seen: dict[str, int] = {}
    quoted_id = literal(case.id)
    for item in case.checks:
        criterion = item.criterion
        key, short = _key_and_short(criterion)  # short: names
        seen[key] = seen.get(key, 0) + 1
        seen[short] = seen.get(short, 0) + 1
        again = f"_{seen[key]}" if seen[key] > 1 else ""
        name = f"check_{stem}_{short}" + (f"_{seen[short]}" if seen[short] > 1 else "")
        quoted = literal(criterion)
        text = _check_text(quoted_id, quoted, name, *call(item, quoted))
        units.append(
            Unit(
                "check",
                f"{case_key}.{key}{again}",
                text,
                f"{legacy_case}.{name[len(stem) + 7 :]}",
                case.id,
                criterion,
                name,
            )
        )
    return units


def units(result: ImportResult) -> list[Unit]:
    """The whole module as generated: the preamble, then each case and its checks."""
    names = function_names(result.cases)
    found = [Unit(*live_preamble(result))]
    for case in result.cases:
        found += case_units(case, names[case.id])
    return found


def assemble(parts: list[tuple[str, str]]) -> str:
    """Module text from (region text, marker line) pairs; regions keep their own spacing."""
    return "".join(region + marker + "\n" for region, marker in parts)


def region(unit: Unit, *, first: bool = False) -> str:
    """How a freshly generated unit is laid out before its marker: two blank lines
    between code and a comment, as black and ruff format put them."""
    return ("" if first else "\n\n") + unit.text + ("\n" if unit.kind == "case" else "\n\n\n")


def render(result: ImportResult) -> str:
    return "".join(render_pieces(result))


def render_pieces(result: ImportResult) -> Iterator[str]:
    """The fresh module in pieces (one per case), the same text `assemble` makes of `units`:
    a large module is streamed to its file, never held whole."""
    names = function_names(result.cases)
    first = Unit(*live_preamble(result))
    yield region(first, first=True) + first.marker + "\n"
    for case in result.cases:
        yield "".join(
            [
                f"{region(u)}{MARKER}{u.kind} {u.key} {fingerprint(u.text)}\n"
                for u in case_units(case, names[case.id])
            ]
        )
