"""Runner configuration: i-have-adhd's `runners.example.json` shape, plus the built-in stub.

The built-in `stub` exists only where no config defines that name: a config's
`stub` wins and is a runner like any other (it is called, and its cost is
checked). The reference's own regression test names its fake runner `stub`,
so a config that defines it means that command, never our toy.
"""

# No `from __future__ import annotations`: a NamedTuple's (and a TypedDict's) string annotations are
# compiled one by one into ForwardRefs on every run's start-up (docs/startup.md); the few names
# only type checkers import stay quoted.
import json
from pathlib import Path
from typing import Any, NamedTuple

from ...errors import UsageError
from ...files import read_text_limited
from ..types import RESPONSE_FORMATS, ResponseFormat
from .responses import is_dollars

FORMATS = RESPONSE_FORMATS  # the Literal's words, in its order
METERED = ("claude-json", "claude-stream-json", "trace-jsonl")  # formats whose output says what a call cost
STUB = "stub"
PROMPT = "{prompt}"  # a command element the prompt replaces (so a config can put `--` before it)
PROMPT_VIA = ("argv", "stdin")


class Runner(NamedTuple):
    """A model CLI as its config names it. A NamedTuple, not a dataclass: dataclasses imports inspect, about 8 ms of run's and judge's start-up."""

    name: str
    command: tuple[str, ...]
    response_format: ResponseFormat = "text"
    budget_flag: str | None = None
    prompt_via: str = "argv"
    assume_call_usd: float | None = None  # the default of --assume-call-usd for this runner
    builtin: bool = False  # the built-in stub: no process, no cost

    @property
    def metered(self) -> bool:
        """Whether its responses report dollar cost (the built-in stub reports 0)."""
        return self.builtin or self.response_format in METERED

    @property
    def placed(self) -> bool:
        """Whether the config says where the prompt goes (a `{prompt}` element, or stdin)."""
        return self.prompt_via == "stdin" or PROMPT in self.command

    def invocation(self, prompt: str, budget: float | None) -> tuple[list[str], str | None]:
        """(argv, stdin text) for one call: the budget flag after the command, as the
        reference places it; the prompt last, at `{prompt}`, or on stdin."""
        base = list(self.command)
        flag = [self.budget_flag, budget_text(budget)] if self.budget_flag and budget is not None else []
        if self.prompt_via == "stdin":
            return [*base, *flag], prompt
        if PROMPT in base:
            at = base.index(PROMPT)
            options_end = base.index("--") if "--" in base[:at] else at  # the flag is an option
            return [*base[:options_end], *flag, *base[options_end:at], prompt, *base[at + 1 :]], None
        return [*base, *flag, prompt], None

    def shown(self) -> str:
        """The command for messages: never the prompt."""
        return " ".join(self.command)


BUILTIN_STUB = Runner(STUB, (), builtin=True)


def load_runner(name: str, config: Path | None) -> Runner:
    """The named runner from the config; the built-in stub when no config defines `stub`."""
    if name == STUB and config is None:
        return BUILTIN_STUB
    if config is None:
        raise UsageError(f"runner {name!r} needs --runner-config (only 'stub' is built in)")
    try:
        data = json.loads(read_text_limited(config))
    except (OSError, ValueError, RecursionError) as exc:
        raise UsageError(f"{config}: cannot read the runner config ({exc})") from exc
    if name == STUB and isinstance(data, dict) and STUB not in data:
        return BUILTIN_STUB
    if not isinstance(data, dict) or name not in data:
        known = ", ".join(sorted(data)) if isinstance(data, dict) else "none"
        raise UsageError(f"{config}: no runner named {name!r} (it has: {known})")
    return _runner(name, data[name], config)


def _runner(name: str, spec: Any, config: Path) -> Runner:
    where = f"{config}: runner {name!r}"
    if not isinstance(spec, dict):
        raise UsageError(f"{where} must be an object")
    command = spec.get("command")
    if not isinstance(command, list) or not command or not all(isinstance(p, str) for p in command):
        raise UsageError(f"{where}: command must be a non-empty list of strings")
    response_format = spec.get("response_format", "text")
    if response_format not in FORMATS:
        raise UsageError(f"{where}: response_format must be one of {', '.join(FORMATS)}")
    budget_flag = spec.get("budget_flag")
    if budget_flag is not None and not isinstance(budget_flag, str):
        raise UsageError(f"{where}: budget_flag must be a string")
    prompt_via = spec.get("prompt_via", "argv")
    if prompt_via not in PROMPT_VIA:
        raise UsageError(f"{where}: prompt_via must be one of {', '.join(PROMPT_VIA)}")
    if command.count(PROMPT) > 1 or (PROMPT in command and prompt_via == "stdin"):
        raise UsageError(f"{where}: the prompt goes in one place: one {PROMPT} element, or prompt_via stdin")
    assume = spec.get("assume_call_usd")
    if assume is not None and not (is_dollars(assume) and assume > 0):
        raise UsageError(f"{where}: assume_call_usd must be a number of dollars greater than 0")
    return Runner(
        name,
        tuple(command),
        response_format,
        budget_flag,
        prompt_via,
        None if assume is None else float(assume),
    )


def budget_text(budget: float) -> str:
    """A budget flag's value: four decimals, rounded down where the reference rounds to nearest
    (`f"{x:.4f}"`), so 0.041666... is told 0.0416, never 0.0417 > what remains.

    What is cut is the amount to the nano-dollar, not the binary float: $1 less costs summed
    in floats leaves 0.8764999999999999 where 0.8765 remains, and 0.99 * 10^4 is 9899.999...;
    both are told as the reference tells them (0.8765, 0.9900). At most $0.000000001 of float
    noise can so be told beyond the float that remains."""
    if budget != budget or budget in (float("inf"), float("-inf")):
        return f"{budget:.4f}"
    from decimal import (  # a real call's flag only: not the stub's, nor a resumed run's
        ROUND_DOWN,
        Context,
        Decimal,
    )

    # precision for any float's integer digits: quantize must never run out of digits
    return str(Decimal(f"{budget:.9f}").quantize(Decimal("0.0001"), ROUND_DOWN, Context(prec=400)))
