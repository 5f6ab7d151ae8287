"""`survey --format promptfoo`: the shapes configs use and their assertion types, counted, and what the import makes of each."""

from __future__ import annotations

from pathlib import Path

from adhd_evals.importing.formats.promptfoo.census import configs, report, today

CONFIG = """\
prompts:
  - "inline {{ x }}"
  - file://prompt.txt
  - {raw: "Q {{ x }}", label: q}
defaultTest:
  vars: {x: 1}
  assert: [{type: equals, value: "1"}]
tests:
  - file://cases.csv
  - file://more
  - description: one
    vars:
      x: 2
      assert: [{type: contains, value: a}]
    assert:
      - {type: contains, value: a}
      - {type: assert-set, assert: [{type: regex, value: a}, {type: not-llm-rubric, value: b}]}
      - {type: webhook, value: http://x}
      - {type: made-up}
      - just text
"""


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "promptfooconfig.yaml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "other.yaml").write_text("prompts: [hi]\n", encoding="utf-8")  # a config by its keys
    (tmp_path / "notes.yaml").write_text("title: not a config\n", encoding="utf-8")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "promptfooconfig.json").write_text("{nope", encoding="utf-8")
    return tmp_path


def test_a_folder_s_configs_are_found_by_name_or_by_their_keys(tmp_path: Path) -> None:
    """promptfooconfig.* by name, another .yaml when it starts with prompts: or providers:; a file given is taken as is."""
    root = _tree(tmp_path)
    found = sorted(p.relative_to(root).as_posix() for p in configs([root]))
    assert found == ["broken/promptfooconfig.json", "other.yaml", "promptfooconfig.yaml"]
    assert configs([root / "notes.yaml"]) == [root / "notes.yaml"]


def test_the_report_counts_shapes_and_types_and_names_what_it_could_not_read(tmp_path: Path) -> None:
    """Two configs read (promptfooconfig.yaml, other.yaml); the JSON one is not JSON; a list is not a mapping.
    Types: contains 1, equals 1 (defaultTest), assert-set 1 with its regex and not-llm-rubric, webhook 1,
    made-up 1; "just text" is no assertion. An assert under vars is a shape of its own."""
    root = _tree(tmp_path)
    listed = root / "listed.yaml"
    listed.write_text("- a\n", encoding="utf-8")
    lines = report([root, listed])
    assert lines[0] == "Surveyed 2 promptfoo configs."
    shapes = lines[
        lines.index("Shapes:") + 1 : lines.index("Assertion types (count, what the import makes of it):")
    ]
    assert sorted(shapes) == sorted(
        [
            "  prompts: inline text: 2",
            "  prompts: file: 1",
            "  prompts: object {label, raw}: 1",
            "  tests: file (.csv): 1",
            "  tests: file (no extension): 1",
            "  tests: inline: 1",
            "  tests: assert indented under vars: 1",
            "  defaultTest: {assert, vars}: 1",
        ]
    )
    types = lines[lines.index("Assertion types (count, what the import makes of it):") + 1 :]
    assert sorted(t for t in types if not t.startswith("Not read")) == sorted(
        [
            "  equals: 1, a mechanical check",
            "  contains: 1, a mechanical check",
            "  assert-set: 1, flattened, its threshold a note",
            "  regex: 1, a mechanical check",
            "  not-llm-rubric: 1, a prose criterion",
            "  webhook: 1, a placeholder",
            "  made-up: 1, a placeholder (promptfoo rejects the type)",
        ]
    )
    unread = [t for t in types if t.startswith("Not read")]
    assert (
        len(unread) == 2
        and "promptfooconfig.json" in unread[0]
        and unread[1] == f"Not read: {listed}: not a mapping"
    )


def test_what_the_import_makes_of_each_type() -> None:
    assert [today(k) for k in ("not-icontains-all", "g-eval", "similar", "nope")] == [
        "a mechanical check",
        "a prose criterion",
        "a placeholder",
        "a placeholder (promptfoo rejects the type)",
    ]
