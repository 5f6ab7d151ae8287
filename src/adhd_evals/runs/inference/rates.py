"""k of n with its Wilson 95% interval, and a judge's TPR and TNR against a person's labels:
the rates `agree` measures, a certificate records, and criteria and triggers report.
"""

# No `from __future__ import annotations`: a NamedTuple's string annotations are compiled into
# ForwardRefs as it is made (a process's first compile is about 1.3 ms of start-up); names type
# checkers alone import are quoted where a function names them (docs/startup.md).
import math
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from ..rows import RateJson

Z95 = 1.959963984540054  # the normal quantile for a two-sided 95% interval


MIN_CLASS = 20  # fewer labels than this in a class: its interval is too wide to say much


class Rate(NamedTuple):
    """k of n, with its Wilson 95% interval (None for n = 0: nothing was measured). A NamedTuple,
    not a dataclass: dataclasses imports inspect, about 8 ms of agree's start-up of about 70."""

    k: int
    n: int

    @property
    def rate(self) -> float | None:
        return self.k / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson(self.k, self.n)

    def as_json(self) -> "RateJson":
        low, high = self.interval or (None, None)
        return {"k": self.k, "n": self.n, "rate": self.rate, "low": low, "high": high}


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson's score interval for k successes in n trials; None when n is 0."""
    if n == 0:
        return None
    p, zz = k / n, z * z
    centre = (p + zz / (2 * n)) / (1 + zz / n)
    half = z / (1 + zz / n) * math.sqrt(p * (1 - p) / n + zz / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def rates_of(pairs: list[tuple[bool, bool]]) -> dict[str, Rate]:
    """TPR and TNR of the judge (first) with the person (second) as truth."""
    positives = [judge for judge, person in pairs if person]
    negatives = [not judge for judge, person in pairs if not person]
    return {"tpr": Rate(sum(positives), len(positives)), "tnr": Rate(sum(negatives), len(negatives))}


CLASSES = {  # (figures, rate) -> the class the person labelled, as a warning names it
    ("criteria", "tpr"): "criterion verdicts the person passed",
    ("criteria", "tnr"): "criterion verdicts the person failed",
    ("blocker", "tpr"): "rows the person marked as a blocker",
    ("blocker", "tnr"): "rows the person marked as no blocker",
}


def class_warnings(rates: dict[str, dict[str, Rate]]) -> list[str]:
    warnings = []
    for (what, name), described in CLASSES.items():
        n = rates[what][name].n
        if n == 0:
            warnings.append(
                f"no {described} in the sample: the judge's {what} {name.upper()} is not measured"
            )
        elif n < MIN_CLASS:
            warnings.append(
                f"only {n} {described} (fewer than {MIN_CLASS}): the {what} {name.upper()} "
                "interval is wide; label more"
            )
    return warnings
