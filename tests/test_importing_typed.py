"""What typing importing's core (issue 36 item 4) made explicit: a value read as JSON is looked
at before it is used, and a value of another type takes the path that was always the safe one."""

from __future__ import annotations

from pathlib import Path

import pytest

from adhd_evals.importing import dialect_schema, importer
from adhd_evals.importing.export import Mechanical, assertion_for

# Each keyword `_fits` reads, once with the argument it reads and once with an argument of
# another type. Worked by hand from draft 2020-12: the value "ab" (or {"a": "ab"}) satisfies
# every well-typed schema here (type string, $ref to {type: string}, enum and const holding
# "ab", minLength 1, required a, ...); the ill-typed twin cannot be read, so `_fits` must say
# "not sure" (False) and leave the verdict to jsonschema, which refuses such a schema anyway.
ROOT: dict[str, object] = {"$defs": {"text": {"type": "string"}}}
KEYWORDS = [
    ("type", "string", 3, "ab"),
    ("enum", ["ab"], "ab", "ab"),
    ("anyOf", [{"type": "string"}], {"type": "string"}, "ab"),
    ("oneOf", [{"type": "string"}], "string", "ab"),
    ("minLength", 1, "1", "ab"),
    ("minItems", 1, None, ["ab"]),
    ("minProperties", 1, 1.5, {"a": "ab"}),
    ("required", ["a"], "a", {"a": "ab"}),
    ("properties", {"a": {"type": "string"}}, [{"type": "string"}], {"a": "ab"}),
]


@pytest.mark.parametrize(("keyword", "good", "bad", "value"), KEYWORDS)
def test_fits_reads_a_keyword_only_with_the_argument_type_it_knows(
    keyword: str, good: object, bad: object, value: object
) -> None:
    assert dialect_schema._fits(value, {keyword: good}, ROOT) is True
    assert dialect_schema._fits(value, {keyword: bad}, ROOT) is False


def test_fits_follows_a_ref_only_into_a_defs_object() -> None:
    """`#/$defs/text` names {type: string} in ROOT ("ab" fits); a root whose $defs is a list
    has no such name to follow."""
    schema = {"$ref": "#/$defs/text"}
    assert dialect_schema._fits("ab", schema, ROOT) is True
    assert dialect_schema._fits("ab", schema, {"$defs": [{"type": "string"}]}) is False


def test_fits_reads_additional_properties_only_beside_a_properties_object() -> None:
    """{"a": "ab"} with `a` declared and nothing else present fits; when `properties` is not
    an object the declared keys cannot be told, so the answer is "not sure"."""
    value = {"a": "ab"}
    declared: dict[str, object] = {"additionalProperties": False, "properties": {"a": {"type": "string"}}}
    assert dialect_schema._fits(value, declared, ROOT) is True
    # additionalProperties read first: `properties` alone would answer "not sure" on its own
    undeclared: dict[str, object] = {"additionalProperties": False, "properties": ["a"]}
    assert dialect_schema._fits(value, undeclared, ROOT) is False


def test_an_is_json_schema_that_is_not_json_text_exports_as_its_rubric() -> None:
    """The vocabulary writes `schema=` as JSON text ('{"type": "object"}' maps to is-json with
    that object); a person's module passing a dict is not the vocabulary's call, so the
    criterion goes as llm-rubric with its text, as every unmapped check does."""
    text = Mechanical("is_json", (), {"schema": '{"type": "object"}'})
    assert assertion_for("c", text) == {
        "type": "is-json",
        "value": {"type": "object"},
        "config": {"criterion": "c"},
    }
    hand = Mechanical("is_json", (), {"schema": {"type": "object"}})
    assert assertion_for("c", hand) == {"type": "llm-rubric", "value": "c", "config": {"criterion": "c"}}


def test_an_is_json_schema_text_that_is_not_json_exports_as_its_rubric() -> None:
    """'{bad' is no JSON (a hand-edited module): not the vocabulary's call, so llm-rubric with the
    criterion's text, as a dict schema goes (it ended in a traceback, exit 70); 'null' is JSON but
    no JSON Schema (an object or a boolean), so it goes as text too, and 'true' is one; not_is_json
    with a schema is never mapped."""
    rubric = {"type": "llm-rubric", "value": "c", "config": {"criterion": "c"}}
    assert assertion_for("c", Mechanical("is_json", (), {"schema": "{bad"})) == rubric
    assert assertion_for("c", Mechanical("is_json", (), {"schema": "null"})) == rubric
    true = Mechanical("is_json", (), {"schema": "true"})
    assert assertion_for("c", true) == {"type": "is-json", "value": True, "config": {"criterion": "c"}}
    negated = Mechanical("not_is_json", (), {"schema": '{"type": "object"}'})
    assert assertion_for("c", negated)["type"] == "llm-rubric"


def test_a_replaced_catalog_is_read_for_its_text_ids_and_text_prompts(tmp_path: Path) -> None:
    """By hand, line by line: `a` has a text id and prompt (both kept); `b` a text id and a
    number for a prompt (its id kept, no prompt); an id that is a number, a line that is a
    list and a line that is not JSON are passed over, as a lenient read of a file about to be
    replaced does."""
    catalog = tmp_path / "cases.jsonl"
    lines = [
        '{"id": "a", "prompt": "Say hi"}',
        '{"id": "b", "prompt": 3}',
        '{"id": 7, "prompt": "x"}',
        '["id", "c"]',
        "not json",
    ]
    catalog.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = importer._catalog_rows(catalog)
    assert [row.id for row in rows] == ["a", "b"]
    assert importer._catalog_prompts(rows) == {"a": "Say hi"}
