"""Issue 38 item 4: a cache hit costs less, and every key and entry digest stays what it was.

The key's runner part is made once per runner and the entry digest's encoder once per
process; entries written before must still be found and served, so both are checked
against their documented formulas, worked here with hashlib and json directly.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from adhd_evals.runs.calling import cache as caching
from adhd_evals.runs.calling.config import BUILTIN_STUB, Runner

_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)  # lone surrogates too
_RUNNERS = st.builds(
    Runner,
    name=_TEXT,
    command=st.lists(_TEXT, max_size=3).map(tuple),
    response_format=st.sampled_from(["text", "claude-json", "codex-jsonl"]),
    budget_flag=st.none() | _TEXT,
    prompt_via=st.sampled_from(["argv", "stdin"]),
)


def _documented_key(runner: Runner, prompt: str, trial: int, case_id: str) -> str:
    """SHA-256 over json.dumps([layout, command, format, flag, via, name or null, trial, case],
    ASCII), a NUL byte, and the prompt as UTF-8 (lone surrogates passed through)."""
    listed = [
        "v2",
        list(runner.command),
        runner.response_format,
        runner.budget_flag,
        runner.prompt_via,
        None if runner.command else runner.name,
        trial,
        case_id,
    ]
    made = json.dumps(listed, ensure_ascii=True).encode() + b"\0" + prompt.encode("utf-8", "surrogatepass")
    return hashlib.sha256(made).hexdigest()


@given(runner=_RUNNERS, prompt=_TEXT, trial=st.integers(1, 10**6), case_id=_TEXT)
def test_the_key_is_its_documented_digest(runner: Runner, prompt: str, trial: int, case_id: str) -> None:
    assert caching.key(runner, prompt, trial, case_id=case_id) == _documented_key(
        runner, prompt, trial, case_id
    )


def test_the_stub_s_key_is_pinned() -> None:
    """One key worked out once by the formula above (sha256 of
    '["v2", [], "text", null, "argv", "stub", 1, "c"]' + NUL + 'Q'): entries of earlier
    releases keep being found."""
    made = b'["v2", [], "text", null, "argv", "stub", 1, "c"]\0Q'
    assert caching.key(BUILTIN_STUB, "Q", 1, case_id="c") == hashlib.sha256(made).hexdigest()


_JSON: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(0, 10) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)


@given(
    response=_TEXT,
    usage=_JSON,
    cost=st.none() | st.floats(0, 5),
    elapsed=st.floats(0, 60),
    trace=st.none() | st.dictionaries(_TEXT, _JSON, max_size=2),
)
def test_an_entry_s_content_digest_is_its_documented_digest(
    response: str, usage: Any, cost: float | None, elapsed: float, trace: dict[str, Any] | None
) -> None:
    """SHA-256 of json.dumps([key, response, usage, cost, elapsed(, trace)], ASCII, keys sorted)."""
    hit = caching.Hit(response, usage, cost, elapsed, trace)
    fields = ["k" * 64, response, usage, cost, elapsed] + ([trace] if trace is not None else [])
    expected = hashlib.sha256(json.dumps(fields, ensure_ascii=True, sort_keys=True).encode()).hexdigest()
    assert caching._content("k" * 64, hit) == expected
