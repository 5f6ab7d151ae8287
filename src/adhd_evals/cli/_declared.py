"""The fast path's declarations, generated from the typer app by `python -m
adhd_evals.cli.declare`: do not edit (tests/test_cli_fast.py regenerates and compares)."""

from __future__ import annotations

from pathlib import Path

from ..schema import DEFAULT_CATALOG, DEFAULT_MODULE
from .fast import Command, Param

COMMANDS: dict[str, Command] = {
    "validate": Command(
        "adhd_evals.cli.plain.catalog:validate",
        (
            Param(
                name="cases",
                flags=(),
                kind="path",
                default=Path(DEFAULT_CATALOG),
            ),
            Param(
                name="max_bytes",
                flags=("--max-bytes",),
                kind="int",
                default=268435456,
                low=1,
            ),
        ),
    ),
    "plan": Command(
        "adhd_evals.cli.plain.scale:plan",
        (
            Param(
                name="cases",
                flags=("--cases",),
                kind="path",
                default=Path(DEFAULT_CATALOG),
            ),
            Param(
                name="trials",
                flags=("--trials",),
                kind="int",
                default=3,
                low=1,
            ),
            Param(
                name="include_comparator",
                flags=("--include-comparator",),
                kind="flag",
                default=False,
            ),
            Param(
                name="from_scores",
                flags=("--from-scores",),
                kind="path",
            ),
            Param(
                name="effect",
                flags=("--effect",),
                kind="float",
                many=True,
            ),
            Param(
                name="key",
                flags=("--key",),
                kind="path",
            ),
            Param(
                name="estimate",
                flags=("--estimate",),
                kind="flag",
                default=False,
            ),
            Param(
                name="history",
                flags=("--history",),
                kind="path",
                many=True,
            ),
            Param(
                name="runner",
                flags=("--runner",),
                kind="str",
                many=True,
            ),
            Param(
                name="runner_config",
                flags=("--runner-config",),
                kind="path",
            ),
            Param(
                name="condition_skill",
                flags=("--condition-skill",),
                kind="path",
            ),
            Param(
                name="cache",
                flags=("--cache",),
                kind="str",
            ),
            Param(
                name="jobs",
                flags=("--jobs", "-j"),
                kind="int",
                default=1,
                low=1,
            ),
            Param(
                name="as_json",
                flags=("--json",),
                kind="flag",
                default=False,
            ),
        ),
    ),
    "merge": Command(
        "adhd_evals.cli.plain.scale:merge",
        (
            Param(
                name="shards",
                flags=(),
                kind="path",
                many=True,
                required=True,
            ),
            Param(
                name="output",
                flags=("--output",),
                kind="path",
                required=True,
            ),
            Param(
                name="plan",
                flags=("--plan",),
                kind="path",
            ),
            Param(
                name="max_bytes",
                flags=("--max-bytes",),
                kind="int",
                default=268435456,
                low=1,
            ),
        ),
    ),
    "cache": Command(
        "adhd_evals.cli.plain.scale:cache",
        (
            Param(
                name="action",
                flags=(),
                kind="choice",
                choices=("stats", "prune"),
                required=True,
            ),
            Param(
                name="cache",
                flags=("--cache",),
                kind="path",
            ),
            Param(
                name="older_than",
                flags=("--older-than",),
                kind="str",
            ),
        ),
    ),
    "export": Command(
        "adhd_evals.cli.plain.catalog:export",
        (
            Param(
                name="to",
                flags=("--to",),
                kind="choice",
                choices=("promptfoo", "evals-json", "plugin-eval"),
                required=True,
            ),
            Param(
                name="cases",
                flags=("--cases",),
                kind="path",
                default=Path(DEFAULT_CATALOG),
            ),
            Param(
                name="suite",
                flags=("--suite",),
                kind="path",
                default=Path(DEFAULT_MODULE),
            ),
            Param(
                name="out",
                flags=("--out",),
                kind="path",
                required=True,
            ),
        ),
    ),
}
