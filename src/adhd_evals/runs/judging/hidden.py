"""Hidden verdicts: a response can carry a verdict object the JSON scanner does not see
(zero-width characters inside it, fullwidth braces) which a judge then restates as plain JSON. So
the response and the answer are compared after the same normalisation (`normalised`), and
verdict-shaped objects by what they decide (`verdict_key`), never by their bytes. Reading a
judge's answer (answers.py) needs this alone of the judge's admission (admission.py).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping

from ..rubric import METRICS


def normalised(text: str) -> str:
    """`text` as compared: NFKC-folded, format characters (Cf: zero-width, bidi controls, soft
    hyphens) dropped before and after folding, and every run of whitespace one space."""
    visible = _drop_format(unicodedata.normalize("NFKC", _drop_format(text)))
    return " ".join(visible.split())


def _drop_format(text: str) -> str:
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def looks_like_verdict(value: Mapping[str, object]) -> bool:
    return any(key in value for key in (*METRICS, "blocker", "criteria"))


def verdict_key(value: Mapping[str, object]) -> str:
    """What a verdict object decides, as one comparable string: its metrics (a digit string read
    as its number), its blocker and its criterion verdicts (by normalised criterion text, in any
    order); notes, evidence and key order left out, since a copy may change them freely."""
    metrics = [_number(value.get(metric)) for metric in METRICS]
    given = value.get("criteria")
    said = (
        sorted(
            [normalised(str(item.get("criterion"))), normalised(str(item.get("verdict"))).lower()]
            for item in given
            if isinstance(item, dict)
        )
        if isinstance(given, list)
        else None
    )
    return json.dumps([metrics, value.get("blocker"), said], sort_keys=True, default=str)


def _number(value: object) -> object:
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return value
