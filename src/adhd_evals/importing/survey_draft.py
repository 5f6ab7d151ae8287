"""The draft dialect a survey writes: one rule per object shape it found, the places its
criteria sit, each entry commented with what it covers (merged into an existing dialect)."""

from __future__ import annotations

import io
import json
from typing import Any

from ..text import plural, printable
from .dialect_words import VOCABULARY
from .formats._common import compact
from .formats._evals_json_cases import LIST_KEYS
from .survey_found import _TEXT_KEYS, ONE_CASE, Shape, Survey, _scalar


def draft(found: Survey, existing: str | None) -> tuple[str, int, int]:
    """The dialect file's text, how many entries this run added, and how many of those leave
    a choice open (import refuses the file until a person makes it)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    yaml = YAML(typ="rt")
    yaml.indent(mapping=2, sequence=4, offset=2)
    tree = yaml.load(existing) if existing is not None else None
    if tree is None:
        tree = _new_tree(found)
    rules = tree.get("assertions")
    if rules is None:
        rules = tree["assertions"] = CommentedSeq()
    covered = [_covers(entry) for entry in rules if isinstance(entry, dict)]
    added = opened = 0
    for shape in sorted(found.shapes.values(), key=lambda s: (-s.count, s.label)):
        ident = _ident(shape)
        if ident is None or ident in covered or shape.today.startswith("converted"):
            continue
        covered.append(ident)
        entry = _entry(shape, CommentedMap)
        rules.append(entry)
        opened += entry["check"] is None
        rules.yaml_set_comment_before_after_key(len(rules) - 1, before=_about(found, shape), indent=2)
        added += 1
    stream = io.StringIO()
    yaml.dump(tree, stream)
    return stream.getvalue(), added, opened


_PROSE_KEYS = frozenset({"text", "id"})  # {text} and {id, text} are prose: no rule to draft


def _ident(shape: Shape) -> str | None:
    """What a rule for this shape matches on: its type/kind, or (type-less) its keys."""
    if shape.selector:
        return json.dumps(shape.selector, sort_keys=True)
    if set(shape.keys) <= _PROSE_KEYS:
        return None
    return "has " + json.dumps(sorted(shape.keys))


def _covers(entry: Any) -> str:
    when = entry.get("when")
    if when is None and entry.get("has"):
        return "has " + json.dumps(sorted(str(k) for k in entry["has"]))
    return json.dumps(_plain(when), sort_keys=True)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value if _scalar(value) else str(value)


def _new_tree(found: Survey) -> Any:
    from ruamel.yaml.comments import CommentedMap

    tree = CommentedMap()
    tree["adhd-evals-dialect"] = 1
    tree["format"] = found.format
    tree.yaml_set_start_comment(
        f"Draft dialect written by 'adhd-evals survey' from {plural(len(found.files), 'file')}.\n"
        "Each typed assertion shape below is one rule. A shape named like a check of the vocabulary\n"
        f"({', '.join(VOCABULARY)})\n"
        "leaves its check and, for a check that compares text, whether letter case matters open\n"
        "(case: sensitive | insensitive): until each is chosen, 'import --dialect' refuses this\n"
        "file. Any other shape is drafted as unwritten (a placeholder, as import does without a\n"
        "dialect): choose a check there if one means what it does.\n"
        "Running survey again into this file keeps what you wrote and adds only new shapes."
    )
    cases = _draft_cases(found)
    if cases:
        tree["cases"] = cases
    return tree


def _draft_cases(found: Survey) -> Any:
    from ruamel.yaml.comments import CommentedMap

    cases = CommentedMap()
    outside = sorted(
        {
            key
            for shape in found.shapes.values()
            if shape.selector
            for key in shape.found_in
            if key not in (*LIST_KEYS, "judge_context")
        }
    )
    if outside:
        cases["criteria"] = outside
        cases.yaml_add_eol_comment(
            "case keys holding typed objects; keep those that are criteria", "criteria"
        )
    prose = [key for key, _ in found.prose.most_common() if key not in outside]
    if prose:
        cases["criteria"] = [*outside, *prose]
        cases.yaml_add_eol_comment(
            "case keys holding typed objects or stating success as prose; keep those that are criteria",
            "criteria",
        )
    if found.format != "evals-json":
        return _draft_yaml(found, cases)
    places = [where for where, _ in found.lists.most_common()]
    if places and places != ["evals"]:
        cases["at"] = places
        cases.yaml_add_eol_comment(
            "where the case list is, in the files surveyed; keep the ones you mean", "at"
        )
    if found.lookalike_prompts:
        cases["prompt"] = ["prompt", *(k for k, _ in found.lookalike_prompts.most_common())]
        cases.yaml_add_eol_comment("keys that held the prompt in cases without one; check each", "prompt")
    if found.without_id:
        cases["id"] = ["id", "#"]
        cases.yaml_add_eol_comment('"#" numbers cases with no id in file order', "id")
    _needle_comment(found, cases)
    return cases


def _draft_yaml(found: Survey, cases: Any) -> Any:
    """yaml: where the case lists are, the prompt and id keys when not `task` and `name`."""
    places = [where for where, _ in found.lists.most_common() if where != ONE_CASE]
    if places:
        cases["at"] = places
        note = "where the case list is"
        if found.lists[ONE_CASE]:  # some files are one case each: the list's files and these differ
            note += f"; {plural(found.lists[ONE_CASE], 'file')} of one case each would be refused"
        cases.yaml_add_eol_comment(note, "at")
    if found.cases - found.case_keys["task"] and found.prompts:
        own = ["task"] if found.case_keys["task"] else []
        cases["prompt"] = [*own, *(k for k, _ in found.prompts.most_common() if k != "task")]
        cases.yaml_add_eol_comment(
            "keys that held text in cases without task; the first a case has is used", "prompt"
        )
    if found.without_id:
        own = ["name"] if found.case_keys["name"] else []
        numbered = ["#"] if places else []
        cases["id"] = [*own, *(k for k, _ in found.ids.most_common() if k != "name"), *numbered]
        cases.yaml_add_eol_comment("keys that held an id in cases without name", "id")
    _needle_comment(found, cases)
    return cases


def _needle_comment(found: Survey, cases: Any) -> None:
    """Lists of words to find become checks only once a person says whether letter case
    matters: named in a comment above the draft's first case key (printable: the keys come
    from the files), not drafted as an entry, so the draft imports as it is."""
    if not found.needles or not cases:
        return
    keys = printable(", ".join(key for key, _ in found.needles.most_common()))
    cases.yaml_set_comment_before_after_key(
        next(iter(cases)),
        before=f"Lists of words to find: {keys}. To check them, add to criteria e.g.\n"
        "{at: KEY, check: contains, case: sensitive} (or insensitive: letter case is yours to decide).",
        indent=2,
    )


def _entry(shape: Shape, mapping: Any) -> Any:
    name = next(iter(shape.selector.values()), None)
    if name not in VOCABULARY or name == "unwritten":
        return _placeholder_entry(shape, mapping)
    entry = mapping()
    _selector(entry, shape, mapping)
    entry["check"] = None
    # a name in the vocabulary is one of ours: nothing from the file reaches a comment
    entry.yaml_add_eol_comment(f"perhaps {name}, if it means what the vocabulary's {name} does", "check")
    rest = [k for k in shape.keys if k not in shape.selector and k not in (*_TEXT_KEYS, "id")]
    entry["needle"] = rest[0] if len(rest) == 1 else None
    if len(rest) != 1:
        entry.yaml_add_eol_comment(
            "the key holding the argument: one of " + printable(", ".join(rest))
            if rest
            else "no key left: is_json or unwritten?",
            "needle",
        )
    entry["case"] = None
    entry.yaml_add_eol_comment("sensitive | insensitive (not needed for counts, is_json, unwritten)", "case")
    text_key = next((k for k in _TEXT_KEYS if k in shape.keys), None)
    if text_key is not None:
        entry["criterion"] = text_key
    return entry


def _placeholder_entry(shape: Shape, mapping: Any) -> Any:
    """A shape no vocabulary check is named by: a placeholder carrying the object (what import
    does without a dialect), its rubric text the first text key it has ({name, description}:
    the description). Choosing a check instead is the person's; nothing is left open."""
    entry = mapping()
    _selector(entry, shape, mapping)
    entry["check"] = "unwritten"
    entry.yaml_add_eol_comment("a placeholder carrying the object; or choose a check", "check")
    text_key = next((k for k in _TEXT_KEYS if k in shape.keys), None)
    if text_key is not None:
        entry["criterion"] = text_key
    return entry


def _selector(entry: Any, shape: Shape, mapping: Any) -> None:
    if shape.selector:
        when = mapping(shape.selector)
        when.fa.set_flow_style()
        entry["when"] = when
    else:  # no type key: the object is told by its keys (rules are tried in file order)
        from ruamel.yaml.comments import CommentedSeq

        has = CommentedSeq(shape.keys)
        has.fa.set_flow_style()
        entry["has"] = has


def _about(found: Survey, shape: Shape) -> str:
    """Two comment lines. Their text comes from the files (keys, values, file names), so each
    is made printable: a newline, U+2028 or a control in a key would end the comment early and
    leave a draft that does not read back as YAML."""
    example = compact({k: shape.selector.get(k, "...") for k in shape.keys})
    first = printable(f"{plural(shape.count, 'object')} like {example}, e.g. {shape.example}")
    return f"{first}\n{printable(f'today: {shape.today}')}"
