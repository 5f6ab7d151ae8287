"""Ids, pairing and notes of promptfoo imports; one test per rule."""

from __future__ import annotations

from pathlib import Path

from adhd_evals.importing.importer import read_source


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_repeated_description_gives_stem_and_number_ids(tmp_path: Path) -> None:
    """Tests 1 and 3 share a description: both take <stem>-<number>; test 2's is unique: its slug."""
    config = _config(
        tmp_path,
        'prompts: ["Q {{ x }}"]\ntests:\n  - {description: Same, vars: {x: a}}\n'
        "  - {description: Other one, vars: {x: b}}\n  - {description: Same, vars: {x: c}}\n",
    )
    assert [c.id for c in read_source("promptfoo", config).cases] == [
        "promptfooconfig-1",
        "other-one",
        "promptfooconfig-3",
    ]


def test_several_prompts_pair_the_cases_of_a_test(tmp_path: Path) -> None:
    """Two prompts labelled A and B: each test gives <id>--a and <id>--b, each noting the test it pairs with."""
    config = _config(
        tmp_path,
        "prompts:\n  - {label: A, raw: 'one {{ x }}'}\n  - {label: B, raw: 'two {{ x }}'}\n"
        "tests:\n  - {description: t, vars: {x: 1}}\n",
    )
    cases = read_source("promptfoo", config).cases
    assert [(c.id, c.prompt) for c in cases] == [("t--a", "one 1"), ("t--b", "two 1")]
    assert all(("pair", "t") in [(n.key, n.value) for n in c.notes] for c in cases)


def test_config_keys_promptfoo_uses_elsewhere_are_kept_as_notes(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        "env: {REGION: eu}\nprompts:\n  - {raw: 'in {{ env.REGION }}', config: {temperature: 0}}\n"
        "defaultTest: {provider: openai:gpt-4o}\ntests: [{vars: {x: 1}}]\n",
    )
    case = read_source("promptfoo", config).cases[0]
    kept = {n.key: n.value for n in case.notes}
    assert case.prompt == "in eu"
    assert kept["(config) env"] == {"REGION": "eu"}
    assert kept["(config) defaultTest.provider"] == "openai:gpt-4o"
    assert kept["(config) prompts[0].config"] == {"temperature": 0}


def test_no_tests_renders_each_prompt_once(tmp_path: Path) -> None:
    config = _config(tmp_path, 'prompts: ["Hello {{ name }}"]\ndefaultTest: {vars: {name: Ada}}\n')
    assert [c.prompt for c in read_source("promptfoo", config).cases] == ["Hello Ada"]
