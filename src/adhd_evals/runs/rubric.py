"""The comparison's fixed vocabulary, as i-have-adhd's run_evals.py has it:
conditions, the five metrics and their weights."""

from __future__ import annotations

from typing import Literal, get_args

from ..schema import CONDITIONS as CONDITIONS  # defined once, in the core

# in the reference's order
Metric = Literal["correctness", "autonomy", "actionability", "safety", "concision"]
METRICS: tuple[Metric, ...] = get_args(Metric)
WEIGHTS: dict[Metric, float] = {
    "correctness": 0.35,
    "autonomy": 0.25,
    "actionability": 0.20,
    "safety": 0.10,
    "concision": 0.10,
}
