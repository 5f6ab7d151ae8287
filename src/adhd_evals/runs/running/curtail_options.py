"""What `run --stop-when-decided` was given, checked before anything runs. Apart from
curtail.py on purpose: every `run` checks these options, and curtail.py brings the audit's
and the checks' modules (about 80 ms of start-up, `python -X importtime`) that only a
curtailed run uses."""

# No `from __future__ import annotations`: a NamedTuple's (and a TypedDict's) string annotations are
# compiled one by one into ForwardRefs on every run's start-up (docs/startup.md); the few names
# only type checkers import stay quoted.
from pathlib import Path
from typing import NamedTuple

from ...errors import UsageError


class Curtail(NamedTuple):
    """What `run --stop-when-decided` was given: the baseline's responses, the check module, and
    the seed of the order the cases run in. A NamedTuple, not a dataclass: dataclasses imports inspect, about 8 ms of run's and judge's start-up."""

    baseline: Path
    suite: Path
    seed: int = 0
    anytime: bool = False  # --anytime: the e-process decides instead, stopping once it reaches 1/α


def requested(
    *,
    stop_when_decided: bool,
    baseline: Path | None,
    suite: Path | None,
    seed: int | None,
    condition: str,
    sharded: bool,
    anytime: bool = False,
) -> Curtail | None:
    """The CLI's options as a Curtail (None without --stop-when-decided); any combination that
    cannot be honoured is refused before anything runs."""
    if not stop_when_decided:
        named = (
            ("--baseline", baseline),
            ("--suite", suite),
            ("--seed", seed),
            ("--anytime", anytime or None),
        )
        given = [name for name, value in named if value is not None]
        if given:
            raise UsageError(f"{' and '.join(given)} only mean something with --stop-when-decided")
        return None
    if condition != "candidate":
        raise UsageError(
            "--stop-when-decided runs the candidate against a baseline: use --condition candidate"
        )
    if baseline is None:
        raise UsageError("--stop-when-decided needs --baseline: the baseline's responses, already run")
    if sharded:
        raise UsageError("--stop-when-decided decides over every case, so it cannot run one --shard")
    if suite is None:
        from ..judging.check import default_suite

        suite = default_suite()
    return Curtail(baseline, suite, 0 if seed is None else seed, anytime)
