"""`adhd-evals agree JUDGED HUMAN`: how far a judge agrees with a person, and whether to trust it.

On the rows both scored (same case, trial and label; void rows left out):
exact agreement, mean absolute difference and quadratic-weighted Cohen's
kappa per metric (ratings 1-5), blocker agreement, and criterion verdict
agreement where both gave verdicts.

Kappa does not say whether a judge misses failures, so with the person as
truth agree also gives the judge's true-positive rate (TPR: of the criteria
the person passed, the share the judge passed) and true-negative rate (TNR:
of those the person failed, the share the judge failed), each with a Wilson
95% interval, for criterion verdicts and for blockers (there a blocker is
the positive class). `--certify --min-lower 0.8` writes a certificate when
both criterion lower bounds reach the bar (and the blocker bounds, where the
sample holds blockers of each kind): the judge's fingerprint, the figures,
the labelled sample's hash and size, how the judge did on its controls, the
date. A certificate holds only for the same fingerprint: another command, model
or prompt template voids it. Reading one checks a floor (`floor_problems`): a
certificate is a record, not a signature, so the checks catch mistakes and
careless forgeries, never a careful one.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from .. import exitcodes
from ..catalog import read_object_rows
from ..errors import InputInvalid
from .controls import ControlsSummary
from .rows import LABELLED_FIELDS, Certificate, JudgeFingerprint, RateJson, SampleDigest, field_problems
from .rubric import METRICS

CATEGORIES = (1, 2, 3, 4, 5)


def weighted_kappa(first: Sequence[int], second: Sequence[int]) -> float | None:
    """Quadratic-weighted Cohen's kappa over ratings 1-5; None when it is undefined
    (no rows, or both raters constant so no disagreement is possible by chance)."""
    n = len(first)
    if n == 0:
        return None
    k = len(CATEGORIES)
    observed = [[0.0] * k for _ in range(k)]
    for a, b in zip(first, second, strict=True):
        observed[a - 1][b - 1] += 1
    rows = [sum(observed[i]) for i in range(k)]
    cols = [sum(observed[i][j] for i in range(k)) for j in range(k)]
    weight = [[(i - j) ** 2 / (k - 1) ** 2 for j in range(k)] for i in range(k)]
    seen = sum(weight[i][j] * observed[i][j] for i in range(k) for j in range(k)) / n
    chance = sum(weight[i][j] * rows[i] * cols[j] for i in range(k) for j in range(k)) / (n * n)
    if chance == 0:
        return None
    return 1 - seen / chance


def read_scored(path: Path) -> list[dict[str, Any]]:
    """A filled sheet (JSONL, or the Markdown `blind --markdown` wrote, filled in); rows whose
    case, trial, label or criterion verdicts are not what a sheet holds are named."""
    if path.suffix.lower() in (".md", ".markdown"):
        from .blind import read_markdown

        return read_markdown(path)
    return read_object_rows(
        path, lambda row: field_problems(row, LABELLED_FIELDS) + verdict_problems(row), what="sheet"
    )


VERDICTS = ("pass", "fail")


def verdict_problems(row: dict[str, Any]) -> list[str]:
    """A sheet's `criteria` holds the case's criteria as text (as `blind` writes them) or,
    once judged, criterion verdicts: each object must be {criterion, verdict: pass|fail}."""
    given = row.get("criteria", [])
    if not isinstance(given, list):
        return ["criteria must be a list (criteria as text, or criterion verdicts)"]
    return [
        f"criteria[{index}] must be a criterion verdict: an object with a criterion (text) and a "
        "verdict (pass or fail)"
        for index, item in enumerate(given)
        if not isinstance(item, str) and not _is_verdict(item)
    ]


def _is_verdict(item: Any) -> bool:
    return (
        isinstance(item, dict) and isinstance(item.get("criterion"), str) and item.get("verdict") in VERDICTS
    )


def _key(row: dict[str, Any]) -> tuple[Any, Any, Any]:
    return (row.get("case_id"), row.get("trial"), row.get("condition"))


def _scored(row: dict[str, Any]) -> bool:
    return "void" not in row and all(
        isinstance(row.get(m), int) and not isinstance(row.get(m), bool) and 1 <= row[m] <= 5 for m in METRICS
    )


def agreement(judged: list[dict[str, Any]], human: list[dict[str, Any]]) -> dict[str, Any]:
    people = {_key(r): r for r in human}
    both = [(r, people[_key(r)]) for r in judged if "void" not in r and _key(r) in people]
    pairs = [(j, h) for j, h in both if _scored(j) and _scored(h)]
    verdicts = verdict_pairs(both)
    blockers = [
        (j["blocker"], h["blocker"])
        for j, h in both
        if isinstance(j.get("blocker"), bool) and isinstance(h.get("blocker"), bool)
    ]
    if not pairs and not verdicts and not blockers:
        raise InputInvalid(
            ["no row was scored by both the judge and the person (same case, trial and label)"]
        )
    metrics = {}
    for metric in METRICS if pairs else ():
        a, b = [j[metric] for j, _ in pairs], [h[metric] for _, h in pairs]
        metrics[metric] = {
            "exact": sum(x == y for x, y in zip(a, b, strict=True)) / len(pairs),
            "mean_abs_diff": sum(abs(x - y) for x, y in zip(a, b, strict=True)) / len(pairs),
            "kappa": weighted_kappa(a, b),
        }
    rates = {
        "criteria": rates_of([(j == "pass", h == "pass") for j, h in verdicts]),
        "blocker": rates_of(blockers),
    }
    return {
        "rows": len(pairs),
        "metrics": metrics,
        "blocker_agreement": (sum(x == y for x, y in blockers) / len(blockers)) if blockers else None,
        "criteria": {
            "pairs": len(verdicts),
            "agreement": (sum(x == y for x, y in verdicts) / len(verdicts)) if verdicts else None,
        },
        "rates": {
            what: {name: rate.as_json() for name, rate in found.items()} for what, found in rates.items()
        },
        "labelled_rows": len(both),
        "void": sum(1 for r in judged if "void" in r and _key(r) in people),
        "warnings": class_warnings(rates),
        "sample": sample_digest(both),
    }


def verdict_pairs(both: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[tuple[str, str]]:
    """(judge's verdict, person's verdict) for each criterion both gave one for, by text
    (read_scored checked every object's shape; text items are criteria, not verdicts)."""
    found = []
    for judge_row, person_row in both:
        said = {v["criterion"]: v["verdict"] for v in person_row.get("criteria") or [] if isinstance(v, dict)}
        found += [
            (v["verdict"], said[v["criterion"]])
            for v in judge_row.get("criteria") or []
            if isinstance(v, dict) and v["criterion"] in said
        ]
    return found


Z95 = 1.959963984540054  # the normal quantile for a two-sided 95% interval
MIN_CLASS = 20  # fewer labels than this in a class: its interval is too wide to say much


@dataclass(frozen=True)
class Rate:
    """k of n, with its Wilson 95% interval (None for n = 0: nothing was measured)."""

    k: int
    n: int

    @property
    def rate(self) -> float | None:
        return self.k / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson(self.k, self.n)

    def as_json(self) -> RateJson:
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


def sample_digest(both: list[tuple[dict[str, Any], dict[str, Any]]]) -> SampleDigest:
    """The labelled sample the figures rest on: the person's labels (not the file's bytes, so
    the same labels in JSONL or Markdown hash the same), and its size."""
    labels = sorted(
        [
            str(h["case_id"]),
            h["trial"],
            str(h["condition"]),
            h.get("blocker"),
            sorted((v["criterion"], v["verdict"]) for v in h.get("criteria") or [] if isinstance(v, dict)),
        ]
        for _, h in both
    )
    digest = hashlib.sha256(json.dumps(labels, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    return {
        "sha256": digest.hexdigest(),
        "rows": len(labels),
        "criterion_labels": sum(len(row[4]) for row in labels),
    }


CERTIFICATE = "adhd-evals judge certificate"
FINGERPRINT = ("runner", "command", "model", "template")


class NotCertified(InputInvalid):
    """The judge does not reach the bar on this sample: every reason, and nothing written."""

    exit_code = exitcodes.FAILED


def judge_fingerprint(judged: list[dict[str, Any]]) -> JudgeFingerprint:
    """The one judge that filled the sheet; rows from several judges, or from a judge that
    recorded no fingerprint, cannot be certified as one."""
    found = {json.dumps(r.get("judge"), sort_keys=True) for r in judged}
    prints = [json.loads(f) for f in sorted(found)]
    if len(prints) > 1:
        raise InputInvalid(
            [
                "the judged rows come from more than one judge (fingerprints: "
                + "; ".join(map(_shown, prints))
                + "): certify each on its own rows"
            ]
        )
    if not prints or not isinstance(prints[0], dict) or set(prints[0]) != set(FINGERPRINT):
        raise InputInvalid(
            [
                "the judged rows carry no judge fingerprint (runner, command, model, template): "
                "judge them again with this version of adhd-evals"
            ]
        )
    judge = prints[0]
    return {
        "runner": judge["runner"],
        "command": judge["command"],
        "model": judge["model"],
        "template": judge["template"],
    }


def _shown(fingerprint: Any) -> str:
    if not isinstance(fingerprint, dict):
        return "none"
    return ", ".join(f"{name} {json.dumps(fingerprint.get(name))}" for name in FINGERPRINT)


def shortfalls(found: dict[str, Any], min_lower: float) -> list[str]:
    """Why the judge cannot be certified at `min_lower`; empty when it can. A blocker class with
    no labels does not block (it is warned about); the criterion verdicts of both classes must
    be measured, since they are what a certificate lets count."""
    reasons = []
    for (what, name), described in CLASSES.items():
        rate = Rate(found["rates"][what][name]["k"], found["rates"][what][name]["n"])
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


def certificate(
    found: dict[str, Any],
    judged: list[dict[str, Any]],
    min_lower: float,
    date: str,
    controls: ControlsSummary | None = None,
) -> Certificate:
    """The certificate, or NotCertified with every reason: the bar is at least MIN_BAR, the judge
    reaches it, and it failed the controls it was given (`controls`: controls.controls_summary
    of its judged file; a judge given none is not certified)."""
    if not MIN_BAR <= min_lower <= 1:
        from ..errors import UsageError

        raise UsageError(f"--min-lower must be a number from {MIN_BAR:g} to 1, not {min_lower:g}")
    fingerprint = judge_fingerprint(judged)
    reasons = shortfalls(found, min_lower)
    if controls is None:
        reasons.append(
            "the judged file holds no control rows: a judge is admitted only after controls it must "
            "fail (judge the sheet again with --controls)"
        )
    if reasons or controls is None:
        raise NotCertified(
            [
                "adhd-evals: the judge is not certified:",
                *(f"  - {r}" for r in reasons),
                "Nothing was written.",
            ]
        )
    return {
        "certificate": CERTIFICATE,
        "version": 2,
        "fingerprint": fingerprint,
        "min_lower": min_lower,
        "figures": found["rates"],
        "sample": found["sample"],
        "void": found["void"],
        "controls": controls,
        "date": date,
    }


def read_certificate(path: Path) -> Certificate:
    """A certificate `agree --certify` wrote; refused when it is not one (exit 4), when it is
    below the floor or its figures are not its counts (exit 42: see `floor_problems`), or when
    it records a control its judge passed (exit 40). A certificate is a record, not a signature:
    these checks catch a mistake and a careless forgery, not a careful one."""
    from ..files import read_limited

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


def is_certificate(data: Any) -> TypeGuard[Certificate]:
    """A certificate that lets its judge decide: its shape, the floor, and no control passed."""
    return not _certificate_problems(data) and not floor_problems(data) and not data["controls"]["passed"]


def _certificate_problems(data: Any) -> list[str]:
    """What makes a file not a certificate at all: its kind, fingerprint, bar, counts."""
    if not isinstance(data, dict) or data.get("certificate") != CERTIFICATE:
        return ["not a judge certificate (write one with 'adhd-evals agree ... --certify --out FILE')"]
    if not isinstance(data.get("fingerprint"), dict) or set(data["fingerprint"]) != set(FINGERPRINT):
        return ["its fingerprint must name runner, command, model and template"]
    bar = data.get("min_lower")
    if isinstance(bar, bool) or not isinstance(bar, (int, float)) or not 0 < bar <= 1:
        return ["min_lower must be a number above 0 and at most 1"]
    try:
        _rates(data)
    except (KeyError, TypeError, ValueError):
        return [
            "figures must hold whole counts k of n (0 <= k <= n) for the criteria and blocker TPR and TNR"
        ]
    return []


def _rates(data: dict[str, Any]) -> dict[str, dict[str, dict[str, int]]]:
    return {
        what: {name: _counts(data["figures"][what][name]) for name in ("tpr", "tnr")}
        for what in ("criteria", "blocker")
    }


def floor_problems(data: Any) -> list[str]:
    """Why a certificate of the right shape cannot let its judge decide: a bar under MIN_BAR, counts
    that do not reach it, criteria TPR + TNR <= 1 (the correction is undefined), rates or bounds
    that are not what its counts give, counts its labelled sample cannot hold, no controls."""
    rates = _rates(data)
    bar = float(data["min_lower"])
    found = [f"its own counts do not reach its bar: {r}" for r in shortfalls({"rates": rates}, bar)]
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


def _figures_problems(figures: dict[str, Any], rates: dict[str, dict[str, dict[str, int]]]) -> list[str]:
    """A rate or a bound written beside its counts must be what the counts give."""
    found = []
    for what, named in rates.items():
        for name, counts in named.items():
            given, worked = figures[what][name], Rate(counts["k"], counts["n"]).as_json()
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


def _sample_problems(sample: Any, rates: dict[str, dict[str, dict[str, int]]]) -> list[str]:
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


def _is_controls(controls: Any) -> bool:
    return (
        isinstance(controls, dict)
        and all(
            not isinstance(controls.get(f), bool) and isinstance(controls.get(f), int)
            for f in ("rows", "passed")
        )
        and 0 <= controls["passed"] <= controls["rows"]
        and controls["rows"] > 0
    )


def _counts(figure: Any) -> dict[str, int]:
    k, n = figure["k"], figure["n"]
    if any(isinstance(v, bool) or not isinstance(v, int) for v in (k, n)) or not 0 <= k <= n:
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


def rates_table(found: dict[str, Any]) -> list[str]:
    from ..text import table as text_table

    rows = [["judge vs person", "rate", "95% interval", "counts"]]
    for (what, name), described in CLASSES.items():
        figure = found["rates"][what][name]
        shown = (
            ("-", "-")
            if not figure["n"]
            else (f"{figure['rate']:.3f}", f"[{figure['low']:.3f}, {figure['high']:.3f}]")
        )
        rows.append([f"{what} {name.upper()}", *shown, f"{figure['k']} of {figure['n']} {described}"])
    return ["With the person as truth:", *text_table(rows)]


def table(found: dict[str, Any]) -> list[str]:
    from ..text import table as text_table

    rows = [["metric", "exact", "mean |diff|", "kappa"]]
    for metric, m in found["metrics"].items():
        kappa = "-" if m["kappa"] is None else f"{m['kappa']:.3f}"
        rows.append([metric, f"{m['exact']:.0%}", f"{m['mean_abs_diff']:.2f}", kappa])
    lines = [f"Agreement on {found['rows']} rows scored by both:", *text_table(rows)] if found["rows"] else []
    if found["blocker_agreement"] is not None:
        lines.append(f"blocker agreement: {found['blocker_agreement']:.0%}")
    criteria = found["criteria"]
    if criteria["agreement"] is not None:
        lines.append(f"criterion verdicts: {criteria['agreement']:.0%} of {criteria['pairs']}")
    lines += rates_table(found)
    if found["void"]:
        lines.append(f"{found['void']} labelled rows the judge left void are left out.")
    return lines
