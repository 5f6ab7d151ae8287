"""Issue 38 item 4: a run's prompts are checked at C speed, once per case, with the same refusals.

The lone-surrogate check once walked every character of every prompt of every trial in a
Python generator; it is now one call of the UTF-8 encoder per case (its trials share the prompt).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adhd_evals import exitcodes
from adhd_evals.entry import main
from adhd_evals.errors import UsageError
from adhd_evals.runs.calling.config import Runner
from adhd_evals.runs.running import execute
from adhd_evals.text import lone_surrogate_at


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", None),
        ("plain ASCII, the common prompt", None),
        ("café, naïve, 日本語", None),  # non-ASCII but every code point has UTF-8 bytes
        ("\U0001f600 an emoji", None),  # one astral code point, not a pair of surrogates
        ("a\ud800b", 1),  # a high surrogate alone, second character
        ("é\udfff", 1),  # the last code point of the range, after a non-ASCII letter
        ("\ud83d\ude00", 0),  # a pair spelled as two code points: each is lone in a str
        ("\ud7ff\ue000", None),  # the code points either side of the range
    ],
)
def test_lone_surrogate_at_finds_the_first_code_point_of_the_range(text: str, expected: int | None) -> None:
    """The range is U+D800-U+DFFF; the position is 0-based, of the first one."""
    assert lone_surrogate_at(text) == expected


# every code point, surrogates (category Cs) over-weighted beside the rest
_TEXT = st.lists(
    st.one_of(st.characters(codec=None, exclude_categories=()), st.characters(categories=["Cs"])),
    max_size=40,
).map("".join)


@given(_TEXT)
def test_lone_surrogate_at_is_the_first_code_point_of_the_range(text: str) -> None:
    """By the rule, read off the code points one by one: the first in U+D800-U+DFFF."""
    expected = next((at for at, char in enumerate(text) if 0xD800 <= ord(char) <= 0xDFFF), None)
    assert lone_surrogate_at(text) == expected


def test_check_prompt_names_the_lone_surrogate_and_its_1_based_character() -> None:
    """'ab\\ud800': U+D800 is the third character."""
    with pytest.raises(UsageError) as refused:
        execute._check_prompt(Runner(name="stub", command=(), builtin=True), "c1", "ab\ud800")
    assert str(refused.value) == (
        "case 'c1': its prompt holds a lone surrogate (U+D800) at character 3, which no UTF-8 text "
        "can carry; fix it in the catalog"
    )


def test_check_prompt_passes_a_prompt_of_text_utf8_can_carry() -> None:
    execute._check_prompt(Runner(name="stub", command=(), builtin=True), "c1", "café \U0001f600")


def _catalog(tmp_path: Path, prompts: list[str]) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": f"c{n}", "category": "c", "prompt": p, "risk": "low", "criteria": ["x"]}) + "\n"
            for n, p in enumerate(prompts, start=1)
        )
    )
    return path


def test_a_bad_prompt_is_refused_before_any_row_whatever_the_trials(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three trials share each case's prompt: the check still runs before the first call and
    names the first offending case in catalog order (c2, not c3), and no row is written."""
    cases = _catalog(tmp_path, ["fine", "-a flag", "-another"])
    (tmp_path / "runners.json").write_text(
        json.dumps({"cli": {"command": ["true"], "response_format": "claude-json"}})
    )
    out = tmp_path / "out.jsonl"
    argv = ["run", "--runner", "cli", "--runner-config", str(tmp_path / "runners.json")]
    argv += ["--condition", "baseline", "--cases", str(cases), "--output", str(out), "--trials", "3"]
    assert main(argv) == exitcodes.USAGE
    assert "case 'c2': its prompt begins with '-'" in capsys.readouterr().err
    assert not out.exists() or out.read_text() == ""


def test_trials_of_a_case_send_the_same_prompt(tmp_path: Path) -> None:
    """The stub's answer is a digest of the prompt: equal across a case's trials, and the
    candidate's (the skill wrapped around the task) differs from the baseline's."""
    cases = _catalog(tmp_path, ["one", "two"])
    (tmp_path / "skill.md").write_text("Be terse.\n")
    rows = {}
    for condition in ("baseline", "candidate"):
        out = tmp_path / f"{condition}.jsonl"
        argv = ["run", "--runner", "stub", "--condition", condition, "--cases", str(cases)]
        argv += ["--output", str(out), "--trials", "3", "--condition-skill", str(tmp_path / "skill.md")]
        assert main(argv) == exitcodes.OK
        rows[condition] = [json.loads(line) for line in out.read_text().splitlines()]
    for condition, written in rows.items():
        assert [(r["case_id"], r["trial"]) for r in written] == [
            (c, t) for t in (1, 2, 3) for c in ("c1", "c2")
        ]
        answers = {
            r["case_id"]: {r2["response"] for r2 in written if r2["case_id"] == r["case_id"]} for r in written
        }
        assert all(len(seen) == 1 for seen in answers.values()), condition
    assert rows["baseline"][0]["response"] != rows["candidate"][0]["response"]
