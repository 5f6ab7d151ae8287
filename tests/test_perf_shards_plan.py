"""Issue 38 item 4: a shard parses only its own lines of a catalog validated before.

A run that validates a catalog (or finds it validated) keeps, beside the `.valid` record of its
content, an index: every case's id and the byte span of its line, with a check digest over the
catalog's SHA-256 and the index. A later shard reads the catalog's bytes once, hashes them, and
parses only the lines of the cases it holds. Whatever is wrong with the index (missing, damaged,
of other bytes, lying about a line), the shard takes the full path: the rows and the sidecar are
exactly the full path's. Expected rows are those of the same shard run with no records at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from adhd_evals import catalog, exitcodes
from adhd_evals.entry import main
from adhd_evals.runs.calling.config import BUILTIN_STUB
from adhd_evals.runs.calling.shard import Shard, shard_of
from adhd_evals.runs.running import execute
from adhd_evals.runs.running.curtail_options import Curtail

IDS = [f"case-{n}" for n in range(12)]


def _lines(prompt: str = "p") -> list[str]:
    return [
        json.dumps(
            {
                "id": case_id,
                "category": "c",
                "prompt": f"{prompt} {case_id}",
                "risk": "low",
                "criteria": ["x"],
            }
        )
        + "\n"
        for case_id in IDS
    ]


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache home of this test's own: its records are the only ones a run can find."""
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(_lines()), encoding="utf-8")
    return path


def _records(xdg: Path) -> Path:
    return xdg / "adhd-evals" / "validated"


def _run(cases: Path, output: Path, *more: str) -> None:
    argv = ["run", "--runner", "stub", "--condition", "baseline", "--cases", str(cases), "--trials", "2"]
    assert main([*argv, "--output", str(output), *more]) == exitcodes.OK


def _shard_result(cases: Path, output: Path, shard: str = "2/3") -> tuple[list[dict[str, object]], bytes]:
    """A shard's rows (without their timing and seal, which hold the time taken) and its sidecar."""
    _run(cases, output, "--shard", shard)
    rows = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    kept = [{k: v for k, v in row.items() if k not in ("elapsed_s", "seal")} for row in rows]
    return kept, output.with_name(output.name + ".shard.json").read_bytes()


def _full_path(
    tmp_path: Path, cases: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[dict[str, object]], bytes]:
    """The same shard with no record anywhere: the whole catalog validated and parsed."""
    with monkeypatch.context() as inner:
        inner.setenv("XDG_CACHE_HOME", str(tmp_path / "empty-xdg"))
        return _shard_result(cases, tmp_path / "reference.jsonl")


class _Spy:
    """catalog's `json`, recording each text its loads parses (the module's other names kept)."""

    def __init__(self) -> None:
        self.parsed: list[str] = []
        self.dumps = json.dumps

    def loads(self, text: str | bytes) -> object:
        self.parsed.append(text if isinstance(text, str) else text.decode())
        return json.loads(text)


def test_a_shard_parses_only_the_lines_of_the_cases_it_holds(
    tmp_path: Path, xdg: Path, cases: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After one run validated the catalog, shard 2/3 parses exactly the lines of its own cases
    (worked from shard_of: the ids whose shard is 2), none of shard 1's or 3's, and writes the
    rows and sidecar of the full path."""
    expected = _full_path(tmp_path, cases, monkeypatch)
    _run(cases, tmp_path / "first.jsonl")  # the full path: the rules run, the records are written
    spy = _Spy()
    monkeypatch.setattr(catalog, "json", spy)
    got = _shard_result(cases, tmp_path / "shard.jsonl")
    lines = _lines()
    mine = {line for line, case_id in zip(lines, IDS, strict=True) if shard_of(case_id, 3) == 2}
    assert 0 < len(mine) < len(IDS)  # the test means something: shard 2 holds some, not all
    assert {text for text in spy.parsed if text in lines} == mine
    assert got == expected


def test_the_index_is_written_once_beside_the_record(xdg: Path, cases: Path, tmp_path: Path) -> None:
    """One index per content, named as its .valid record; a second run leaves it as it was."""
    _run(cases, tmp_path / "a.jsonl")
    (index,) = _records(xdg).glob("*.index")
    assert index.with_suffix(".valid").is_file()
    written = index.stat().st_mtime_ns, index.read_bytes()
    _run(cases, tmp_path / "b.jsonl")
    assert (index.stat().st_mtime_ns, index.read_bytes()) == written
    assert json.loads(written[1])["ids"] == IDS


def _corruptions(cases: Path) -> Iterator[tuple[str, str | None]]:
    """(name, the index file's new text, or None to delete it)."""
    import hashlib

    digest = hashlib.sha256(cases.read_bytes()).hexdigest()
    spans: list[int] = []
    at = 0
    for line in _lines():
        spans += [at, at + len(line.encode())]
        at += len(line.encode())
    swapped = [IDS[1], IDS[0], *IDS[2:]]  # the first two ids swapped, their spans not
    cut = [*spans[:-1], spans[-1] - 10]  # the last line cut short: not JSON
    yield "missing", None
    yield "not JSON", "\x00\x01 garbage"
    yield "not an object", "[1, 2]\n"
    yield "check of other content", json.dumps({"ids": IDS[:-1], "spans": spans[:-2], "check": "0" * 64})
    yield (
        "ids lie",
        json.dumps({"ids": swapped, "spans": spans, "check": catalog._check(digest, swapped, spans)}),
    )
    yield "span cut", json.dumps({"ids": IDS, "spans": cut, "check": catalog._check(digest, IDS, cut)})


@pytest.mark.parametrize(
    "damage", ["missing", "not JSON", "not an object", "check of other content", "span cut"]
)
def test_a_damaged_index_gives_the_full_path_s_rows(
    tmp_path: Path, xdg: Path, cases: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    """Each damage, on every shard (the cut is case 11's line, whichever shard holds it): the
    rows and the sidecar of the full path, never a wrong plan."""
    _shards_match(tmp_path, xdg, cases, monkeypatch, damage, (1, 2, 3))


def test_an_index_whose_ids_lie_is_caught_where_the_lie_is_parsed(
    tmp_path: Path, xdg: Path, cases: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forged index (its check remade) naming case 0's line case 1 and case 1's case 0: the
    shards holding those ids parse those lines, find the other id, and take the full path. (A
    shard that holds neither never reads them: the index, like the .valid record, is trusted
    as the user's own cache; the check digest is what catches a damaged one.)"""
    owners = tuple(sorted({shard_of(IDS[0], 3), shard_of(IDS[1], 3)}))
    _shards_match(tmp_path, xdg, cases, monkeypatch, "ids lie", owners)


def _shards_match(
    tmp_path: Path,
    xdg: Path,
    cases: Path,
    monkeypatch: pytest.MonkeyPatch,
    damage: str,
    shards: tuple[int, ...],
) -> None:
    _run(cases, tmp_path / "first.jsonl")
    (index,) = _records(xdg).glob("*.index")
    text = dict(_corruptions(cases))[damage]
    for k in shards:
        if text is None:
            index.unlink(missing_ok=True)
        else:
            index.write_text(text)
        with monkeypatch.context() as inner:
            inner.setenv("XDG_CACHE_HOME", str(tmp_path / "empty-xdg"))
            expected = _shard_result(cases, tmp_path / f"reference-{k}.jsonl", f"{k}/3")
        assert _shard_result(cases, tmp_path / f"shard-{k}.jsonl", f"{k}/3") == expected
        healed = catalog.indexed(cases, _records(xdg))  # the full path wrote it whole again
        assert healed is not None and healed.ids == IDS


def test_a_catalog_edited_since_its_index_is_read_whole(
    tmp_path: Path, xdg: Path, cases: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index of the old bytes is another content's: the edited catalog's shard has the full
    path's rows (the new prompts), and its own index is written for the next shard."""
    _run(cases, tmp_path / "first.jsonl")
    cases.write_text("".join(_lines(prompt="edited")), encoding="utf-8")
    expected = _full_path(tmp_path, cases, monkeypatch)
    got = _shard_result(cases, tmp_path / "shard.jsonl")
    assert got == expected
    assert len(list(_records(xdg).glob("*.index"))) == 2


def test_an_index_without_its_valid_record_is_not_used(xdg: Path, cases: Path, tmp_path: Path) -> None:
    """The index says where lines are, not that they passed the rules: without .valid, no part."""
    _run(cases, tmp_path / "first.jsonl")
    (record,) = _records(xdg).glob("*.valid")
    record.unlink()
    assert catalog.indexed(cases, _records(xdg)) is None


def test_an_unreadable_catalog_has_no_index(tmp_path: Path) -> None:
    """No catalog, or a folder at its name: None, and the full path says what is wrong."""
    assert catalog.indexed(tmp_path / "absent.jsonl", tmp_path / "records") is None
    (tmp_path / "folder.jsonl").mkdir()
    assert catalog.indexed(tmp_path / "folder.jsonl", tmp_path / "records") is None


def _request(
    cases: Path, output: Path, shard: Shard | None = None, curtail: Curtail | None = None
) -> execute.RunRequest:
    return execute.RunRequest(
        runner=BUILTIN_STUB, condition="baseline", output=output, cases=cases, shard=shard, curtail=curtail
    )


def test_only_a_shard_without_stop_when_decided_reads_the_index(
    xdg: Path, cases: Path, tmp_path: Path
) -> None:
    """No shard: no part. --stop-when-decided decides over every case, so no part either."""
    _run(cases, tmp_path / "first.jsonl")
    out = tmp_path / "out.jsonl"
    assert execute.shard_part(_request(cases, out)) is None
    curtail = Curtail(tmp_path / "baseline.jsonl", tmp_path / "suite.py")
    assert execute.shard_part(_request(cases, out, shard=Shard(1, 2), curtail=curtail)) is None
    part = execute.shard_part(_request(cases, out, shard=Shard(1, 2)))
    assert part is not None and part.ids == IDS
    assert [at for at, _ in part.held] == [at for at, case_id in enumerate(IDS) if shard_of(case_id, 2) == 1]


def test_the_index_spans_hold_across_crlf_and_blank_lines(xdg: Path, cases: Path, tmp_path: Path) -> None:
    """CRLF line ends, a leading line of U+3000 (a Unicode blank the rules skip), blank lines
    between and after: each shard's part is load_valid's cases at their places, shard by shard."""
    body = "\r\n\r\n".join(line.rstrip("\n") for line in _lines())
    cases.write_bytes(("\u3000\n" + body + "\r\n\n  \n").encode("utf-8"))
    _run(cases, tmp_path / "first.jsonl")
    whole = catalog.load_valid(cases)
    for k in (1, 2, 3):
        part = execute.shard_part(_request(cases, tmp_path / "out.jsonl", shard=Shard(k, 3)))
        assert part is not None
        assert part.held == [(at, case) for at, case in enumerate(whole) if shard_of(case["id"], 3) == k]
