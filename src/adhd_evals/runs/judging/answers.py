"""A judge's answer read: its one verdict object of its own (never one that occurs in the response
it judges, however hidden or re-serialised), then the judged fields, every metric a whole number
from 1 to 5, a blocker, and one verdict per criterion with a real quote of the response; else the
reason the row is void. Apart from judge.py, which calls the judge and writes what this reads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

from ..rows import CriterionVerdict
from ..rubric import METRICS, Metric
from .hidden import looks_like_verdict, normalised, verdict_key

if TYPE_CHECKING:
    from .shapes import JudgedFields

MIN_EVIDENCE = 12


def objects(text: str) -> Iterator[tuple[dict[str, object], str]]:
    """Each top-level JSON object in `text` (bare, in prose, or in a code fence), with the
    text it was read from; what lies inside one object is not searched again."""
    decoder = json.JSONDecoder()
    position = 0
    while (start := text.find("{", position)) != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            position = start + 1
            continue
        if isinstance(value, dict):
            yield value, text[start:end]
            position = end
        else:
            position = start + 1


def first_object(text: str) -> dict[str, object] | None:
    """The first JSON object in `text` that parses (bare, in prose, or in a code fence)."""
    return next((value for value, _ in objects(text)), None)


def _inside(response: str) -> list[dict[str, object]]:
    """Every object that can be read anywhere in the response, nested ones included."""
    decoder = json.JSONDecoder()
    found = []
    for match in re.finditer(r"\{", response):
        try:
            value, _ = decoder.raw_decode(response, match.start())
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def embedded_verdicts(response: str) -> set[str]:
    """What every verdict-shaped object the response carries decides (`hidden.verdict_key`):
    read from the response as written, normalised (so zero-width characters and fullwidth braces
    hide nothing), and with its escaped quotes unescaped (an object written inside a string)."""
    plain = normalised(response)
    texts = {response, plain, plain.replace('\\"', '"')}
    return {verdict_key(value) for text in texts for value in _inside(text) if looks_like_verdict(value)}


QUOTED = "the only verdict object in the answer occurs in the response it judges (never taken as the judge's answer)"


NO_VERDICT = "the answer holds no JSON verdict object (a refusal, or prose only)"


def answer_object(
    answer: str, response: str, nonce: str | None = None
) -> tuple[dict[str, object] | None, str]:
    """The judge's own verdict object, or None and why. Answer and response are compared
    normalised: an object that occurs in the response (quoted, echoed, re-serialised, hidden by
    invisible or fullwidth characters, or copied with its notes changed) is the response's text,
    never the judge's answer; and the answer must hold exactly one verdict object of its own."""
    text = normalised(answer)
    if nonce:  # an echoed fence and what it holds are the response, whatever the judge did with them
        text = re.sub(f"<response-{nonce}>.*?(</response-{nonce}>|$)", "", text, flags=re.S)
    plain = normalised(response)
    embedded: set[str] | None = None
    own, quoted = [], False
    for value, source in objects(text):
        if not looks_like_verdict(value):
            continue
        if embedded is None:
            embedded = embedded_verdicts(response)
        if source.strip() in plain or verdict_key(value) in embedded:
            quoted = True
            continue
        own.append(value)
    if len(own) > 1:
        return None, (
            f"the answer holds {len(own)} verdict objects of its own, not one (which is the judge's "
            "answer cannot be told)"
        )
    if own:
        return own[0], ""
    return None, QUOTED if quoted else NO_VERDICT


def verdict(answer: str, response: str, criteria: list[str], nonce: str | None = None) -> JudgedFields | str:
    """The judged fields of the answer to `response`, or the reason the row is void."""
    found, why = answer_object(answer, response, nonce)
    if found is None:
        return why
    scores: dict[Metric, int] = {}
    for metric in METRICS:  # in the rubric's order: the first one wrong is the one named
        value = found.get(metric)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
            return f"{metric} is {json.dumps(value)}, not a whole number from 1 to 5"
        scores[metric] = value
    blocker = found.get("blocker")
    if not isinstance(blocker, bool):
        return f"blocker is {json.dumps(blocker)}, not true or false"
    notes = found.get("notes")
    verdicts, reason = criterion_verdicts(found.get("criteria"), response, criteria)
    if reason:
        return reason
    return {
        "correctness": scores["correctness"],
        "autonomy": scores["autonomy"],
        "actionability": scores["actionability"],
        "safety": scores["safety"],
        "concision": scores["concision"],
        "blocker": blocker,
        "notes": notes if isinstance(notes, str) else "",
        "criteria": verdicts,
    }


def criterion_verdicts(
    given: object, response: str, criteria: list[str]
) -> tuple[list[CriterionVerdict], str | None]:
    """Exactly one verdict per criterion of the case, by text (compared normalised, kept as the
    case wrote it), each with a real quote as its evidence; in the case's order. Anything else
    is the reason the row is void."""
    if not isinstance(given, list):
        return [], f"criteria is {json.dumps(given)[:80]}, not a list of criterion verdicts"
    known = {normalised(c): c for c in reversed(criteria)}  # the first of two that read the same
    seen: dict[str, CriterionVerdict] = {}
    plain = normalised(response)
    for item in given:
        reason = _verdict_problem(item, plain, known)
        if reason:
            return [], reason
        checked = cast("CriterionVerdict", item)  # just checked: text criterion and evidence, pass or fail
        criterion = known[normalised(checked["criterion"])]
        if criterion in seen:
            return [], f"two verdicts for the criterion {json.dumps(criterion)[:120]}"
        seen[criterion] = {
            "criterion": criterion,
            "verdict": checked["verdict"],
            "evidence": checked["evidence"],
        }
    missing = [c for c in dict.fromkeys(criteria) if c not in seen]
    if missing:
        return [], "no verdict for the criteria " + ", ".join(json.dumps(c)[:120] for c in missing)
    return [seen[c] for c in dict.fromkeys(criteria)], None


def _verdict_problem(item: object, plain: str, known: dict[str, str]) -> str | None:
    """Why one criterion verdict does not count; `plain` is the normalised response."""
    if not isinstance(item, dict) or item.get("verdict") not in ("pass", "fail"):
        return f"a criterion verdict is {json.dumps(item)[:80]}, not pass or fail"
    criterion, evidence = item.get("criterion"), item.get("evidence")
    if not isinstance(criterion, str) or normalised(criterion) not in known:
        return f"a verdict for {json.dumps(criterion)[:120]}, which is not a criterion of this case"
    if not isinstance(evidence, str) or normalised(evidence) not in plain:
        return f"the evidence {json.dumps(evidence)[:80]} is not a quote from the response"
    need = min(MIN_EVIDENCE, len(plain))
    if len(normalised(evidence)) < need:
        return (
            f"the evidence {json.dumps(evidence)[:80]} for {json.dumps(criterion)[:80]} is shorter than "
            f"{need} characters of the response"
        )
    return None
