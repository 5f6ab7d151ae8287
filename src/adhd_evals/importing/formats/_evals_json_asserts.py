"""evals-json's assertions: prose, the documented `content_contains_*` kinds, and a case's statement of success."""

from __future__ import annotations

from ..model import Check, CheckKind, describe
from ._common import (
    SUCCESS_VIA,
    actual_of,
    compact,
    has_lone_surrogate,
    placeholder,
    require_text,
    text_problem,
)
from ._typed import Reading

KINDS = {
    "content_contains_any": CheckKind.CONTAINS_ANY,
    "content_contains_all": CheckKind.CONTAINS_ALL,
    "content_contains_none": CheckKind.CONTAINS_NONE,
}


_KIND_PHRASES = {
    CheckKind.CONTAINS_ANY: "Mentions at least one of",
    CheckKind.CONTAINS_ALL: "Mentions all of",
    CheckKind.CONTAINS_NONE: "Mentions none of",
}


SUCCESS_KEY = SUCCESS_VIA  # the key, and the `via` its criteria carry


def success_checks(value: object) -> list[Check]:
    """A case's statement of success as prose criteria (read only when the case states no
    other criteria): a text is one criterion, a list of texts one each, any other non-empty
    value one criterion holding it verbatim. Nothing (null, blank, empty) gives none."""
    if isinstance(value, str):
        return [] if text_problem(value) else [placeholder(value)._replace(via=SUCCESS_KEY)]
    if value is None or value == [] or value == {}:
        return []
    if isinstance(value, list) and all(text_problem(item) is None for item in value):
        return [placeholder(item)._replace(via=SUCCESS_KEY) for item in value]
    verbatim = compact(value)
    if has_lone_surrogate(verbatim):  # no catalog can hold it: it stays a note, as it was
        return []
    return [placeholder(verbatim, verbatim)._replace(via=SUCCESS_KEY)]


def documented_kind(item: dict[str, object]) -> CheckKind | None:
    """The check a documented `content_contains_*` kind names (a list or object kind names none)."""
    kind = item.get("kind")
    return KINDS.get(kind) if isinstance(kind, str) else None


def _assertion(reading: Reading, item: object, path: str, at: tuple[str | int, ...]) -> Check:
    if isinstance(item, str):
        problem = text_problem(item)
        if problem:
            raise reading.refusal(path, at, problem, describe(item))
        return placeholder(item)
    if not isinstance(item, dict):
        raise reading.refusal(path, at, "a string or an object", describe(item))
    kind = documented_kind(item)
    if kind is not None:
        return _documented(reading, item, kind, path, at)
    verbatim = compact(item)
    if "text" in item:
        text = _text(reading, item, path, at)
        # Prose; the whole object travels when it says more than its text.
        return placeholder(text, text if set(item) == {"text"} else verbatim)
    if not item:
        raise reading.refusal(path, at, "a non-empty object", "an empty object")
    return placeholder(verbatim, verbatim)


def _text(reading: Reading, item: dict[str, object], path: str, at: tuple[str | int, ...]) -> str:
    """An assertion object's `text`, strictly."""
    return require_text(
        reading.refuse, item, "text", case=reading.label, at=(*at, "text"), field_path=f"{path}.text"
    )


def _documented(
    reading: Reading, item: dict[str, object], kind: CheckKind, path: str, at: tuple[str | int, ...]
) -> Check:
    needles = item.get("needles")
    if not isinstance(needles, list) or not needles or any(text_problem(n) for n in needles):
        expected = "a non-empty list of non-empty strings"
        raise reading.refusal(f"{path}.needles", (*at, "needles"), expected, actual_of(item, "needles"))
    if "text" in item:
        criterion = _text(reading, item, path, at)
    else:
        criterion = f"{_KIND_PHRASES[kind]}: " + ", ".join(compact(n) for n in needles)
    return Check(criterion, kind, (tuple(needles),))
