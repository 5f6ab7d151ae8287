"""A judge's certificate read back: its shape, its own floor (a bar no lower than MIN_BAR that its
counts reach, figures its counts give, a sample that bears them out, controls it failed), and
which fingerprint fields differ from a judge's. Writing one is agree.py's (`certificate`); a
certificate that fails here is refused (`Refused`, with its own exit code), never trusted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard, cast

from ... import exitcodes
from ...errors import InputInvalid
from ...files import read_limited
from ..rows import Certificate

if TYPE_CHECKING:
    from ..summaries import RateJson

CERTIFICATE = "adhd-evals judge certificate"


FINGERPRINT = ("runner", "command", "model", "template")


def shortfalls(rates: dict[str, dict[str, RateJson]], min_lower: float) -> list[str]:
    """Why the judge cannot be certified at `min_lower`; empty when it can. A blocker class with
    no labels does not block (it is warned about); the criterion verdicts of both classes must
    be measured, since they are what a certificate lets count."""
    from ..inference.rates import CLASSES, Rate  # a certificate's figures: a judge's record needs none

    reasons = []
    for (what, name), described in CLASSES.items():
        rate = Rate(rates[what][name]["k"], rates[what][name]["n"])
        if rate.n == 0:
            if what == "criteria":
                reasons.append(
                    f"no {described} in the sample: nothing says how often the judge gets them "
                    "right; label some"
                )
            continue
        low, high = rate.interval or (0.0, 0.0)
        if low < min_lower:
            reasons.append(
                f"{what} {name.upper()} {rate.k}/{rate.n} = {rate.k / rate.n:.3f}, 95% interval "
                f"[{low:.3f}, {high:.3f}] ({described}): the lower bound {low:.3f} is below "
                f"--min-lower {min_lower:g}"
            )
    return reasons


MIN_BAR = 0.5  # a lower bound under one half certifies a judge that may be no better than a coin


class Refused(InputInvalid):
    """A judge's output, labels or a certificate refused as what it claims to be: every reason,
    its own exit code (a leaky judge, a laundered or forged input), and nothing written."""

    def __init__(self, problems: list[str], exit_code: int) -> None:
        super().__init__(problems)
        self.exit_code = exit_code

    def lines(self) -> list[str]:
        return [*self.problems, "Nothing was written."]


def read_certificate(path: Path) -> Certificate:
    """A certificate `agree --certify` wrote; refused when it is not one (exit 4), when it is
    below the floor or its figures are not its counts (exit 42: see `floor_problems`), or when
    it records a control its judge passed (exit 40). A certificate is a record, not a signature:
    these checks catch a mistake and a careless forgery, not a careful one."""
    try:
        data = json.loads(read_limited(path))
    except OSError as exc:
        raise InputInvalid([f"{path}: cannot be read ({exc.strerror or exc})"]) from exc
    except (ValueError, RecursionError) as exc:
        raise InputInvalid([f"{path}: not a judge certificate (not JSON: {exc})"]) from exc
    shape = _certificate_problems(data)
    if shape:
        raise InputInvalid([f"{path}: {p}" for p in shape])
    floor = floor_problems(data)
    if floor:
        raise Refused(
            [
                f"{path}: a certificate below the floor, or whose figures are not its counts:",
                *(f"  - {p}" for p in floor),
            ],
            exitcodes.JUDGE_LAUNDERED,
        )
    if is_certificate(data):
        return data
    raise Refused(
        [
            f"{path}: its judge passed {data['controls']['passed']} of {data['controls']['rows']} controls "
            "it must fail (a leak): a leaky judge is never certified"
        ],
        exitcodes.JUDGE_LEAKY,
    )


def is_certificate(data: object) -> TypeGuard[Certificate]:
    """A certificate that lets its judge decide: its shape, the floor, and no control passed."""
    return (
        isinstance(data, dict)
        and not _certificate_problems(data)
        and not floor_problems(data)
        and not data["controls"]["passed"]
    )


def _certificate_problems(data: object) -> list[str]:
    """What makes a file not a certificate at all: its kind, fingerprint, bar, counts."""
    if not isinstance(data, dict) or data.get("certificate") != CERTIFICATE:
        return ["not a judge certificate (write one with 'adhd-evals agree ... --certify --out FILE')"]
    if not isinstance(data.get("fingerprint"), dict) or set(data["fingerprint"]) != set(FINGERPRINT):
        return ["its fingerprint must name runner, command, model and template"]
    bar = data.get("min_lower")
    if isinstance(bar, bool) or not isinstance(bar, (int, float)) or not 0 < bar <= 1:
        return ["min_lower must be a number above 0 and at most 1"]
    try:
        _rates(data["figures"])
    except (KeyError, TypeError, ValueError):
        return [
            "figures must hold whole counts k of n (0 <= k <= n) for the criteria and blocker TPR and TNR"
        ]
    return []


def _rates(figures: object) -> dict[str, dict[str, RateJson]]:
    """The counts of a certificate's figures (KeyError, TypeError or ValueError: not whole counts)."""
    return {
        what: {name: _counts(_at(_at(figures, what), name)) for name in ("tpr", "tnr")}
        for what in ("criteria", "blocker")
    }


def _at(value: object, key: str) -> object:
    """`value[key]`, where only a JSON object has keys (the errors indexing anything else raises)."""
    if not isinstance(value, dict):
        raise TypeError(f"{type(value).__name__} has no {key!r}")
    return value[key]


def floor_problems(data: Any) -> list[str]:
    """Why a certificate of the right shape cannot let its judge decide: a bar under MIN_BAR, counts
    that do not reach it, criteria TPR + TNR <= 1 (the correction is undefined), rates or bounds
    that are not what its counts give, counts its labelled sample cannot hold, no controls."""
    rates = _rates(data["figures"])
    bar = float(data["min_lower"])
    found = [f"its own counts do not reach its bar: {r}" for r in shortfalls(rates, bar)]
    if bar < MIN_BAR:
        found.insert(
            0, f"its bar min_lower {bar:g} is below {MIN_BAR:g}: a judge that may be no better than a coin"
        )
    tpr, tnr = rates["criteria"]["tpr"], rates["criteria"]["tnr"]
    if tpr["n"] and tnr["n"] and tpr["k"] / tpr["n"] + tnr["k"] / tnr["n"] <= 1:
        found.append(
            f"criteria TPR + TNR = {tpr['k']}/{tpr['n']} + {tnr['k']}/{tnr['n']} is at most 1: the judge is "
            "no better than a coin, and its correction is undefined"
        )
    found += _figures_problems(data["figures"], rates)
    found += _sample_problems(data.get("sample"), rates)
    controls = data.get("controls")
    if not _is_controls(controls):
        found.append(
            "it records no controls (rows, passed): a judge is admitted only after controls it must fail "
            "(judge with --controls, then certify again)"
        )
    return found


def _figures_problems(figures: object, rates: dict[str, dict[str, RateJson]]) -> list[str]:
    """A rate or a bound written beside its counts must be what the counts give."""
    from ..inference.rates import Rate  # as in shortfalls

    found = []
    for what, named in rates.items():
        for name, counts in named.items():
            given = cast(
                "dict[str, object]", _at(_at(figures, what), name)
            )  # _rates read its counts: an object
            worked = Rate(counts["k"], counts["n"]).as_json()
            for field in ("rate", "low", "high"):
                said, real = given.get(field), worked.get(field)
                if field in given and not _same(said, real):
                    found.append(
                        f"{what} {name.upper()} says {field} {said!r} where {counts['k']} of {counts['n']} "
                        f"gives {real!r}"
                    )
    return found


def _same(said: object, real: object) -> bool:
    """A written figure is its worked value (to float rounding); None only where nothing was measured."""
    if isinstance(said, bool) or not isinstance(said, (int, float)) or not isinstance(real, float):
        return said is None and real is None
    return abs(said - real) <= 1e-9


def _sample_problems(sample: object, rates: dict[str, dict[str, RateJson]]) -> list[str]:
    """The labelled sample must be named, and hold at least what was counted on it."""
    fields = ("sha256", "rows", "criterion_labels")
    if (
        not isinstance(sample, dict)
        or not isinstance(sample.get("sha256"), str)
        or len(sample["sha256"]) != 64
        or any(isinstance(sample.get(f), bool) or not isinstance(sample.get(f), int) for f in fields[1:])
    ):
        return [
            "it names no labelled sample (sha256, rows, criterion_labels): nothing says what it was measured on"
        ]
    found = []
    criteria = rates["criteria"]["tpr"]["n"] + rates["criteria"]["tnr"]["n"]
    blockers = rates["blocker"]["tpr"]["n"] + rates["blocker"]["tnr"]["n"]
    if criteria > sample["criterion_labels"]:
        found.append(
            f"it counts {criteria} criterion verdicts on a sample of {sample['criterion_labels']} criterion labels"
        )
    if blockers > sample["rows"]:
        found.append(f"it counts {blockers} blockers on a sample of {sample['rows']} rows")
    return found


def _is_controls(controls: object) -> bool:
    return (
        isinstance(controls, dict)
        and all(
            not isinstance(controls.get(f), bool) and isinstance(controls.get(f), int)
            for f in ("rows", "passed")
        )
        and 0 <= controls["passed"] <= controls["rows"]
        and controls["rows"] > 0
    )


def _counts(figure: object) -> RateJson:
    k, n = _at(figure, "k"), _at(figure, "n")
    if type(k) is not int or type(n) is not int or not 0 <= k <= n:  # whole counts (JSON's true is no count)
        raise ValueError(f"{k!r} of {n!r}")
    return {"k": k, "n": n}


def mismatches(certified: Mapping[str, object], fingerprint: object) -> list[str]:
    """How a judge differs from the certified one, field by field; empty when it is the same judge."""
    if not isinstance(fingerprint, dict):
        return ["the row records no judge fingerprint"]
    return [
        f"{name} {json.dumps(fingerprint.get(name))} where the certificate has "
        f"{json.dumps(certified.get(name))}"
        for name in FINGERPRINT
        if fingerprint.get(name) != certified.get(name)
    ]
