"""Issue 35: every command's file inputs, fuzzed (bounded, seeded): whatever a file holds or is —
bytes, torn or odd JSON, costs that are not dollars, lone surrogates, a BOM, deep nesting, a
directory, a symlink loop, a dangling link, a sparse file past --max-bytes — a command ends with
a message and an exit code of its own, never 70 (a bug). FIFOs and devices are the subprocess
battery's (tests/test_readers_bounded.py): in this process a reader that waited would hang the suite.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adhd_evals import exitcodes
from adhd_evals.entry import main

CASE = {"id": "c1", "category": "c", "prompt": "Q", "risk": "low", "criteria": ["x"]}
ROW = {
    "case_id": "c1",
    "trial": 1,
    "condition": "baseline",
    "runner": "stub",
    "response": "r",
    "cost_usd": 0.1,
}

# (a name, the argv with FUZZ where the fuzzed file goes); every other file is a good one
COMMANDS: list[tuple[str, list[str]]] = [
    ("validate", ["validate", "FUZZ"]),
    ("lint", ["lint", "FUZZ"]),
    ("import", ["import", "--format", "evals-json", "FUZZ", "--out", "evals"]),
    ("check responses", ["check", "FUZZ", "--cases", "cases.jsonl"]),
    ("check catalog", ["check", "resp.jsonl", "--cases", "FUZZ"]),
    ("run cases", ["run", "--runner", "stub", "--condition", "baseline", "--cases", "FUZZ", "--output", "o.jsonl"]),
    ("run output", ["run", "--runner", "stub", "--condition", "baseline", "--cases", "cases.jsonl", "--output", "FUZZ"]),
    ("run runner-config", ["run", "--runner", "x", "--runner-config", "FUZZ", "--condition", "baseline", "--cases", "cases.jsonl", "--output", "o.jsonl"]),
    ("run skill", ["run", "--runner", "stub", "--condition", "candidate", "--condition-skill", "FUZZ", "--cases", "cases.jsonl", "--output", "o.jsonl"]),
    ("merge rows", ["merge", "FUZZ", "--output", "m.jsonl"]),
    ("merge plan", ["merge", "shard.jsonl", "--output", "m.jsonl", "--plan", "FUZZ"]),
    ("score", ["score", "FUZZ"]),
    ("blind", ["blind", "FUZZ", "--sheet", "s.jsonl", "--key", "k.jsonl", "--cases", "cases.jsonl"]),
    ("report responses", ["report", "--cases", "cases.jsonl", "--responses", "FUZZ", "--out", "r.html"]),
    ("report checks", ["report", "--cases", "cases.jsonl", "--responses", "resp.jsonl", "--checks", "FUZZ", "--out", "r.html"]),
    ("judge sheet", ["judge", "FUZZ", "--runner", "stub", "--cases", "cases.jsonl", "--output", "j.jsonl"]),
    ("verdicts checks", ["verdicts", "--out", "v.jsonl", "--cases", "cases.jsonl", "--checks", "FUZZ"]),
    ("plan estimate", ["plan", "--cases", "cases.jsonl", "--estimate", "--history", "FUZZ"]),
    ("cache stats", ["cache", "stats", "--cache", "cache"]),
    ("merge sidecar", ["merge", "shard.jsonl", "--output", "m.jsonl"]),
]  # fmt: skip
# where the fuzzed file goes when the command names no FUZZ argument itself
PLACED = {"cache stats": "cache/v2/ab/ab00.json", "merge sidecar": "shard.jsonl.shard.json"}

LINES = st.sampled_from(
    [
        json.dumps(CASE),
        json.dumps(ROW),
        json.dumps({**ROW, "cost_usd": None}),
        json.dumps(ROW).replace("0.1", "NaN"),
        json.dumps(ROW).replace("0.1", "-Infinity"),
        json.dumps(ROW).replace("0.1", "1e999"),
        json.dumps(ROW).replace("0.1", "-1000"),
        json.dumps(ROW).replace('"r"', '"ok \\ud800 bad"'),
        json.dumps(ROW).replace('"c1"', '"\\udfff"'),
        json.dumps({**ROW, "trial": True}),
        json.dumps({**ROW, "trial": 0}),
        json.dumps({**ROW, "response": ["x"]}),
        json.dumps({"case_id": "c1", "trial": 1, "condition": "baseline", "status": "pass", "criterion": "x"}),
        json.dumps({"adhd_evals_shard": 3, "index": 1, "count": 0, "catalog_sha256": "x", "plan": {"cases": 1, "sha256": ""}, "places": [0], "ids": ["c1"], "runs": {}}),
        json.dumps({"skill_name": "s", "evals": [{"id": 1, "prompt": "p"}]}),
        json.dumps({"x": {"command": ["true"], "response_format": "claude-json", "assume_call_usd": -1}}),
        "[" * 5000 + "]" * 5000,
        "9" * 5000,
        "\ufeff" + json.dumps(ROW),
        "{",
        "",
        "null",
        '{"a": 1, "a": 2}',
    ]
)  # fmt: skip


def _contents() -> st.SearchStrategy[bytes]:
    lines = st.lists(LINES, max_size=4).map(lambda ls: "\n".join(ls).encode("utf-8", "surrogatepass"))
    mutated = st.tuples(lines, st.binary(max_size=8), st.integers(0, 400)).map(
        lambda t: t[0][: t[2]] + t[1] + t[0][t[2] :]
    )
    return st.one_of(lines, mutated, st.binary(max_size=64))


KINDS = st.sampled_from(["file", "file", "file", "directory", "loop", "dangling", "sparse"])


def _project(root: Path) -> None:
    (root / "cases.jsonl").write_text(json.dumps(CASE) + "\n")
    (root / "resp.jsonl").write_text(
        json.dumps(ROW) + "\n" + json.dumps({**ROW, "condition": "candidate"}) + "\n"
    )
    (root / "skill.md").write_text("Be brief.\n")
    assert main(["run", "--runner", "stub", "--condition", "baseline", "--cases", "cases.jsonl", "--trials", "1",
                 "--shard", "1/1", "--output", "shard.jsonl"]) == exitcodes.OK  # fmt: skip
    (root / "cache" / "v2" / "ab").mkdir(parents=True)


def _place(path: Path, kind: str, data: bytes) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "directory":
        path.mkdir()
    elif kind == "loop":
        path.symlink_to(path.name)
    elif kind == "dangling":
        path.symlink_to("nowhere-at-all")
    elif kind == "sparse":
        with path.open("wb") as stream:
            stream.write(data[:64])
            stream.truncate(300 * 1024 * 1024)  # past the default --max-bytes (256 MiB)
    else:
        path.write_bytes(data)


_TEMPLATE: list[Path] = []  # the good project, made once and copied for each example


def _template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not _TEMPLATE or not _TEMPLATE[0].exists():
        root = tmp_path_factory.mktemp("template")
        here = Path.cwd()
        os.chdir(root)
        try:
            _project(root)
        finally:
            os.chdir(here)
        _TEMPLATE[:] = [root]
    return _TEMPLATE[0]


def _fuzz(tmp_path_factory: pytest.TempPathFactory, command: str, kind: str, data: bytes) -> None:
    work = tmp_path_factory.mktemp("fuzz") / "project"
    shutil.copytree(_template(tmp_path_factory), work, symlinks=True)
    here = Path.cwd()
    os.chdir(work)
    try:
        argv = dict(COMMANDS)[command]
        target = PLACED.get(command, "fuzzed.jsonl")
        _place(work / target, kind, data)
        code = main([target if arg == "FUZZ" else arg for arg in argv])
    finally:
        os.chdir(here)
        shutil.rmtree(work, ignore_errors=True)
    assert code != exitcodes.INTERNAL, (command, kind, data[:200])


NAMES = st.sampled_from([name for name, _ in COMMANDS])
SETTINGS = {
    "derandomize": True,
    "deadline": None,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    "database": None,
}


@pytest.mark.long
@settings(max_examples=15, **SETTINGS)  # type: ignore[arg-type]
@given(command=NAMES, kind=KINDS, data=_contents())
def test_no_file_input_ends_in_a_traceback(
    tmp_path_factory: pytest.TempPathFactory, command: str, kind: str, data: bytes
) -> None:
    _fuzz(tmp_path_factory, command, kind, data)


@pytest.mark.long
@settings(max_examples=600, **SETTINGS)  # type: ignore[arg-type]
@given(command=NAMES, kind=KINDS, data=_contents())
def test_no_file_input_ends_in_a_traceback_long(
    tmp_path_factory: pytest.TempPathFactory, command: str, kind: str, data: bytes
) -> None:
    _fuzz(tmp_path_factory, command, kind, data)


@pytest.mark.long
@pytest.mark.parametrize("kind", ["directory", "loop", "dangling", "sparse"])
@pytest.mark.parametrize("command", [name for name, _ in COMMANDS])
def test_every_command_refuses_every_kind_of_path(
    tmp_path_factory: pytest.TempPathFactory, command: str, kind: str
) -> None:
    """The walk: every command's fuzzed argument as each kind that is not a file."""
    _fuzz(tmp_path_factory, command, kind, b"{}")
