"""`run --stop-when-decided`: stop paying once the sign-test verdict cannot change.

The candidate run of a paired comparison whose baseline already ran. Each case's Δ is its check
pass fraction with the candidate minus with the baseline (from the check module, so no judge is
needed); the verdict is the exact two-sided sign test on the cases whose Δ is not 0 (paired.
sign_test): `better` when p < 0.05 and more cases went up than down, `worse` when p < 0.05 and
more went down, `inconclusive` otherwise.

Deterministic curtailment: before each new call starts, the verdict is certain when every outcome
the cases not yet complete could have (each up, down or unchanged) leads to the same verdict. Two
completions decide it: all of them up, and all of them down. `better` holds on a set closed
upward in the ups and downward in the downs (one more up keeps n+ > n− and only lowers p; one
fewer down likewise), `worse` on the mirror set, so every other completion lies between those
two: when they agree, all agree (tests/test_curtail.py checks it against every completion). The
verdict of the cases that ran (the rest count as unchanged, one of the completions) is then the
verdict of the whole run: curtailing costs nothing in error rates. A suite of 5 cases or fewer
can never reach p < 0.05 and stops before its first call.

`--anytime` swaps the rule for a betting e-process on the same signs (e_value): the run stops
once it reaches 1/α = 20 and the side it bet on is the verdict; if it never does, every case runs
and the verdict is inconclusive. Valid at any stopping time by Ville's inequality, it often stops
sooner when the effect is large and is more conservative than the sign test when it is not.

Cases run in a random order (seeded), every trial of a case together, so the cases not run are
a random set, not the catalog's tail. The calls it does not start are recorded in the output as
rows with `"not_run": "<why>"` and no response (rows.NotRunRow), which every reader skips.
"""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from ...errors import UsageError
from ...text import plural
from ..deciding.audit import ALPHA, Outcome, check_outcomes, pass_counts
from ..deciding.audit import sign_verdict as sign_verdict  # the verdict curtailment keeps (one home: audit)
from ..judging.check import catalog_criteria, load_suite, run_checks
from ..rows import PairedVerdict, ResponseRow, is_response, read_responses
from .curtail_options import Curtail as Curtail  # what --stop-when-decided was given: its own light module

if TYPE_CHECKING:
    from ...catalog import CaseRow
    from ..calling.calls import Done
    from ..calling.store import Store
    from ..judging.check import Suite
    from .execute import RunRequest, Task

BETS = tuple(k / 10 for k in range(1, 10))  # the e-process's bets (e_value)
_LARGEST_LOG = 700.0  # e^700 is about 1e304: past it an e-value is shown as that
SIGN_TEST, E_PROCESS = "sign test", "e-process"
STOPPED = "stopped after {run} of {total} cases: the sign-test verdict was already certain"
STOPPED_E = "stopped after {run} of {total} cases: the e-process reached {e:.1f} (at least 1/α = 20)"


class Stop(NamedTuple):
    """Why a run starts nothing more: the verdict, the rule that settled it, the e-value (anytime)."""

    verdict: PairedVerdict
    rule: str  # SIGN_TEST or E_PROCESS
    e: float | None = None

    def said(self, run: int, total: int) -> str:
        if self.rule == SIGN_TEST:
            return STOPPED.format(run=run, total=total)
        return STOPPED_E.format(run=run, total=total, e=float(self.e or 0))


def certain(n_plus: int, n_minus: int, remaining: int) -> PairedVerdict | None:
    """The verdict whatever the `remaining` cases do, or None while they could still change it."""
    every_up = sign_verdict(n_plus + remaining, n_minus)
    every_down = sign_verdict(n_plus, n_minus + remaining)
    return every_up if every_up == every_down else None


def e_value(n_plus: int, n_minus: int) -> tuple[float, PairedVerdict]:
    """The two-sided betting e-process on the signs so far (ties carry no bet), and the side it
    favours: the mean, over a bet of λ = 0.1, 0.2, ..., 0.9 on up and the same on down, of the
    wealth (1 ± λ)^n+ · (1 ∓ λ)^n− a bettor starting with 1 holds. Under the null (each case not
    tied is up or down with probability 1/2, independently) every such wealth is a martingale
    with mean 1, so their mean is too, and by Ville's inequality it ever reaches 1/α with
    probability at most α. Summed in logarithms: a wealth past a float's range stays a number."""
    logs = [n_plus * math.log1p(s * bet) + n_minus * math.log1p(-s * bet) for bet in BETS for s in (1, -1)]
    top = max(logs)
    log_e = top + math.log(math.fsum(math.exp(x - top) for x in logs) / len(logs))
    # the up bets' wealth is at least the down bets' exactly when n+ ≥ n− (each term's ratio is
    # ((1 + λ)/(1 − λ))^(n+ − n−))
    return math.exp(min(log_e, _LARGEST_LOG)), "better" if n_plus >= n_minus else "worse"


def stop(n_plus: int, n_minus: int, remaining: int, *, anytime: bool = False) -> Stop | None:
    """Why to start nothing more, or None. By default, the exact sign test's verdict is certain.
    With `anytime` the e-process alone decides: it stops on its side once it reaches 1/α, and
    never otherwise (mixing in the sign test would spend α twice)."""
    if anytime:
        e, side = e_value(n_plus, n_minus)
        return Stop(side, E_PROCESS, e) if e >= 1 / ALPHA else None
    verdict = certain(n_plus, n_minus, remaining)
    return None if verdict is None else Stop(verdict, SIGN_TEST)


def stopping_point(signs: Sequence[int], *, anytime: bool = False) -> tuple[int, Stop | None]:
    """How many of these cases (each Δ's sign, in the order they run) run before the run stops:
    the first k with stop(...) before case k + 1 starts (len(signs) and None if never)."""
    n_plus = n_minus = 0
    for ran, sign in enumerate(signs):
        found = stop(n_plus, n_minus, len(signs) - ran, anytime=anytime)
        if found is not None:
            return ran, found
        n_plus, n_minus = n_plus + (sign > 0), n_minus + (sign < 0)
    return len(signs), None


# ---- in a run ---------------------------------------------------------------------------


@dataclass
class Curtailed:
    """What the curtailment did: the verdict, how many cases ran, the calls it did not start."""

    cases: int
    complete: int  # cases whose every trial ran
    n_plus: int
    n_minus: int
    verdict: PairedVerdict
    stopped: Stop | None  # why it started nothing more before every case was complete
    anytime: bool = False  # the e-process decides (--anytime), not the sign test
    not_run: list[tuple[str, int]] = field(default_factory=list)  # (case, trial)
    call_usd: float | None = None  # what one call cost on average (to price what was not spent)

    @property
    def unspent(self) -> float | None:
        return None if self.call_usd is None else self.call_usd * len(self.not_run)


class Watch:
    """The cases' Δ as the candidate's rows come in, and the stop once the verdict is certain."""

    def __init__(self, request: RunRequest, cases: Sequence[CaseRow]) -> None:
        curtail = request.curtail
        assert curtail is not None  # only a curtailed run makes a Watch
        self.trials, self.seed, self.anytime = request.trials, curtail.seed, curtail.anytime
        self.ids = [c["id"] for c in cases if not request.case_ids or c["id"] in request.case_ids]
        self.suite: Suite = load_suite(curtail.suite)
        self.criteria = catalog_criteria(request.cases)
        base_rows = [r for r in read_responses(curtail.baseline) if r["condition"] == "baseline"]
        self.baseline = pass_counts(self._outcomes(base_rows))
        lacking = [i for i in self.ids if self.baseline.get((i, "baseline"), (0, 0))[1] == 0]
        if lacking:
            raise UsageError(
                f"--stop-when-decided: no baseline check result for {plural(len(lacking), 'case')} "
                f"({', '.join(lacking[:10])}{', ...' if len(lacking) > 10 else ''}): run the baseline "
                "through --suite's checks first, or give those cases checks"
            )
        self._costs = [_cost(r) for r in base_rows]
        self._candidate: dict[str, list[int]] = {}  # case -> [passed, total, trials]
        self._seen: set[tuple[str, int]] = set()
        self._skipped: list[tuple[str, int]] = []
        self._lock = threading.Lock()
        self._own_costs: list[float | None] = []
        self._scope = (request.condition, request.runner.name)

    def resume(self, store: Store, pending: list[Task]) -> list[Task]:
        """The candidate rows already in the output counted (a resumed run), and the tasks still
        to run in the order they will run: case by case, every trial of a case together, the cases
        in a seeded random order (so the cases left unrun are a random set, not the catalog's tail)."""
        for row in read_responses(store.path):
            if (row["condition"], row["runner"]) == self._scope:
                self.record(row)
        ids = sorted(self.ids)
        random.Random(self.seed).shuffle(ids)
        rank = {case_id: at for at, case_id in enumerate(ids)}
        return sorted(pending, key=lambda task: (rank[task[0]["id"]], task[1]))

    def _outcomes(self, rows: Iterable[ResponseRow]) -> list[Outcome]:
        known = [r for r in rows if r["case_id"] in self.ids]
        found = run_checks(known, self.suite, self.ids, self.criteria)
        return check_outcomes(result.row() for result in found.results)

    def record(self, row: Mapping[str, object]) -> None:
        """One candidate row's checks into its case's tally (a trial counted once)."""
        assert is_response(row)  # a row this run made, or read back with read_responses
        key = (row["case_id"], row["trial"])
        if key[0] not in self.ids or key[1] > self.trials or key in self._seen:
            return
        self._seen.add(key)
        self._own_costs.append(_cost(row))
        counts = pass_counts(self._outcomes([row]))
        passed, total = counts.get((key[0], row["condition"]), (0, 0))
        tally = self._candidate.setdefault(key[0], [0, 0, 0])
        tally[0], tally[1], tally[2] = tally[0] + passed, tally[1] + total, tally[2] + 1

    def signs(self) -> tuple[int, int, int]:
        """Cases up, cases down, and cases complete (every trial in)."""
        up = down = complete = 0
        for case_id, (passed, total, trials) in self._candidate.items():
            if trials < self.trials:
                continue
            complete += 1
            base_passed, base_total = self.baseline[(case_id, "baseline")]
            # the sign of passed/total − base_passed/base_total, in integers
            difference = passed * base_total - base_passed * total
            up, down = up + (difference > 0), down + (difference < 0)
        return up, down, complete

    def decided(self) -> Stop | None:
        up, down, complete = self.signs()
        return stop(up, down, len(self.ids) - complete, anytime=self.anytime)

    def guard(self, work: Callable[[Task], Done | None]) -> Callable[[Task], Done | None]:
        """`work`, started only while the verdict is not yet certain; each row it makes is counted."""

        def guarded(task: Task) -> Done | None:
            with self._lock:
                if self.decided() is not None:
                    self._skipped.append((task[0]["id"], task[1]))
                    return None
            done = work(task)
            if done is not None:
                with self._lock:
                    self.record(done.row)
            return done

        return guarded

    def finish(self, store: Store) -> Curtailed:
        """The calls not started, each recorded as a whole row saying why; and what happened."""
        up, down, complete = self.signs()
        decided = self.decided()
        stopped = (
            decided if decided is not None and complete < len(self.ids) else None
        )  # this run's or an earlier's
        if decided is not None:
            shown = decided.verdict
        else:  # with --anytime, an e-process that never reached 1/α decides nothing
            shown = "inconclusive" if self.anytime else sign_verdict(up, down)
        found = Curtailed(
            len(self.ids), complete, up, down, shown, stopped, self.anytime, call_usd=self._call_usd()
        )
        condition, runner = self._scope
        if self._skipped and stopped is not None:  # only ever skipped once the run had stopped
            found.not_run = sorted(self._skipped, key=lambda key: (self.ids.index(key[0]), key[1]))
            why = f"{stopped.said(complete, len(self.ids))} ({shown})"
            for case_id, trial in found.not_run:
                store.append(
                    {
                        "case_id": case_id,
                        "trial": trial,
                        "condition": condition,
                        "runner": runner,
                        "not_run": why,
                    }
                )
        return found

    def _call_usd(self) -> float | None:
        """One call's mean cost: the candidate's calls, or (none priced yet) the baseline's."""
        for costs in (self._own_costs, self._costs):
            priced = [c for c in costs if c is not None]
            if priced:
                return sum(priced) / len(priced)
        return None


def _cost(row: Mapping[str, object]) -> float | None:
    cost = row.get("cost_usd")
    if row.get("cached") or isinstance(cost, bool) or not isinstance(cost, (int, float)):
        return None
    return float(cost)


def lines(found: Curtailed) -> list[str]:
    """What `run` says on stderr about the curtailment."""
    counts = f"{found.n_plus} up, {found.n_minus} down (exact sign test)"
    if found.anytime:
        counts = f"{found.n_plus} up, {found.n_minus} down (e-process: anytime-valid at 5%)"
    if not found.stopped:
        if found.complete == found.cases:
            rule = "the e-process's" if found.anytime else "the sign-test"
            return [f"--stop-when-decided: every case ran; {rule} verdict is {found.verdict}: {counts}."]
        return [
            f"--stop-when-decided: {found.complete} of {found.cases} cases complete and the verdict not yet "
            f"certain ({counts}); rerun to go on."
        ]
    said = [found.stopped.said(found.complete, found.cases) + f": {found.verdict}, {counts}."]
    if not found.not_run:
        return said + ["The rows not run were recorded so by an earlier run; nothing more was started."]
    said.append(
        f'Not run ({plural(len(found.not_run), "row")}, recorded with "not_run" in the output): '
        + ", ".join(f"{case} trial {trial}" for case, trial in found.not_run)
        + "."
    )
    if found.unspent is None:
        said.append("Money not spent: unknown (no call has a cost to price the rest by).")
    else:
        said.append(
            f"Money not spent: about ${found.unspent:.4f} ({plural(len(found.not_run), 'call')} at "
            f"${found.call_usd or 0.0:.4f}, the mean cost of a call so far)."
        )
    return said
