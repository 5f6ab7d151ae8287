"""`audit --prompt-only`: a check that passes on the case's own prompt, or on an empty answer, is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adhd_evals import exitcodes
from adhd_evals.entry import main

MODULE = """
def contains(answer, needle):
    return needle.lower() in answer.lower()


def contains_none(answer, needles):
    return not any(n.lower() in answer.lower() for n in needles)


def unwritten(text):
    return False


def mentions_sourdough(answer):
    return contains(answer, "sourdough")


def leaks_no_password(answer):
    return contains_none(answer, ["password"])


def numbers_the_steps(answer):
    return contains(answer, "1.")


def reads_well(answer):
    return unwritten("Reads as a baker would write it.")


def breaks(answer):
    raise ValueError("a bug in the check")


CHECKS = {
    "bread": [
        ("Mentions sourdough.", mentions_sourdough),
        ("Leaks no password.", leaks_no_password),
        ("Numbers the steps.", numbers_the_steps),
        ("Reads well.", reads_well),
        ("Breaks.", breaks),
    ],
}
"""
CASE = {
    "id": "bread",
    "category": "cooking",
    "prompt": "Write a sourdough recipe.",
    "risk": "low",
    "criteria": ["Mentions sourdough.", "Leaks no password.", "Numbers the steps.", "Reads well.", "Breaks."],
}


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "cases.jsonl").write_text(json.dumps(CASE) + "\n")
    (tmp_path / "evals" / "checks.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_check_for_a_word_of_the_prompt_is_flagged(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`contains(answer, "sourdough")` passes when the answer is the prompt ("Write a sourdough
    recipe."), so it cannot tell an answer from an echo. `contains_none(answer, ["password"])`
    passes on both the prompt and an empty answer. "1." is in neither; an unwritten placeholder
    and a check that raises never pass: not flagged."""
    assert main(["audit", "--prompt-only"]) == exitcodes.FAILED
    err = capsys.readouterr().err
    assert (
        "bread: mentions_sourdough (Mentions sourdough.) passes on its own prompt as the answer: "
        "it cannot tell a good answer from an echo"
    ) in err
    assert "bread: leaks_no_password (Leaks no password.) passes on its own prompt and an empty answer" in err
    assert "numbers_the_steps" not in err and "reads_well" not in err and "breaks" not in err
    assert "Prompt-only pass: 2 checks passed with no real answer" in err


def test_the_findings_as_json(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--prompt-only", "--json"]) == exitcodes.FAILED
    shown = json.loads(capsys.readouterr().out)
    assert shown == {
        "prompt_only": [
            {
                "case_id": "bread",
                "criterion": "Mentions sourdough.",
                "check": "mentions_sourdough",
                "on_prompt": True,
                "on_empty": False,
            },
            {
                "case_id": "bread",
                "criterion": "Leaks no password.",
                "check": "leaks_no_password",
                "on_prompt": True,
                "on_empty": True,
            },
        ]
    }


def test_a_suite_with_no_echo_passes(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = work / "other.py"
    module.write_text(
        MODULE.replace('("Mentions sourdough.", mentions_sourdough),', "").replace(
            '("Leaks no password.", leaks_no_password),', ""
        )
    )
    assert main(["audit", "--prompt-only", "--suite", str(module)]) == exitcodes.OK
    assert "0 checks passed with no real answer" in capsys.readouterr().err


def test_with_check_results_too_both_run(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The prompt-only pass and the audit of results in one call: the exit code is the pass's."""
    from helpers import FIXTURES

    assert main(["audit", str(FIXTURES / "audit" / "results.jsonl"), "--prompt-only"]) == exitcodes.FAILED
    captured = capsys.readouterr()
    assert "lists_steps" in captured.out and "mentions_sourdough" in captured.err


def test_both_passes_as_one_json_document(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from helpers import FIXTURES

    argv = ["audit", str(FIXTURES / "audit" / "results.jsonl"), "--prompt-only", "--json"]
    assert main(argv) == exitcodes.FAILED
    shown = json.loads(capsys.readouterr().out)
    assert len(shown["items"]) == 5 and [e["check"] for e in shown["prompt_only"]] == [
        "mentions_sourdough",
        "leaks_no_password",
    ]
