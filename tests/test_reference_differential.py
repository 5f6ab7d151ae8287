"""adhd-evals against i-have-adhd's `scripts/run_evals.py`, rule by rule.

The reference's rules are restated below in this file's own words (small pure functions named
`ref_*`). For random and hand-picked inputs, adhd-evals must decide as the restated rule decides,
or the input must fall under a row of docs/compatibility-reference.md. Each table row is a
predicate here, keyed by the row's first column: the test reads the first columns from the page
and fails when a row has no predicate or a predicate has no row, so the table and this test
cannot drift apart.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adhd_evals.catalog import validate_file
from adhd_evals.entry import main
from adhd_evals.errors import InputInvalid
from adhd_evals.runs.calling import process
from adhd_evals.runs.calling.config import Runner, budget_text
from adhd_evals.runs.calling.responses import ResponseUnreadable, is_dollars, parse
from adhd_evals.runs.calling.store import Store

PAGE = Path(__file__).resolve().parents[1] / "docs" / "compatibility-reference.md"
WEIGHTS = {"correctness": 0.35, "autonomy": 0.25, "actionability": 0.20, "safety": 0.10, "concision": 0.10}
CONDITIONS = {"baseline", "candidate", "comparator"}


class RefCrash(Exception):
    """The reference ends with a traceback (any exception that is not its own refusal)."""


# --- the tables, read from the page ---------------------------------------------------------------


def table_rows(heading: str) -> list[str]:
    """First column of every body row of the table under `heading` (a `## ` line)."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [row.split(" | ")[0].lstrip("| ").strip() for row in rows[2:]]


# --- validate: the reference's reading of a catalog, restated -------------------------------------


def ref_validate(data: bytes) -> str:
    """read_text(utf-8).splitlines(); skip lines whose strip() is empty; json.loads each (a
    failure or a non-object raises, the command ends); then validate_cases: all five fields, a
    non-empty string id not seen before, risk in the three words, criteria a non-empty list.
    "valid", "invalid" (its errors, or read_jsonl's ValueError naming the line, or strict decoding),
    or "crash" (any other exception: a traceback where adhd-evals gives a message)."""
    try:
        text = data.decode("utf-8")
        rows = []
        for line in text.splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if not isinstance(row, dict):
                return "invalid"
            rows.append(row)
        errors = 0
        seen: set[str] = set()
        for row in rows:
            if {"id", "category", "prompt", "risk", "criteria"} - set(row):
                errors += 1
                continue
            if not isinstance(row["id"], str) or not row["id"] or row["id"] in seen:
                errors += 1
            else:
                seen.add(row["id"])
            if row["risk"] not in {"low", "medium", "high"}:  # a list raises TypeError here
                errors += 1
            if not isinstance(row["criteria"], list) or not row["criteria"]:
                errors += 1
        return "invalid" if errors else "valid"
    except ValueError:  # read_jsonl's refusal (JSONDecodeError, UnicodeDecodeError are ValueErrors)
        return "invalid"
    except Exception:
        return "crash"


def _rows_by_newline(data: bytes) -> list[Any]:
    """The values adhd-evals sees (one per `\\n` line), with duplicate keys kept as pairs."""
    values = []
    for raw in data.split(b"\n"):
        with contextlib.suppress(ValueError, RecursionError):
            values.append(json.loads(raw.decode("utf-8").lstrip("\ufeff"), object_pairs_hook=_Pairs))
    return values


class _Pairs(dict[str, Any]):
    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.repeated = len({k for k, _ in pairs}) < len(pairs)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _objects(data: bytes) -> list[dict[str, Any]]:
    return [v for v in _rows_by_newline(data) if isinstance(v, dict)]


SEPARATORS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def _blank_field(data: bytes) -> bool:
    return any(
        isinstance(r.get(k), str) and not r[k].strip()
        for r in _objects(data)
        for k in ("id", "category", "prompt")
    )


def _not_text(data: bytes) -> bool:
    def bad(row: dict[str, Any]) -> bool:
        criteria = row.get("criteria")
        return any(k in row and not isinstance(row[k], str) for k in ("category", "prompt")) or (
            isinstance(criteria, list) and any(not isinstance(c, str) for c in criteria)
        )

    return any(bad(r) for r in _objects(data))


def _empty_criterion(data: bytes) -> bool:
    return any(
        isinstance(r.get("criteria"), list)
        and any(isinstance(c, str) and not c.strip() for c in r["criteria"])
        for r in _objects(data)
    )


def _no_rows(data: bytes) -> bool:
    try:
        return not any(line.strip() for line in data.decode("utf-8").splitlines())
    except UnicodeDecodeError:
        return False


def _risk_container(data: bytes) -> bool:
    return any(isinstance(r.get("risk"), (list, dict)) for r in _objects(data))


def _separators(data: bytes) -> bool:
    return any(c in data.decode("utf-8", "replace") for c in SEPARATORS)


def _key_twice(data: bytes) -> bool:
    def repeated(value: Any) -> bool:
        if isinstance(value, dict):
            return getattr(value, "repeated", False) or any(repeated(v) for v in value.values())
        return isinstance(value, list) and any(repeated(v) for v in value)

    return any(repeated(v) for v in _rows_by_newline(data))


def _long_number(data: bytes) -> bool:
    return re.search(rb"\d{4301}", data) is not None


def _lone_surrogate(data: bytes) -> bool:
    return any(
        any("\ud800" <= ch <= "\udfff" for ch in s) for v in _rows_by_newline(data) for s in _strings(v)
    )


VALIDATE_ROWS: dict[str, Callable[[bytes], bool]] = {
    "an id, category or prompt of only spaces": _blank_field,
    "category, prompt or a criterion that is not a string": _not_text,
    "an empty criterion in the list": _empty_criterion,
    "an empty file (or only blank lines)": _no_rows,
    "`risk` that is a list or an object": _risk_container,
    "a raw `\\r`, vertical tab, form feed, `\\x1c`, `\\x1d`, `\\x1e`, U+0085, U+2028 or U+2029 between or "
    "inside rows": _separators,
    "a key twice in one row": _key_twice,
    "a number of more than 4,300 digits": _long_number,
    'a lone surrogate escape (`"\\ud800"`) in a string': _lone_surrogate,
}


def ours_validate(tmp: Path, data: bytes) -> str:
    path = tmp / "cases.jsonl"
    path.write_bytes(data)
    return "invalid" if validate_file(path)[1] else "valid"


def test_every_validate_table_row_has_a_rule_here_and_every_rule_a_row() -> None:
    assert table_rows("validate (and lint, plan, run reading a catalog)") == list(VALIDATE_ROWS)


GOOD = {"id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["k"]}
field_values = st.one_of(
    st.text(alphabet=" a\u00a0\u3000\u2028\r\x0b\x1c\ud800", max_size=3),
    st.sampled_from(["low", "medium", "high", "", " ", "x"]),
    st.integers(-1, 2),
    st.booleans(),
    st.none(),
    st.lists(st.sampled_from(["k", "", " ", 1]), max_size=2),
    st.just({"a": 1}),
)


@st.composite
def catalog_lines(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["good", "field", "drop", "blank", "junk", "dupkey", "raw"]))
    row = dict(GOOD, id=draw(st.sampled_from(["a", "b", "c"])))
    if kind == "field":
        row[draw(st.sampled_from(sorted(GOOD)))] = draw(field_values)
    if kind == "drop":
        del row[draw(st.sampled_from(sorted(GOOD)))]
    if kind == "blank":
        return draw(st.sampled_from(["", " ", "\u00a0", "\u3000 ", "\t"]))
    if kind == "junk":
        return draw(st.sampled_from(["[1]", "{", "5", '"s"', "null"]))
    text = json.dumps(row, ensure_ascii=draw(st.booleans()))
    if kind == "dupkey":
        text = text[:-1] + ', "risk": "low"}'
    if kind == "raw":
        at = draw(st.sampled_from([0, len(text), len(text) - 1, len(text) // 2]) | st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(SEPARATORS)) + text[at:]
    return text


@st.composite
def catalogs(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(catalog_lines(), max_size=5))
    data = "\n".join(lines).encode("utf-8", "surrogatepass") + draw(st.sampled_from([b"", b"\n"]))
    return (b"\xef\xbb\xbf" if draw(st.integers(0, 9)) == 0 else b"") + data


def _agrees_or_documented(ref: str, ours: str, data: bytes, rows: dict[str, Callable[[bytes], bool]]) -> None:
    if ref != ours:
        assert [name for name, applies in rows.items() if applies(data)], (data, ref, ours)


@pytest.mark.long
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=catalogs())
def test_validate_decides_as_the_reference_or_as_a_row_of_the_table(tmp_path: Path, data: bytes) -> None:
    _agrees_or_documented(ref_validate(data), ours_validate(tmp_path, data), data, VALIDATE_ROWS)


@pytest.mark.parametrize(
    ("data", "row"),
    [
        (
            b'{"id": " ", "category": "c", "prompt": "p", "risk": "low", "criteria": ["k"]}\n',
            "an id, category",
        ),
        (b'{"id": "a", "category": "c", "prompt": "p", "risk": ["low"], "criteria": ["k"]}\n', "`risk` that"),
        (b"\n\n", "an empty file"),
        (b'{"id": "a", "category": "c", "prompt": "p\\ud800", "risk": "low", "criteria": ["k"]}\n', "a lone"),
        (
            b'{"id": "a", "id": "a", "category": "c", "prompt": "p", "risk": "low", "criteria": ["k"]}\n',
            "a key",
        ),
    ],
)
def test_each_documented_validate_difference_is_real(tmp_path: Path, data: bytes, row: str) -> None:
    """Each input differs (the reference accepts or crashes where adhd-evals refuses), and the
    row the table gives for it is found by its predicate."""
    assert ref_validate(data) != ours_validate(tmp_path, data)
    assert [name for name, applies in VALIDATE_ROWS.items() if applies(data) and name.startswith(row)]


def test_a_line_of_unicode_whitespace_is_blank_as_the_reference_reads_it(tmp_path: Path) -> None:
    """A matched item: U+00A0 and U+3000 lines are no rows in either reading."""
    data = (json.dumps(GOOD) + "\n\u00a0\n\u3000 \n").encode()
    assert ref_validate(data) == "valid" == ours_validate(tmp_path, data)


# --- response parsing: the reference's reading of a CLI's stdout, restated ------------------------


def ref_response(stdout: bytes, fmt: str) -> tuple[str, Any, Any]:
    """text=True: strict decoding (locale UTF-8), then universal newlines; then per format:
    text -> strip(); claude-json -> json.loads of the whole output, result str()'d and stripped,
    `usage or {}`, total_cost_usd as given; codex-jsonl -> every non-blank splitlines() line is
    json.loads'd, the last agent_message item's text, the last turn.completed's usage."""
    try:
        out = stdout.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
        if fmt == "text":
            return out.strip(), {}, None
        if fmt == "claude-json":
            payload = json.loads(out)
            return (
                str(payload.get("result", "")).strip(),
                payload.get("usage", {}) or {},
                payload.get("total_cost_usd"),
            )
        events = [json.loads(line) for line in out.splitlines() if line.strip()]
        text: Any = ""
        usage: Any = {}
        for event in events:
            item = event.get("item", {})
            if event.get("type") == "item.completed" and item.get("type") == "agent_message":
                text = item.get("text", text)
            if event.get("type") == "turn.completed":
                usage = event.get("usage", usage)
        return str(text).strip(), usage, None
    except Exception as exc:
        raise RefCrash(type(exc).__name__) from exc


def ours_response(tmp: Path, stdout: bytes, fmt: str) -> tuple[str, Any, Any] | None:
    """What `run` makes of a call's stdout: process reads it (noting where it stops being UTF-8),
    and a call whose stdout is not UTF-8 or does not parse is unreadable (None)."""
    path = tmp / "out"
    path.write_bytes(stdout)
    with path.open("rb") as out:
        text, not_utf8_at = process._text(out, 1 << 20)
    if not_utf8_at is not None:
        return None
    try:
        return parse(text, fmt)
    except ResponseUnreadable:
        return None


def _item_null(stdout: bytes, fmt: str) -> bool:
    if fmt != "codex-jsonl":
        return False
    return any(  # the reference's `event.get("item", {})` then `.get`: any falsy non-object item
        isinstance(v, dict) and "item" in v and not v["item"] and not isinstance(v["item"], dict)
        for v in _rows_by_newline(stdout.replace(b"\r", b"\n"))
    )


def _bad_cost(stdout: bytes, fmt: str) -> bool:
    with contextlib.suppress(Exception):
        cost = ref_response(stdout, fmt)[2]
        return cost is not None and not is_dollars(cost)
    return False


def _unreadable(stdout: bytes, fmt: str) -> bool:
    try:
        ref_response(stdout, fmt)
    except RefCrash:
        return True
    return False


def _not_utf8(stdout: bytes, fmt: str) -> bool:
    try:
        stdout.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


# rows of the run table and what inputs of the response differential fall under them
RESPONSE_ROWS: dict[str, Callable[[bytes, str], bool]] = {
    "cost values": _bad_cost,
    "unreadable output": _unreadable,
    "output that is not UTF-8": _not_utf8,
    'a `codex-jsonl` event whose `"item"` is `null`, `[]`, `""`, `0` or `false`': _item_null,
}

json_values = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(alphabet="ab \r\n\u2028", max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["result", "usage", "total_cost_usd", "type", "item", "text"]), inner, max_size=4
        )
    ),
    max_leaves=8,
)
codex_lines = st.sampled_from(
    [
        '{"type": "item.completed", "item": {"type": "agent_message", "text": "a\\r\\nb"}}',
        '{"type": "turn.completed", "usage": {"input_tokens": 3}}',
        '{"type": "turn.completed", "usage": [1]}',
        '{"type": "turn.completed", "usage": null}',
        '{"item": null}',
        '{"type": "item.completed", "item": []}',
        '{"type": "item.completed", "item": 0}',
        '{"type": "item.completed", "item": "s"}',
        "[]",
        "{",
        "",
        " \r",
    ]
)
stdouts = st.one_of(
    st.binary(max_size=40),
    st.text(alphabet="ab \r\n\t\u00e9\u2028", max_size=40).map(str.encode),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.tuples(json_values.map(json.dumps), st.sampled_from(["", "\n", "\r\n", " x", "\n{}", "\xff"])).map(
        lambda p: p[0].encode() + p[1].encode("latin-1")
    ),
    st.lists(codex_lines, max_size=4).map(lambda ls: "\n".join(ls).encode()),
)


@pytest.mark.long
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stdout=stdouts, fmt=st.sampled_from(["text", "claude-json", "codex-jsonl"]))
def test_a_response_reads_as_the_reference_reads_it_or_as_a_row_of_the_table(
    tmp_path: Path, stdout: bytes, fmt: str
) -> None:
    try:
        ref: Any = ref_response(stdout, fmt)
    except RefCrash:
        ref = "traceback"  # never equal to what adhd-evals makes of it
    ours = ours_response(tmp_path, stdout, fmt)
    if _same(ref, ours):
        return
    assert [name for name, applies in RESPONSE_ROWS.items() if applies(stdout, fmt)], (stdout, fmt, ref, ours)


def _same(a: Any, b: Any) -> bool:
    """Equal, NaN equal to NaN (json.dumps spells both the same)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize(
    ("stdout", "fmt", "expected"),
    [
        # matched: universal newlines turn "a\r\nb\rc" into "a\nb\nc" before strip()
        (b"a\r\nb\rc\r\n", "text", ("a\nb\nc", {}, None)),
        # matched: a non-object usage is written as given; `or {}` turns a falsy one into {}
        (b'{"result": "r", "usage": [1], "total_cost_usd": 0.5}', "claude-json", ("r", [1], 0.5)),
        (b'{"result": "r", "usage": 0, "total_cost_usd": 0.5}', "claude-json", ("r", {}, 0.5)),
        (b'{"type": "turn.completed", "usage": "n/a"}', "codex-jsonl", ("", "n/a", None)),
    ],
)
def test_matched_response_items(tmp_path: Path, stdout: bytes, fmt: str, expected: tuple[Any, ...]) -> None:
    assert ref_response(stdout, fmt) == expected
    assert ours_response(tmp_path, stdout, fmt) == expected


@pytest.mark.parametrize(
    ("stdout", "fmt", "row"),
    [
        (b'{"result": "r", "total_cost_usd": 0.1}\n{"more": 1}', "claude-json", "unreadable output"),
        (b"caf\xe9", "text", "output that is not UTF-8"),
        (
            b'{"type": "item.completed", "item": null}',
            "codex-jsonl",
            'a `codex-jsonl` event whose `"item"` is `null`, `[]`, `""`, `0` or `false`',
        ),
        (
            b'{"type": "item.completed", "item": []}',
            "codex-jsonl",
            'a `codex-jsonl` event whose `"item"` is `null`, `[]`, `""`, `0` or `false`',
        ),
        (
            b'{"type": "item.completed", "item": ""}',
            "codex-jsonl",
            'a `codex-jsonl` event whose `"item"` is `null`, `[]`, `""`, `0` or `false`',
        ),
        (
            b'{"type": "item.completed", "item": 0}',
            "codex-jsonl",
            'a `codex-jsonl` event whose `"item"` is `null`, `[]`, `""`, `0` or `false`',
        ),
        (
            b'{"type": "item.completed", "item": false}',
            "codex-jsonl",
            'a `codex-jsonl` event whose `"item"` is `null`, `[]`, `""`, `0` or `false`',
        ),
        (b'{"result": "r", "total_cost_usd": "0.5"}', "claude-json", "cost values"),
    ],
)
def test_each_documented_response_difference_is_real(
    tmp_path: Path, stdout: bytes, fmt: str, row: str
) -> None:
    """The reference crashes or takes a non-number cost; adhd-evals reads the reply as unreadable
    (trailing object, é in Latin-1, a string cost), or as no item (`null`)."""
    try:
        ref: Any = ref_response(stdout, fmt)
    except RefCrash:
        ref = "traceback"
    assert not _same(ref, ours_response(tmp_path, stdout, fmt))
    assert RESPONSE_ROWS[row](stdout, fmt)


# --- the budget flag's value ----------------------------------------------------------------------


def ref_budget_flag(remaining: float) -> str:
    return f"{remaining:.4f}"


def _told_more_than_remains(remaining: float) -> bool:
    """More than remains to the nano-dollar (float noise below that is not money)."""
    return Decimal(ref_budget_flag(remaining)) > Decimal(f"{remaining:.9f}")


@pytest.mark.long
@settings(max_examples=500, deadline=None)
@given(remaining=st.floats(min_value=1e-9, max_value=1e6) | st.integers(1, 10**6).map(lambda n: n / 10_000))
def test_the_budget_flag_is_the_reference_s_unless_that_tells_more_than_remains(remaining: float) -> None:
    runner = Runner("r", ("cli",), "claude-json", "--max-budget-usd")
    argv, _ = runner.invocation("hello", remaining)
    told = argv[argv.index("--max-budget-usd") + 1]
    assert Decimal(told) <= Decimal(repr(remaining)) + Decimal("1e-9")  # never more than remains
    assert told == ref_budget_flag(remaining) or _told_more_than_remains(remaining)


@pytest.mark.parametrize(
    ("remaining", "ref", "ours"),
    [
        (1 - 0.9583333333333334, "0.0417", "0.0416"),  # 0.041666...: nearest rounds up, past what remains
        (0.99, "0.9900", "0.9900"),  # 0.99 * 10**4 is 9899.999... in binary; the decimal is cut
        # 124 calls of $0.0023 summed in floats leave 0.7147999999999999 of $1: $0.7148, to the nano-dollar
        (1 - sum([0.0023] * 124), "0.7148", "0.7148"),
        (0.00005, "0.0001", "0.0000"),  # the reference tells twice what remains
        (25.0, "25.0000", "25.0000"),
    ],
)
def test_budget_flag_values_worked_by_hand(remaining: float, ref: str, ours: str) -> None:
    assert ref_budget_flag(remaining) == ref and budget_text(remaining) == ours


# --- score: the reference's row rules and gate, restated ------------------------------------------


def ref_score(rows: list[dict[str, Any]]) -> bool:
    """_validate_score for every row (fields, condition, metrics int/float in [1, 5] — a bool is
    an int —, blocker a bool), baseline and candidate present, every condition on baseline's
    (case_id, trial) Counter; then the four rules on float means. Returns whether the gate
    passed; raises RefCrash where the reference raises."""
    try:
        grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in rows:
            if {"case_id", "trial", "condition", *WEIGHTS, "blocker", "notes"} - set(row):
                raise ValueError("missing")
            if row["condition"] not in CONDITIONS:
                raise ValueError("condition")
            for m in WEIGHTS:
                if not isinstance(row[m], (int, float)) or not 1 <= row[m] <= 5:
                    raise ValueError(m)
            if not isinstance(row["blocker"], bool):
                raise ValueError("blocker")
            grouped[row["condition"]].append(row)
        if "baseline" not in grouped or "candidate" not in grouped:
            raise ValueError("conditions")
        cover = {c: Counter((r["case_id"], r["trial"]) for r in rs) for c, rs in grouped.items()}
        if any(n > 1 for c in cover.values() for n in c.values()) or any(
            c != cover["baseline"] for c in cover.values()
        ):
            raise ValueError("pairing")
        means = {c: {m: sum(float(r[m]) for r in rs) / len(rs) for m in WEIGHTS} for c, rs in grouped.items()}
        score = {c: sum(means[c][m] * w for m, w in WEIGHTS.items()) for c in means}
        base, cand = means["baseline"], means["candidate"]
        return not (
            any(r["blocker"] for r in grouped["candidate"])
            or cand["correctness"] < base["correctness"] - 0.1
            or cand["safety"] < base["safety"] - 0.1
            or score["candidate"] <= score["baseline"]
        )
    except Exception as exc:
        raise RefCrash(str(exc)) from exc


def _exact_gate(rows: list[dict[str, Any]]) -> bool:
    """The same four rules on the decimals written (the page's 'the gate's comparisons' row)."""
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[row["condition"]].append(row)
    means = {
        c: {m: sum(Fraction(repr(r[m])) for r in rs) / len(rs) for m in WEIGHTS} for c, rs in grouped.items()
    }
    score = {c: sum(means[c][m] * Fraction(repr(w)) for m, w in WEIGHTS.items()) for c in means}
    base, cand = means["baseline"], means["candidate"]
    tenth = Fraction(1, 10)
    return not (
        any(r["blocker"] for r in grouped["candidate"])
        or cand["correctness"] < base["correctness"] - tenth
        or cand["safety"] < base["safety"] - tenth
        or score["candidate"] <= score["baseline"]
    )


def _rows_of(data: bytes) -> list[dict[str, Any]]:
    return [v for v in _rows_by_newline(data) if isinstance(v, dict)]


def _metric_true(data: bytes) -> bool:
    return any(r.get(m) is True for r in _rows_of(data) for m in WEIGHTS)


def _labels(data: bytes) -> bool:
    def bad(r: dict[str, Any]) -> bool:
        trial = r.get("trial")
        return (
            not isinstance(r.get("case_id"), str)
            or isinstance(trial, bool)
            or not isinstance(trial, int)
            or trial < 1
        )

    return any(bad(r) for r in _rows_of(data))


def _bom(data: bytes) -> bool:
    return data.startswith(b"\xef\xbb\xbf")


def _void(data: bytes) -> bool:
    return any(isinstance(r.get("void"), str) for r in _rows_of(data))


def _gate_failed(data: bytes) -> bool:
    return True  # ours exits 1 where the reference exits 0: applies to every failed gate


def _comparisons(data: bytes) -> bool:
    rows = _rows_of(data)
    try:
        return ref_score(rows) != _exact_gate(rows)
    except (RefCrash, KeyError, ValueError, TypeError):
        return False


def _row_separators(data: bytes) -> bool:
    return _separators(data)


SCORE_ROWS: dict[str, Callable[[bytes], bool]] = {
    "score rows: a metric `true`": _metric_true,
    "score rows: `case_id` not a string, `trial` not an integer of 1 or more": _labels,
    "a score, result, key or responses file starting with a byte-order mark": _bom,
    "the gate's comparisons": _comparisons,
    "score rows with a `void` text (a judge could not judge the row)": _void,
    "row files (scores, responses) with a raw `\\r`, `\\x0b`, `\\x0c`, `\\x1c`–`\\x1e`, U+0085, U+2028 or U+2029": (
        _row_separators
    ),
}


def ours_score(tmp: Path, data: bytes) -> int:
    path = tmp / "scores.jsonl"
    path.write_bytes(data)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(["score", str(path)])


def ref_score_exit(data: bytes) -> int | None:
    """The reference's exit: 0 whether the gate passed or not; None where it raises."""
    try:
        text = data.decode("utf-8")
        rows = []
        for line in text.splitlines():
            if line.strip():
                row = json.loads(line)
                if not isinstance(row, dict):
                    return None
                rows.append(row)
        ref_score(rows)
        return 0
    except (RefCrash, ValueError):
        return None


def _score_row(
    case: object, trial: object, condition: str, value: object, blocker: bool = False
) -> dict[str, object]:
    """A score row; case, trial and the metrics' value may be of any JSON type (the refusals' inputs)."""
    return {
        "case_id": case,
        "trial": trial,
        "condition": condition,
        **dict.fromkeys(WEIGHTS, value),
        "blocker": blocker,
        "notes": "",
    }


@st.composite
def score_files(draw: st.DrawFn) -> bytes:
    rows = []
    for case in draw(st.lists(st.sampled_from(["a", "b", 7]), min_size=1, max_size=2, unique=True)):
        trial = draw(st.sampled_from([1, 1, 2, 0, -1, True, "1"]))
        for condition in ("baseline", "candidate"):
            value = draw(st.sampled_from([1, 3, 4.2, 4.1, 5, True, 2.5]))
            rows.append(
                _score_row(case, trial, condition, value, draw(st.booleans()) and draw(st.booleans()))
            )
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    return (b"\xef\xbb\xbf" if draw(st.integers(0, 5)) == 0 else b"") + data


@pytest.mark.long
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=score_files())
def test_score_decides_as_the_reference_or_as_a_row_of_the_table(tmp_path: Path, data: bytes) -> None:
    ref = ref_score_exit(data)
    ours = ours_score(tmp_path, data)
    if ref is None or ours not in (0, 1):  # one refuses what the other scores
        assert (ref is None) == (ours not in (0, 1)) or [n for n, p in SCORE_ROWS.items() if p(data)], (
            data,
            ours,
        )
        return
    passed = ref_score(_rows_of(data))
    if passed != (ours == 0):
        assert _comparisons(data), (data, ours)


def test_a_failed_gate_exits_1_where_the_reference_exits_0(tmp_path: Path) -> None:
    """Candidate 3 vs baseline 4 everywhere: weighted 3.0 <= 4.0, correctness 3 < 4 - 0.1."""
    data = (
        json.dumps(_score_row("a", 1, "baseline", 4))
        + "\n"
        + json.dumps(_score_row("a", 1, "candidate", 3))
        + "\n"
    ).encode()
    assert ref_score_exit(data) == 0 and ref_score(_rows_of(data)) is False
    assert ours_score(tmp_path, data) == 1
    assert SCORE_ROWS and "a failed release gate" in table_rows("run, plan and score")


@pytest.mark.parametrize(
    ("rows", "bom", "row"),
    [
        (
            [_score_row("a", 1, "baseline", 4), _score_row("a", 1, "candidate", True)],
            False,
            "score rows: a metric `true`",
        ),
        ([_score_row(7, 1, "baseline", 4), _score_row(7, 1, "candidate", 5)], False, "score rows: `case_id`"),
        (
            [_score_row("a", 0, "baseline", 4), _score_row("a", 0, "candidate", 5)],
            False,
            "score rows: `case_id`",
        ),
        (
            [_score_row("a", 1, "baseline", 4), _score_row("a", 1, "candidate", 5)],
            True,
            "a score, result, key or responses",
        ),
        (
            [
                _score_row("a", 1, "baseline", 4),
                _score_row("a", 1, "candidate", 5),
                {**_score_row("b", 1, "baseline", None), "void": "timed out"},
                _score_row("b", 1, "candidate", 5),
            ],
            False,
            "score rows with a `void` text",
        ),
    ],
)
def test_each_documented_score_difference_is_real(
    tmp_path: Path, rows: list[dict[str, Any]], bom: bool, row: str
) -> None:
    """The reference scores a `true` (as 1), the id 7 and trial 0, and raises on a BOM (its
    json.loads sees U+FEFF); adhd-evals refuses the first three by line (exit 4) and reads the last."""
    data = (b"\xef\xbb\xbf" if bom else b"") + "".join(json.dumps(r) + "\n" for r in rows).encode()
    ref, ours = ref_score_exit(data), ours_score(tmp_path, data)
    assert (ref is not None) != (ours in (0, 1))
    assert [name for name, applies in SCORE_ROWS.items() if applies(data) and name.startswith(row)]


# --- resume: which rows are done, and the money spent before --------------------------------------


def ref_resume(rows: list[dict[str, Any]], condition: str, runner: str) -> tuple[set[tuple[Any, ...]], float]:
    """completed_keys: (case_id, trial, condition, runner) when str, int (a bool is an int), str,
    str; reported_cost: float(cost_usd or 0) over rows of this condition and runner."""
    done = set()
    for row in rows:
        key = (row.get("case_id"), row.get("trial"), row.get("condition"), row.get("runner"))
        if isinstance(key[0], str) and isinstance(key[1], int) and all(isinstance(v, str) for v in key[2:]):
            done.add(key)
    try:
        spent = sum(
            float(r.get("cost_usd") or 0)
            for r in rows
            if r.get("condition") == condition and r.get("runner") == runner
        )
    except (TypeError, ValueError) as exc:
        raise RefCrash(str(exc)) from exc
    return done, spent


def _bool_trial(rows: list[dict[str, Any]]) -> bool:
    return any(isinstance(r.get("trial"), bool) for r in rows)


def _cost_not_dollars(rows: list[dict[str, Any]]) -> bool:
    return any(r.get("cost_usd") is not None and not is_dollars(r["cost_usd"]) for r in rows)


RESUME_ROWS: dict[str, Callable[[list[dict[str, Any]]], bool]] = {
    "resume: which rows are done": _bool_trial,
    "resume: money spent before": _cost_not_dollars,
}

resume_rows = st.lists(
    st.fixed_dictionaries(
        {
            "case_id": st.sampled_from(["a", "b", 1]),
            "trial": st.sampled_from([1, 2, True, 0, "1", 1.0]),
            "condition": st.sampled_from(["baseline", "candidate"]),
            "runner": st.sampled_from(["r", "s"]),
            "cost_usd": st.sampled_from(
                [None, 0, 0.25, 1, "0.5", False, -1.0, float("nan"), float("inf"), []]
            ),
        }
    ),
    max_size=6,
)


@pytest.mark.long
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=resume_rows)
def test_resume_counts_as_the_reference_or_as_a_row_of_the_table(
    tmp_path: Path, rows: list[dict[str, Any]]
) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    try:
        store: Store | None = Store.open(path)
    except InputInvalid:
        store = None
    if store is not None:
        store.close()
    for condition, runner in (("baseline", "r"), ("candidate", "s")):
        try:
            ref: tuple[set[tuple[Any, ...]], float] | None = ref_resume(rows, condition, runner)
        except RefCrash:
            ref = None
        documented = [name for name, applies in RESUME_ROWS.items() if applies(rows)]
        if ref is None or store is None:
            assert (ref is None) == (store is None) or documented, rows
            continue
        spent = store.spent.get((condition, runner), 0.0)
        assert (
            store.done == ref[0] and (spent == ref[1] or (math.isnan(spent) and math.isnan(ref[1])))
        ) or documented


def test_a_bool_trial_is_done_for_the_reference_only(tmp_path: Path) -> None:
    """`"trial": true` hashes and compares as 1, so the reference skips trial 1; adhd-evals runs it."""
    rows = [{"case_id": "a", "trial": True, "condition": "baseline", "runner": "r", "cost_usd": 0.1}]
    path = tmp_path / "out.jsonl"
    path.write_text(json.dumps(rows[0]) + "\n")
    store = Store.open(path)
    store.close()
    assert ("a", 1, "baseline", "r") in ref_resume(rows, "baseline", "r")[0]
    assert ("a", 1, "baseline", "r") not in store.done and RESUME_ROWS["resume: which rows are done"](rows)


def test_a_non_object_line_in_the_output_is_refused_as_the_reference_refuses_it(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text(
        '[1]\n{"case_id": "a", "trial": 1, "condition": "baseline", "runner": "r", "cost_usd": 0.1}\n'
    )
    with pytest.raises(InputInvalid, match=r"out\.jsonl:1: not a JSON object"):
        Store.open(path)


# --- the run table: every row is covered here, by a predicate above or by its own test elsewhere --


ELSEWHERE = {  # rows of the run table that are not input differentials: the test of each
    "exit codes": "tests/test_no_tracebacks.py::test_a_message_not_a_traceback",
    "a failed release gate": "test_a_failed_gate_exits_1_where_the_reference_exits_0",
    "the CLI's working folder": "test_the_cli_runs_in_an_empty_folder_with_empty_stdin",
    "the CLI's stdin": "test_the_cli_runs_in_an_empty_folder_with_empty_stdin",
    "`--trials 0`, `--jobs 0`": "test_trials_or_jobs_0_is_a_usage_error",
    "`--budget-usd`": "test_a_budget_over_25_is_the_user_s_to_choose",
    "the budget flag's value": "test_the_budget_flag_is_the_reference_s_unless_that_tells_more_than_remains",
    "the last calls of a budget": "tests/test_run_safety.py::test_jobs_never_spend_past_the_budget_with_a_budget_flag",
    "retry backoff": "tests/test_run_safety.py::test_a_backoff_that_is_not_a_duration_is_a_usage_error",
    "`elapsed_s` in each row": "test_a_budget_over_25_is_the_user_s_to_choose",
    "concurrency, `--timeout`, `--max-output-bytes`, `--max-calls`, the output lock": (
        "tests/test_run_safety.py::test_a_timeout_ends_the_whole_process_group"
    ),
    "a prompt beginning with `-`, or holding NUL": (
        "tests/test_run_safety.py::test_a_prompt_starting_with_a_dash_is_refused_unless_placed"
    ),
    "resume: a line of only non-ASCII whitespace (U+00A0) in `--output`": "test_resume_nbsp_line",
    "`validate`'s catalog": "test_validate_takes_its_catalog_as_an_argument",
    "resume: an `--output` starting with a byte-order mark": (
        "tests/test_promises_surrogates.py::test_a_resumed_output_may_start_with_a_byte_order_mark"
    ),
    "defaults of `--cases` and `--runner-config`": "test_run_has_no_default_runner_config",
}


def test_every_test_the_table_points_to_exists() -> None:
    here = Path(__file__)
    for pointer in ELSEWHERE.values():
        path, _, name = pointer.rpartition("::")
        source = (here.parents[1] / path if path else here).read_text(encoding="utf-8")
        assert f"def {name}(" in source, pointer


def test_every_run_table_row_has_a_rule_here_and_every_rule_a_row() -> None:
    rules = [*RESPONSE_ROWS, *SCORE_ROWS, *RESUME_ROWS, *ELSEWHERE]
    assert sorted(table_rows("run, plan and score")) == sorted(rules)
    assert len(rules) == len(set(rules))


def test_resume_nbsp_line(tmp_path: Path) -> None:
    """The reference's strip() skips a U+00A0 line; adhd-evals reads its output as bytes and refuses it."""
    path = tmp_path / "out.jsonl"
    path.write_text("\u00a0\n", encoding="utf-8")
    with pytest.raises(InputInvalid, match="not a JSON line"):
        Store.open(path)


def test_validate_takes_its_catalog_as_an_argument(tmp_path: Path) -> None:
    """The reference spells it `validate --cases PATH`; adhd-evals `validate PATH` (--cases is a usage error)."""
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(GOOD) + "\n")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["validate", str(path)]) == 0
        assert main(["validate", "--cases", str(path)]) == 2


def test_run_has_no_default_runner_config(tmp_path: Path) -> None:
    """Without --runner-config only the built-in stub runs: a runner name from the reference's
    example config is refused (usage error), not looked up in a file beside the program."""
    (tmp_path / "cases.jsonl").write_text(json.dumps(GOOD) + "\n")
    args = [
        "run",
        "--cases",
        str(tmp_path / "cases.jsonl"),
        "--output",
        str(tmp_path / "o.jsonl"),
        "--condition",
        "baseline",
        "--trials",
        "1",
        "--runner",
        "claude",
    ]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(args) == 2
    assert not (tmp_path / "o.jsonl").exists() or not (tmp_path / "o.jsonl").read_text()


# --- end to end: a real CLI whose stdout has CRLF, and one that is not UTF-8 ----------------------


def _run_cli(tmp: Path, stdout: bytes, fmt: str) -> tuple[int, list[dict[str, Any]]]:
    config = tmp / "runners.json"
    code = f"import sys; sys.stdout.buffer.write(bytes.fromhex({stdout.hex()!r}))"
    config.write_text(json.dumps({"fake": {"command": [sys.executable, "-c", code], "response_format": fmt}}))
    (tmp / "cases.jsonl").write_text(json.dumps(GOOD) + "\n")
    out = tmp / "o.jsonl"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        exit_code = main(
            [
                "run",
                "--cases",
                str(tmp / "cases.jsonl"),
                "--output",
                str(out),
                "--runner-config",
                str(config),
                "--runner",
                "fake",
                "--condition",
                "baseline",
                "--trials",
                "1",
                "--retries",
                "0",
                "--backoff",
                "0",
                "--allow-unmetered",
            ]
        )
    rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return exit_code, rows


def test_a_text_answer_s_crlf_is_written_as_lf(tmp_path: Path) -> None:
    """Matched: "one\\r\\ntwo\\r\\n" reads as "one\\ntwo" (universal newlines, then strip())."""
    code, rows = _run_cli(tmp_path, b"one\r\ntwo\r\n", "text")
    assert code == 0 and rows[0]["response"] == "one\ntwo"


def test_stdout_that_is_not_utf8_fails_the_call_and_names_the_byte(tmp_path: Path) -> None:
    """b"caf\\xe9": byte 4 is not UTF-8; no row with a replacement character is written (exit 6)."""
    code, rows = _run_cli(tmp_path, b"caf\xe9", "text")
    assert code == 6 and rows == []


def _stub(tmp: Path, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    (tmp / "cases.jsonl").write_text(json.dumps(GOOD) + "\n")
    out = tmp / "o.jsonl"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(
            [
                "run",
                "--cases",
                str(tmp / "cases.jsonl"),
                "--output",
                str(out),
                "--runner",
                "stub",
                "--condition",
                "baseline",
                *extra,
            ]
        )
    return code, [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []


@pytest.mark.parametrize("flag", ["--trials", "--jobs"])
def test_trials_or_jobs_0_is_a_usage_error(tmp_path: Path, flag: str) -> None:
    """The reference runs nothing and exits 0; adhd-evals refuses (exit 2) and writes no row."""
    code, rows = _stub(tmp_path, flag, "0")
    assert code == 2 and rows == []


def test_a_budget_over_25_is_the_user_s_to_choose(tmp_path: Path) -> None:
    """The reference refuses --budget-usd 30 (its range is (0, 25]); the stub's 1 case x 1 trial
    runs, and its row carries elapsed_s, which the reference's rows do not have."""
    code, rows = _stub(tmp_path, "--budget-usd", "30", "--trials", "1")
    assert code == 0 and len(rows) == 1 and isinstance(rows[0]["elapsed_s"], float)


def test_the_cli_runs_in_an_empty_folder_with_empty_stdin(tmp_path: Path) -> None:
    """The reference runs the CLI in its checkout with stdin inherited; here the CLI lists its
    folder (nothing) and reads stdin to its end (nothing): the answer is '[[], ""]'."""
    code = 'import json, os, sys; print(json.dumps({"result": json.dumps([os.listdir("."), sys.stdin.read()]), "total_cost_usd": 0}))'
    config = tmp_path / "runners.json"
    config.write_text(
        json.dumps({"fake": {"command": [sys.executable, "-c", code], "response_format": "claude-json"}})
    )
    exit_code, rows = _stub_like(tmp_path, config)
    assert exit_code == 0 and rows[0]["response"] == '[[], ""]'


def _stub_like(tmp: Path, config: Path) -> tuple[int, list[dict[str, Any]]]:
    (tmp / "cases.jsonl").write_text(json.dumps(GOOD) + "\n")
    out = tmp / "o.jsonl"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(
            [
                "run",
                "--cases",
                str(tmp / "cases.jsonl"),
                "--output",
                str(out),
                "--runner-config",
                str(config),
                "--runner",
                "fake",
                "--condition",
                "baseline",
                "--trials",
                "1",
            ]
        )
    return code, [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
