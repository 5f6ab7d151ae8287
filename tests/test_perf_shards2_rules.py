"""Issue 38 (shards + merge): the faster forms of a shard's rules say what the documented rules say.

`Shard.places` picks a shard's places from every id without a call per id, `ids_sha256` hashes
the ids as one text, and `seal_holds` looks for the seal's tail at its place rather than with
`rfind`. Each is checked against the rule as docs/scale.md states it, written out here from the
docs (not the code under test): a case's shard is the first eight bytes of the SHA-256 of its id,
big-endian, modulo N, plus one; the plan digest is a SHA-256 over each id followed by a newline;
a seal is the SHA-256 of the catalog's hash, a newline and the row's line without its seal,
written as the last key `"seal"`."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adhd_evals.runs.calling import shard as sharding

TAIL = b', "seal": "'


def _documented_shard(case_id: str, count: int) -> int:
    digest = hashlib.sha256(case_id.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def _documented_holds(catalog: str, raw: bytes) -> bool:
    """The seal rule as the docs state it: the line (whitespace around it aside) ends in
    `, "seal": "<64 hex>"}`, that tail is the last one, and the hex is the SHA-256 of the
    catalog's hash, a newline and the line with the tail replaced by its closing brace."""
    line = raw.strip()
    at = line.rfind(TAIL)
    if at < 0 or len(line) != at + len(TAIL) + 66 or not line.endswith(b'"}'):
        return False
    body = line[:at] + b"}"
    expected = hashlib.sha256(catalog.encode("ascii", "replace") + b"\n" + body).hexdigest()
    return line[at + len(TAIL) : -2] == expected.encode()


@pytest.mark.parametrize(
    ("ids", "shard", "expected"),
    [
        # case-1 is shard 3 of 4, case-2 shard 4 of 4 (test_shard.py works both from sha256sum);
        # so of [case-1, case-2, case-1], shard 3 holds places 0 and 2, shard 4 place 1
        pytest.param(["case-1", "case-2", "case-1"], sharding.Shard(3, 4), [0, 2], id="shard 3 of 4"),
        pytest.param(["case-1", "case-2", "case-1"], sharding.Shard(4, 4), [1], id="shard 4 of 4"),
        pytest.param(["case-1", "case-2"], sharding.Shard(1, 4), [], id="a shard holding none"),
        pytest.param(["case-1", "case-2"], sharding.Shard(1, 1), [0, 1], id="one shard holds all"),
        pytest.param([], sharding.Shard(2, 3), [], id="no ids"),
    ],
)
def test_a_shard_s_places_are_those_its_hash_gives(
    ids: list[str], shard: sharding.Shard, expected: list[int]
) -> None:
    assert shard.places(ids) == expected


@given(
    st.lists(st.text(max_size=12), max_size=40),
    st.integers(1, 9).flatmap(lambda n: st.tuples(st.integers(1, n), st.just(n))),
)
def test_places_are_the_documented_rule_over_every_id(ids: list[str], spec: tuple[int, int]) -> None:
    """Any ids (empty, repeated, non-ASCII, lone surrogates) and any K/N: the places, in order,
    are those whose documented shard is K."""
    index, count = spec
    expected = [at for at, case_id in enumerate(ids) if _documented_shard(case_id, count) == index]
    assert sharding.Shard(index, count).places(ids) == expected


@pytest.mark.parametrize(
    ("ids", "text"),
    [
        pytest.param([], b"", id="no ids: the digest of nothing"),
        pytest.param(["a"], b"a\n", id="one id"),
        pytest.param(["a", "b"], b"a\nb\n", id="each id then a newline"),
        pytest.param(["", "é"], b"\n\xc3\xa9\n", id="an empty id, a non-ASCII one"),
        pytest.param(["\ud800"], b"\xed\xa0\x80\n", id="a lone surrogate, passed through"),
    ],
)
def test_the_plan_digest_hashes_each_id_and_a_newline(ids: list[str], text: bytes) -> None:
    assert sharding.ids_sha256(ids) == hashlib.sha256(text).hexdigest()


def _sealed(catalog: str, body: bytes) -> bytes:
    seal = hashlib.sha256(catalog.encode("ascii", "replace") + b"\n" + body).hexdigest()
    return body[:-1] + TAIL + seal.encode() + b'"}'


def test_a_sealed_line_holds_for_its_catalog_only() -> None:
    """The seal made by the documented rule holds, with its newline or without; the same line
    read against another catalog's hash does not."""
    line = _sealed("x", b'{"case_id": "c", "trial": 1}')
    assert sharding.seal_holds("x", line) and sharding.seal_holds("x", line + b"\n")
    assert not sharding.seal_holds("y", line)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"", id="an empty line"),
        pytest.param(b'{"seal": "' + b"0" * 64 + b'"}', id="a seal key with no key before it"),
        pytest.param(_sealed("x", b'{"a": 1}')[:-1], id="its closing brace cut"),
        pytest.param(_sealed("x", b'{"a": 1}').replace(b'"}', b"'}"), id="its closing quote changed"),
        pytest.param(_sealed("x", b'{"a": 1}').upper(), id="the seal in capitals"),
        pytest.param(_sealed("x", b'{"a": 2}')[:-3] + b'0"}', id="one hex digit changed"),
        pytest.param(_sealed("x", b'{"a": 1}') + b' "}', id="text after it"),
    ],
)
def test_a_line_whose_seal_does_not_hold_is_told(raw: bytes) -> None:
    assert not sharding.seal_holds("x", raw)
    assert not _documented_holds("x", raw)


_LINES = st.one_of(
    st.binary(max_size=120),
    st.builds(
        lambda body, cut, junk: _sealed("x", b"{" + body + b"}")[: cut or None] + junk,
        st.binary(max_size=60),
        st.integers(-80, 0),
        st.sampled_from([b"", b"\n", b" ", b"}", TAIL, TAIL + b"0" * 64 + b'"}']),
    ),
    st.builds(lambda a, b: a + TAIL + b, st.binary(max_size=40), st.binary(max_size=80)),
)


@given(_LINES)
def test_seal_holds_says_what_the_documented_rule_says(raw: bytes) -> None:
    """Random bytes, sealed lines cut short or followed by junk (another tail among it), and
    lines with a tail in the middle: the tail looked for at its place decides as `rfind` did."""
    assert sharding.seal_holds("x", raw) == _documented_holds("x", raw)
