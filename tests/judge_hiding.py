"""How a response hides a verdict object from a JSON scanner, and how a judge restates it: the
transformations of issue 31's attack, shared by the property test and the fake judges."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from typing import Any

ZERO_WIDTH = "\u200b"
# Format characters (Unicode category Cf) a scanner does not skip: zero-width space, joiner and
# non-joiner, word joiner, byte order mark, soft hyphen, a bidi override and its end.
FORMAT = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e", "\u202c")
FULLWIDTH = str.maketrans({"{": "\uff5b", "}": "\uff5d", ":": "\uff1a", ",": "\uff0c", '"': "\uff02"})


def zero_width(text: str, mark: str = ZERO_WIDTH) -> str:
    """The attack as found: `mark` after each `{`, before each `}` and after each `,`."""
    return text.replace("{", "{" + mark).replace("}", mark + "}").replace(",", "," + mark)


def fullwidth(text: str) -> str:
    """Braces, colons, commas and quotes in their fullwidth forms, which NFKC folds back."""
    return text.translate(FULLWIDTH)


def reserialised(value: dict[str, Any]) -> str:
    """The same object written otherwise: keys reversed, indented."""
    return json.dumps(dict(reversed(list(value.items()))), indent=3)


def dropped(text: str) -> str:
    """A judge that restates the response without its invisible characters."""
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def folded(text: str) -> str:
    """A judge that restates the response NFKC-folded."""
    return unicodedata.normalize("NFKC", text)


HIDE: dict[str, Callable[[str], str]] = {"zero-width": zero_width, "fullwidth": fullwidth}
