"""What a survey found: the case lists, keys, prompt and id paths, and assertion-object shapes."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .formats._typed import shape_of

_TEXT_KEYS = ("text", "description", "criterion", "name", "title")


@dataclass
class Shape:
    """One assertion-object shape: its type/kind value and its key set."""

    selector: dict[str, object]  # {"type": "contains"}, or {} when it has neither
    keys: tuple[str, ...]
    count: int = 0
    example: str = ""
    today: str = ""
    found_in: Counter[str] = field(default_factory=Counter)

    @property
    def label(self) -> str:
        selector = shape_of(self.selector) if self.selector else "(no type or kind)"
        return f"{selector} with keys {{{', '.join(self.keys)}}}"


@dataclass
class Survey:
    format: str
    files: list[str] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    no_list: list[str] = field(default_factory=list)
    lists: Counter[str] = field(default_factory=Counter)  # where the case list is: files
    list_cases: Counter[str] = field(default_factory=Counter)
    cases: int = 0
    case_keys: Counter[str] = field(default_factory=Counter)
    lookalike_prompts: Counter[str] = field(default_factory=Counter)  # cases with no prompt
    without_id: int = 0
    imports: Counter[str] = field(default_factory=Counter)  # where the case list is: files that import today
    strings: int = 0
    shapes: dict[tuple[str, tuple[str, ...]], Shape] = field(default_factory=dict)
    prompts: Counter[str] = field(default_factory=Counter)  # prompt-like paths: cases holding each
    no_prompt: list[str] = field(default_factory=list)  # files with a case holding none
    ids: Counter[str] = field(default_factory=Counter)  # id-like paths (yaml): cases holding each
    prose: Counter[str] = field(default_factory=Counter)  # keys holding statements of success
    needles: Counter[str] = field(default_factory=Counter)  # keys holding lists of words to find


ONE_CASE = "(one case per file)"


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))
