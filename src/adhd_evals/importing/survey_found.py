"""What a survey found: the case lists, keys, prompt and id paths, and assertion-object shapes."""

from __future__ import annotations

from collections import Counter
from typing import Any

from .formats._typed import shape_of

_TEXT_KEYS = ("text", "description", "criterion", "name", "title")


class Shape:
    """One assertion-object shape: its type/kind value and its key set."""

    # Plain classes here, not dataclasses: dataclasses (and the inspect module it imports, about
    # 7 ms) are off survey's start-up (docs/startup.md)
    __slots__ = ("count", "example", "found_in", "keys", "selector", "today")

    def __init__(
        self, selector: dict[str, object], keys: tuple[str, ...], *, example: str, today: str
    ) -> None:
        self.selector = selector  # {"type": "contains"}, or {} when it has neither
        self.keys = keys
        self.count = 0
        self.example = example
        self.today = today
        self.found_in: Counter[str] = Counter()

    @property
    def label(self) -> str:
        selector = shape_of(self.selector) if self.selector else "(no type or kind)"
        return f"{selector} with keys {{{', '.join(self.keys)}}}"


class Survey:
    """Everything a survey counted over its files (see Shape for why not a dataclass)."""

    def __init__(self, format: str) -> None:
        self.format = format
        self.files: list[str] = []
        self.unreadable: list[tuple[str, str]] = []
        self.no_list: list[str] = []
        self.lists: Counter[str] = Counter()  # where the case list is: files
        self.list_cases: Counter[str] = Counter()
        self.cases = 0
        self.case_keys: Counter[str] = Counter()
        self.lookalike_prompts: Counter[str] = Counter()  # cases with no prompt
        self.without_id = 0
        self.imports: Counter[str] = Counter()  # where the case list is: files that import today
        self.strings = 0
        self.shapes: dict[tuple[str, tuple[str, ...]], Shape] = {}
        self.prompts: Counter[str] = Counter()  # prompt-like paths: cases holding each
        self.no_prompt: list[str] = []  # files with a case holding none
        self.ids: Counter[str] = Counter()  # id-like paths (yaml): cases holding each
        self.prose: Counter[str] = Counter()  # keys holding statements of success
        self.needles: Counter[str] = Counter()  # keys holding lists of words to find


ONE_CASE = "(one case per file)"


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))
