"""The generated check module: one plain Python file a team then owns.

Every text that comes from a source file reaches the module through exactly
two doors: `literal()` for code (a Python literal that evaluates back to the
same string) and `comment()` for comments (one `#` line per source line,
with anything that could end a line or hide text escaped). Nothing else
concatenates source text into code.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from ..text import printable
from .model import Case, Check, CheckKind, ImportResult, Note


def _below_docstring(name: str) -> str:
    """A module of this package, from the line after its docstring: the helpers a check
    module carries (read from the installed file, so a wheel carries them as code)."""
    text = Path(__file__).with_name(name).read_text(encoding="utf-8")
    return text[text.index('"""', 3) + 3 :].lstrip("\n")


# The helpers of a module imported without a dialect: checkhelpers.py, a real module (linted,
# type-checked and tested to agree with vocabulary.py), its text copied into every such module.
HELPERS = _below_docstring("checkhelpers.py")

VOCABULARY_FORMATS = (
    "promptfoo",
    "plugin-eval",
)  # formats whose modules carry vocabulary.py as their helpers
RULE = "# " + "-" * 76
MARKER = "# adhd-evals: "  # begins every marker line; nothing else may begin so


@functools.cache
def vocabulary_source() -> str:
    """The helpers of a module imported with a dialect: vocabulary.py after its docstring.

    Modules imported without a dialect keep HELPERS above, byte for byte, so
    that re-importing them changes nothing.
    """
    return _below_docstring("vocabulary.py")


@functools.cache
def trace_helpers() -> str:
    """The trace checks (tracehelpers.py after its docstring), added to a module's helpers
    when one of its checks reads a trace; a module without one keeps its preamble byte for byte."""
    return _below_docstring("tracehelpers.py")


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
    if '"' not in value and "\\" not in value and value.isprintable():  # repr escapes nothing
        return f'"{value}"'
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
    return _width(line) <= LINE_LENGTH


def _width(text: str) -> int:
    """The width `_fits` measures: the length, plus one for each non-ASCII character. It adds
    up over the parts of a line, so a check measures its criterion's literal once for the two
    lines that hold it."""
    if text.isascii():
        return len(text)
    # Width = length + the non-ASCII characters = 2 * length - the ASCII ones; the codec
    # counts those in C (ignore drops every other character, lone surrogates included).
    return 2 * len(text) - len(text.encode("ascii", "ignore"))


Arg = str | tuple[str, list[str]]  # a rendered argument, or a list literal: (its "name=" or "", items)


def _flat(arg: Arg) -> str:
    return arg if isinstance(arg, str) else f"{arg[0]}[{', '.join(arg[1])}]"


def call_text(head: str, args: list[Arg], indent: str = "") -> str:
    """`head(args)` on one line when it fits, else one argument a line with a trailing
    comma (a list that does not fit either: one item a line), as black and ruff write it."""
    flat = [arg if type(arg) is str else _flat(arg) for arg in args]
    whole = f"{indent}{head}({', '.join(flat)})"
    if _fits(whole):
        return whole
    inner = indent + "    "
    lines = [f"{indent}{head}("]
    for arg, text in zip(args, flat, strict=True):
        one = f"{inner}{text},"
        if isinstance(arg, str) or _fits(one):
            lines.append(one)
        else:
            lines += [f"{inner}{arg[0]}[", *(f"{inner}    {item}," for item in arg[1]), f"{inner}],"]
    lines.append(f"{indent})")
    return "\n".join(lines)


def _arg(value: Any, prefix: str = "") -> Arg:
    if isinstance(value, (list, tuple)) and not any(isinstance(item, (list, tuple)) for item in value):
        return prefix, [literal(item) for item in value]
    return prefix + literal(value)


def comment(text: str, prefix: str = "# ") -> list[str]:
    """Comment lines for `text`: split on its own newlines, each line escaped.

    The merge trusts `# adhd-evals:` lines, so source text can never write one:
    the colon of "adhd-evals:" is escaped wherever it appears (as \\x3a).
    """
    if text.isprintable():  # most comments: one line with nothing to escape (a newline is not printable)
        return [(prefix + _unforgeable(text)).rstrip()]
    if "\n" not in text:
        return [(prefix + _unforgeable(printable(text))).rstrip()]
    return [(prefix + _unforgeable(printable(line))).rstrip() for line in text.split("\n")]


_MARKER_WORD = MARKER[2:].rstrip(" ")  # "adhd-evals:"


def _unforgeable(line: str) -> str:
    return line.replace(_MARKER_WORD, _MARKER_WORD[:-1] + "\\x3a") if _MARKER_WORD in line else line


def note_text(note: Note) -> str:
    value = note.value
    # a text (most notes) as the encoder writes one, without its Python-level dispatch
    return f"{note.key}: {_JSON_TEXT(value) if type(value) is str else _NOTE_JSON(value)}"


_NOTE_JSON = json.JSONEncoder(ensure_ascii=False, default=str).encode  # built once, not per note
_JSON_TEXT = json.encoder.encode_basestring  # what that encoder writes for a str


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
    quoted_id, quoted = literal(case_id), literal(criterion)
    width = _width(quoted)
    return _head(quoted_id, _width(quoted_id), quoted, width, name) + _body(function, args, quoted, width)


# The room a check's lines leave for the literals they hold, from the fixed text around them:
# `@check(<id>, <criterion>)`, `def <name>(answer: str) -> bool:`, `    return unwritten(<text>)`.
_DECORATOR_ROOM = LINE_LENGTH - len("@check(, )")
_DEFINE_ROOM = LINE_LENGTH - len("def (answer: str) -> bool:")
_UNWRITTEN_ROOM = LINE_LENGTH - len("    return unwritten()")


def _head(quoted_id: str, id_width: int, quoted_criterion: str, width: int, name: str) -> str:
    """A check's registration and `def` line, from the id's and the criterion's literals and
    their widths (a case measures its id once, a criterion is measured once), each laid out as
    `call_text` lays out a call: the template text is written here, not built and measured."""
    if _width(name) <= _DEFINE_ROOM:
        define = f"def {name}(answer: str) -> bool:"
    else:
        define = f"def {name}(\n    answer: str,\n) -> bool:"
    if id_width + width <= _DECORATOR_ROOM:
        return f"@check({quoted_id}, {quoted_criterion})\n{define}\n"
    return f"@check(\n    {quoted_id},\n    {quoted_criterion},\n)\n{define}\n"


def _body(function: str, args: list[Arg], quoted_criterion: str, width: int) -> str:
    """A check's one return: a placeholder for its own criterion (most checks) is measured by the
    criterion's width alone; any other call as `call_text` lays it out."""
    if function != "unwritten" or len(args) != 1 or args[0] != quoted_criterion:
        return call_text(f"return {function}", args, "    ")
    return _placeholder(quoted_criterion, width)


def _placeholder(quoted_criterion: str, width: int) -> str:
    if width <= _UNWRITTEN_ROOM:
        return f"    return unwritten({quoted_criterion})"
    return f"    return unwritten(\n        {quoted_criterion},\n    )"


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
        return marker_line(self.kind, self.key, self.text)


def marker_line(kind: str, key: str, text: str) -> str:
    """The line that closes a region: what generated it, under which key, and its fingerprint."""
    return f"{MARKER}{kind} {key} {fingerprint(text)}"


KEY_BYTES = 8  # 64-bit keys: a collision in a million-case catalog has odds below 1 in 10^7


def short_hash(text: str, size: int = KEY_BYTES) -> str:
    return hashlib.blake2s(text.encode("utf-8", "surrogatepass"), digest_size=size).hexdigest()


# Empty hashers at the two sizes the hot path uses, copied for each text: a copy is a third of
# the cost of building one with its digest size (about 0.15 us of 0.7 us, for each of ~100,000).
_EIGHT, _THREE = hashlib.blake2s(digest_size=KEY_BYTES), hashlib.blake2s(digest_size=3)


def _key_and_short(text: str) -> tuple[str, str]:
    """`short_hash(text)` and `short_hash(text, 3)`, from one encoding of `text`."""
    data = text.encode("utf-8", "surrogatepass")
    key, short = _EIGHT.copy(), _THREE.copy()
    key.update(data)
    short.update(data)
    return key.hexdigest(), short.hexdigest()


def fingerprint(text: str) -> str:
    """short_hash(text.strip("\n"), 8), without the call between (one for every unit written)."""
    found = _EIGHT.copy()
    found.update(text.strip("\n").encode("utf-8", "surrogatepass"))
    return found.hexdigest()


def case_units(case: Case, stem: str) -> list[Unit]:
    case_key, legacy_case = short_hash(case.id), short_hash(case.id, 4)
    cut = len(stem) + 7  # a legacy key ends with the name after "check_<stem>_"
    return [
        Unit("case", case_key, case_comments(case), legacy_case),
        *(
            Unit(
                "check",
                f"{case_key}.{key}",
                text,
                f"{legacy_case}.{name[cut:]}",
                case.id,
                item.criterion,
                name,
            )
            for key, name, text, item in _checks(case, stem)
        ),
    ]


def case_comments(case: Case) -> str:
    """The comment lines a case's region opens with: its id, where it came from, its notes."""
    lines = [RULE, *comment(f"case {case.id}")]
    if case.origin:
        lines += comment(f"from {case.origin}")
    for kept in case.notes:
        lines += comment(note_text(kept))
        if kept.remark:
            lines += comment(f"({kept.remark})", prefix="#   ")
    return "\n".join(lines)


def _checks(case: Case, stem: str) -> Iterator[tuple[str, str, str, Check]]:
    """(key within the case, function name, text) of each of a case's checks, with the check.

    A key is the criterion's hash, numbered from its second use in the case; a name ends with
    a shorter hash of it, numbered the same way (a 24-bit hash may collide where the key does not).
    """
    seen: dict[str, int] = {}
    quoted_id = literal(case.id)
    id_width = _width(quoted_id)
    for item in case.checks:
        criterion = item.criterion
        key, short = _key_and_short(criterion)  # short: names
        uses = seen[key] = seen.get(key, 0) + 1
        named = seen[short] = seen.get(short, 0) + 1
        name = f"check_{stem}_{short}_{named}" if named > 1 else f"check_{stem}_{short}"
        quoted = _quoted(criterion)
        width = _width(quoted)
        text = _head(quoted_id, id_width, quoted, width, name) + _return(item, quoted, width)
        yield (f"{key}_{uses}" if uses > 1 else key), name, text, item


def _return(item: Check, quoted: str, width: int) -> str:
    """`_body` of a check, from its criterion's literal and width: a placeholder (most checks) is
    laid out by the width of what it carries, without building its call and measuring it."""
    if item.kind is not _UNWRITTEN:
        return _body(*call(item), quoted, width)
    text = item.args[0]
    if text == item.criterion:
        return _placeholder(quoted, width)
    other = literal(text)  # a placeholder carrying other text: the object a criterion came from
    return _placeholder(other, _width(other))


_UNWRITTEN = CheckKind.UNWRITTEN


def header(result: ImportResult) -> str:
    about = [
        "Checks for the catalog beside this file, generated by adhd-evals.",
        "",
        f"Imported from {result.origin} ({result.format})" + (":" if len(result.sources) > 1 else "."),
        *(f"  {source}" for source in result.sources if len(result.sources) > 1),
        *([result.dialect.header] if result.dialect is not None else []),
        *_provider_lines(result),
        "Each function checks one criterion of one case against the model's answer and",
        "returns True when it passes; @check files it under the case id. A call to",
        "unwritten(...) is a criterion nobody has turned into code yet: it always fails,",
        "so the suite reads red until it is written. To finish this file, replace each",
        "unwritten(...) with a real check: a re-import keeps every function, helper,",
        "import and comment you edit or add. Leave the '# adhd-evals:' lines in place;",
        "they tell a re-import what it generated. Notes from the source are comments.",
    ]
    body = "\n".join(printable(line).rstrip() for line in about)  # formatters strip trailing spaces
    return '"""' + body.replace("\\", "\\\\").replace('"""', '\\"\\"\\"') + '\n"""\n\n'


PROVIDERS_NOTE = "(config) providers"  # the key a promptfoo config's providers are kept under


def _provider_lines(result: ImportResult) -> list[str]:
    """A promptfoo config's providers: promptfoo's models, which adhd-evals does not run."""
    found = [n.value for case in result.cases[:1] for n in case.notes if n.key == PROVIDERS_NOTE]
    if result.format != "promptfoo" or not found:
        return []
    return [
        f"promptfoo providers (not run by adhd-evals; configure runners instead): {_NOTE_JSON(found[0])[:300]}"
    ]


def units(result: ImportResult) -> list[Unit]:
    """The whole module as generated: the preamble, then each case and its checks."""
    names = function_names(result.cases)
    found = [preamble(result)]
    for case in result.cases:
        found += case_units(case, names[case.id])
    return found


def preamble(result: ImportResult) -> Unit:
    # promptfoo's assertions need the whole vocabulary (case-sensitive contains, regex, is_json...)
    helpers = (
        HELPERS if result.dialect is None and result.format not in VOCABULARY_FORMATS else vocabulary_source()
    )
    if any(kind.traced for kind in {check.kind for case in result.cases for check in case.checks}):
        helpers = helpers.rstrip("\n") + "\n\n\n" + trace_helpers()  # only where a check reads a trace
    return Unit("preamble", "-", header(result) + helpers.rstrip("\n"))


def assemble(parts: list[tuple[str, str]]) -> str:
    """Module text from (region text, marker line) pairs; regions keep their own spacing."""
    return "".join(region + marker + "\n" for region, marker in parts)


def region(unit: Unit, *, first: bool = False) -> str:
    """How a freshly generated unit is laid out before its marker: two blank lines
    between code and a comment, as black and ruff format put them."""
    return ("" if first else "\n\n") + unit.text + (_AFTER_CASE if unit.kind == "case" else _AFTER_CODE)


_AFTER_CASE, _AFTER_CODE = "\n", "\n\n\n"  # between a region's text and its marker


def render(result: ImportResult) -> str:
    return "".join(render_pieces(result))


def render_pieces(result: ImportResult, cases_a_piece: int = 256) -> Iterator[str]:
    """The fresh module in pieces (`cases_a_piece` cases each), the same text `assemble` makes
    of `units`: a large module is streamed to its file, never held whole."""
    names = function_names(result.cases)
    first = preamble(result)
    yield region(first, first=True) + first.marker + "\n"
    batch: list[str] = []
    for case in result.cases:
        batch.append(_rendered(case, names[case.id]))
        if len(batch) == cases_a_piece:
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def _rendered(case: Case, stem: str) -> str:
    """A case's regions and markers as `region` lays out its units (without building them:
    a module of 200,000 cases would build close to a million, and their legacy keys)."""
    comments, case_key = case_comments(case), short_hash(case.id)
    pieces = [f"\n\n{comments}{_AFTER_CASE}{marker_line('case', case_key, comments)}\n"]
    for key, _, code, _ in _checks(case, stem):
        pieces.append(f"\n\n{code}{_AFTER_CODE}{marker_line('check', f'{case_key}.{key}', code)}\n")
    return "".join(pieces)
