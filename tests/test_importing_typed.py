"""What typing importing's core (issue 36 item 4) made explicit: a value read as JSON is looked
at before it is used, and a value of another type takes the path that was always the safe one."""

from __future__ import annotations

import pytest

from adhd_evals.importing import dialect_schema
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
