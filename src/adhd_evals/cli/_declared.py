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
            Param("cases", (), "path", default=Path(DEFAULT_CATALOG)),
            Param("max_bytes", ("--max-bytes",), "int", default=268435456, low=1),
        ),
    ),
    "check": Command(
        "adhd_evals.cli.plain.checking:check",
        (
            Param("responses", (), "path", required=True),
            Param("cases", ("--cases",), "path", default=Path(DEFAULT_CATALOG)),
            Param("suite", ("--suite",), "path"),
            Param("output", ("--output",), "path"),
            Param("junit", ("--junit",), "path"),
            Param("as_json", ("--json",), "flag", default=False),
            Param("max_bytes", ("--max-bytes",), "int", default=268435456, low=1),
            Param("check_timeout", ("--check-timeout",), "float", default=5.0, low=0),
            Param("shard", ("--shard",), "str"),
            Param("shard_count", ("--shard-count",), "int"),
        ),
    ),
    "plan": Command(
        "adhd_evals.cli.plain.scale:plan",
        (
            Param("cases", ("--cases",), "path", default=Path(DEFAULT_CATALOG)),
            Param("trials", ("--trials",), "int", default=3, low=1),
            Param("include_comparator", ("--include-comparator",), "flag", default=False),
            Param("from_scores", ("--from-scores",), "path"),
            Param("effect", ("--effect",), "float", many=True),
            Param("key", ("--key",), "path"),
            Param("estimate", ("--estimate",), "flag", default=False),
            Param("history", ("--history",), "path", many=True),
            Param("runner", ("--runner",), "str", many=True),
            Param("runner_config", ("--runner-config",), "path"),
            Param("condition_skill", ("--condition-skill",), "path"),
            Param("cache", ("--cache",), "str"),
            Param("jobs", ("--jobs", "-j"), "int", default=1, low=1),
            Param("as_json", ("--json",), "flag", default=False),
        ),
    ),
    "merge": Command(
        "adhd_evals.cli.plain.scale:merge",
        (
            Param("shards", (), "path", many=True, required=True),
            Param("output", ("--output",), "path", required=True),
            Param("plan", ("--plan",), "path"),
            Param("max_bytes", ("--max-bytes",), "int", default=268435456, low=1),
        ),
    ),
    "cache": Command(
        "adhd_evals.cli.plain.scale:cache",
        (
            Param("action", (), "choice", choices=("stats", "prune"), required=True),
            Param("cache", ("--cache",), "path"),
            Param("older_than", ("--older-than",), "str"),
        ),
    ),
    "score": Command(
        "adhd_evals.cli.plain.scoring:score",
        (
            Param("scores", (), "path"),
            Param("checks", ("--checks",), "path"),
            Param("quarantine", ("--quarantine",), "path"),
            Param("key", ("--key",), "path"),
            Param("weights", ("--weights",), "str"),
            Param("as_json", ("--json",), "flag", default=False),
            Param("allow_unwritten", ("--allow-unwritten",), "flag", default=False),
            Param("min_trials", ("--min-trials",), "int", low=1),
            Param("criteria", ("--criteria",), "path"),
            Param("certificate", ("--certificate",), "path"),
            Param("max_bytes", ("--max-bytes",), "int", default=268435456, low=1),
            Param("plugin_eval_results", ("--plugin-eval-results",), "path"),
            Param("gate", ("--gate",), "choice", choices=("reference", "paired"), default="reference"),
            Param("min_effect", ("--min-effect",), "float", default=0.0),
            Param("max_drop", ("--max-drop",), "float", default=0.1, low=0.0),
            Param("seed", ("--seed",), "int", default=0),
            Param("labels", ("--labels",), "path"),
            Param("allow_leaky_judge", ("--allow-leaky-judge",), "flag", default=False),
        ),
    ),
    "blind": Command(
        "adhd_evals.cli.plain.checking:blind",
        (
            Param("responses", (), "path", required=True),
            Param("sheet", ("--sheet",), "path", required=True),
            Param("key", ("--key",), "path", required=True),
            Param("seed", ("--seed",), "int", default=0),
            Param("cases", ("--cases",), "path"),
            Param("markdown", ("--markdown",), "path"),
            Param("max_bytes", ("--max-bytes",), "int", default=268435456, low=1),
            Param("label_sample", ("--label-sample",), "int", low=1),
            Param("label_sheet", ("--label-sheet",), "path"),
            Param("label_markdown", ("--label-markdown",), "path"),
        ),
    ),
    "verdicts": Command(
        "adhd_evals.cli.plain.scoring:verdicts",
        (
            Param("out", ("--out",), "path", required=True),
            Param("checks", ("--checks",), "path"),
            Param("labels", ("--labels",), "path", many=True),
            Param("judged", ("--judged",), "path"),
            Param("key", ("--key",), "path"),
            Param("certificate", ("--certificate",), "path"),
            Param("cases", ("--cases",), "path", default=Path(DEFAULT_CATALOG)),
            Param("max_bytes", ("--max-bytes",), "int", default=268435456, low=1),
            Param("allow_leaky_judge", ("--allow-leaky-judge",), "flag", default=False),
        ),
    ),
    "report": Command(
        "adhd_evals.cli.plain.scoring:report",
        (
            Param("cases", ("--cases",), "path", default=Path(DEFAULT_CATALOG)),
            Param("responses", ("--responses",), "path", required=True),
            Param("checks", ("--checks",), "path"),
            Param("scores", ("--scores",), "path"),
            Param("key", ("--key",), "path"),
            Param("out", ("--out",), "path", required=True),
            Param("fmt", ("--format",), "choice", choices=("html", "markdown"), default="html"),
            Param("criteria", ("--criteria",), "path"),
            Param("certificate", ("--certificate",), "path"),
            Param("max_bytes", ("--max-bytes",), "int", default=268435456, low=1),
            Param("gate", ("--gate",), "choice", choices=("reference", "paired"), default="reference"),
            Param("min_effect", ("--min-effect",), "float", default=0.0),
            Param("max_drop", ("--max-drop",), "float", default=0.1, low=0.0),
            Param("labels", ("--labels",), "path"),
            Param("allow_leaky_judge", ("--allow-leaky-judge",), "flag", default=False),
            Param("full", ("--full",), "flag", default=False),
        ),
    ),
    "export": Command(
        "adhd_evals.cli.plain.catalog:export",
        (
            Param(
                "to",
                ("--to",),
                "choice",
                choices=("promptfoo", "evals-json", "plugin-eval"),
                required=True,
            ),
            Param("cases", ("--cases",), "path", default=Path(DEFAULT_CATALOG)),
            Param("suite", ("--suite",), "path", default=Path(DEFAULT_MODULE)),
            Param("out", ("--out",), "path", required=True),
        ),
    ),
}
