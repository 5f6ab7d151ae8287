"""The options more than one command takes, each declared once: its names, type and limits.

Where every command describes an option in the same words it is a ready `Annotated` alias
(`MaxBytes`, `Cases`, ...). Where each command says what the option means to it, the option is
a function of that help text alone, so the names, metavar and limits still have one home:

    runner_config: Annotated[Path | None, options.runner_config("runners.json.")] = None

Defaults stay in the signatures (typer reads them there), each from the core's constant.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from .plain import shard_part

__all__ = ["shard_part"]  # re-exported: the typer commands name it options.shard_part

# typer 0.29 prints "<bool>" beside every flag, which reads as if it took a value.
FLAG = " "

SHARD_HELP = (
    "Run only shard K of N (K from 1; a case's trials and conditions stay in one shard), or auto: "
    "from GitLab, a Kubernetes Indexed Job or a Slurm array (see docs/scale.md)."
)
SHARD_COUNT_HELP = "The number of shards, for --shard auto under a Kubernetes Indexed Job."
CACHE_HELP = (
    "Reuse answers already paid for, and keep new ones: in DIR, or without DIR in "
    "$XDG_CACHE_HOME/adhd-evals/responses."
)


# -- files in and out --


def source_format(help: str) -> Any:
    """--format/-f: the format of the case files a command reads."""
    return typer.Option("--format", "-f", help=help)


def cases(help: str) -> Any:
    """--cases: the catalog a command reads (default schema.DEFAULT_CATALOG)."""
    return typer.Option("--cases", help=help)


def suite(help: str) -> Any:
    """--suite: the check module beside the catalog (default schema.DEFAULT_MODULE)."""
    return typer.Option("--suite", help=help)


def out(help: str) -> Any:
    """--out: the one file (or folder) a command writes."""
    return typer.Option("--out", help=help)


def output(help: str) -> Any:
    """--output: rows a command writes (appended by run and judge, written whole elsewhere)."""
    return typer.Option("--output", help=help)


def key(help: str) -> Any:
    """--key: the key file of a blind sheet."""
    return typer.Option("--key", help=help)


def labels(help: str) -> Any:
    """--labels: a sheet a person filled (score and report: the random sample `blind --label-sample`
    drew; verdicts: any labelled rows, repeatable)."""
    return typer.Option("--labels", help=help)


def criteria(help: str) -> Any:
    """--criteria: criterion verdicts from 'adhd-evals verdicts'."""
    return typer.Option("--criteria", help=help)


def certificate(help: str) -> Any:
    """--certificate: a judge's certificate from 'agree --certify'."""
    return typer.Option("--certificate", help=help)


def as_json(help: str) -> Any:
    """--json: print JSON instead of a table."""
    return typer.Option("--json", metavar=FLAG, help=help)


MaxBytes = Annotated[
    int, typer.Option("--max-bytes", min=1, help="Refuse, unread, any input file larger than this.")
]
Cases = Annotated[Path, cases("The catalog.")]
Checks = Annotated[Path | None, typer.Option("--checks", help="Results of 'adhd-evals check --output'.")]
Key = Annotated[Path | None, key("The key 'adhd-evals blind' wrote: maps labels back.")]


# -- model calls (run, judge, plan --estimate) --


def runner(help: str) -> Any:
    """--runner: a runner named in --runner-config, or the built-in stub."""
    return typer.Option("--runner", help=help)


def runner_config(help: str) -> Any:
    """--runner-config: runners.json."""
    return typer.Option("--runner-config", help=help)


def condition_skill(help: str) -> Any:
    """--condition-skill: the skill file candidate and comparator wrap the task with."""
    return typer.Option("--condition-skill", help=help)


def trials(help: str, *, min: int | None = None) -> Any:
    """--trials: trials per case."""
    return typer.Option("--trials", min=min, help=help)


def jobs(help: str, *, min: int | None = None) -> Any:
    """--jobs/-j: calls run at once."""
    return typer.Option("--jobs", "-j", min=min, help=help)


def budget_usd(help: str) -> Any:
    """--budget-usd: stop once this much is spent."""
    return typer.Option("--budget-usd", help=help)


def allow_unmetered(help: str) -> Any:
    """--allow-unmetered: a response format that reports no cost."""
    return typer.Option("--allow-unmetered", metavar=FLAG, help=help)


def timeout(help: str) -> Any:
    """--timeout: seconds one call may take."""
    return typer.Option("--timeout", help=help)


def assume_call_usd(help: str) -> Any:
    """--assume-call-usd: the most one call may cost when its runner cannot cap it."""
    return typer.Option("--assume-call-usd", help=help)


def cache(help: str) -> Any:
    """--cache [DIR]: the response cache (a bare --cache is the default folder: bare_cache)."""
    return typer.Option("--cache", metavar="[DIR]", help=help)


Jobs = Annotated[int, jobs("Calls run at once.")]
Retries = Annotated[int, typer.Option("--retries", help="Retries per call after a failure.")]
Shard = Annotated[str | None, typer.Option("--shard", metavar="K/N|auto", help=SHARD_HELP)]
ShardCount = Annotated[int | None, typer.Option("--shard-count", help=SHARD_COUNT_HELP)]


# -- the gate (score, report) --


def gate(help: str) -> Any:
    """--gate: which verdict decides (reference or paired)."""
    return typer.Option("--gate", help=help)


def min_effect(help: str) -> Any:
    """--min-effect: the weighted Δ the paired gate needs."""
    return typer.Option("--min-effect", help=help)


def max_drop(help: str) -> Any:
    """--max-drop: the drop in correctness or safety the paired gate calls worse."""
    return typer.Option("--max-drop", min=0.0, help=help)


def seed(help: str) -> Any:
    """--seed: the seed of a command's randomness (stated in its output)."""
    return typer.Option("--seed", help=help)
