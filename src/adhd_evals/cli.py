"""The command line: a thin layer that builds arguments and calls the core."""

from __future__ import annotations

import enum
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from . import exitcodes, jsonl
from .errors import CatalogInvalid, UsageError
from .files import DEFAULT_MAX_BYTES, set_max_bytes

# the choices are the core's Literal types (schema.py): typer offers their values
from .schema import DEFAULT_CATALOG, DEFAULT_MODULE, Condition, ImportFormat, Risk
from .text import plural

if TYPE_CHECKING:
    from .importing.importer import Request

# typer 0.29 prints "<bool>" beside every flag, which reads as if it took a value.
FLAG = " "

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Turn eval case files into one five-field catalog you can lint, run and score.",
)


def _version(value: bool) -> None:
    if value:
        from . import __version__  # pyproject reads its version from there too

        print(f"adhd-evals {__version__}")
        raise typer.Exit(exitcodes.OK)


@app.callback()
def _options(
    version: bool = typer.Option(
        False, "--version", metavar=FLAG, callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Turn eval case files into one five-field catalog you can lint, run and score."""


SHARD_HELP = (
    "Run only shard K of N (K from 1; a case's trials and conditions stay in one shard), or auto: "
    "from GitLab, a Kubernetes Indexed Job or a Slurm array (see docs/scale.md)."
)
SHARD_COUNT_HELP = "The number of shards, for --shard auto under a Kubernetes Indexed Job."
CACHE_HELP = (
    "Reuse answers already paid for, and keep new ones: in DIR, or without DIR in "
    "$XDG_CACHE_HOME/adhd-evals/responses."
)


@app.command("import")
def import_command(
    sources: list[Path] = typer.Argument(
        ...,
        help="evals.json files (a folder: every evals.json beneath it), YAML case files or folders, "
        "or dataset.json files.",
    ),
    format: ImportFormat | None = typer.Option(
        None, "--format", "-f", help="The source format (default: recognised as lint recognises it)."
    ),
    out: Path | None = typer.Option(
        None, "--out", help="Write DIR/cases.jsonl and DIR/checks.py; without it the catalog goes to stdout."
    ),
    risk: Risk | None = typer.Option(None, "--risk", help="Risk for every case (default: medium)."),
    category: str | None = typer.Option(
        None, "--category", help="Category for every case (default: from the source)."
    ),
    prune: bool = typer.Option(
        False,
        "--prune",
        metavar=FLAG,
        help="Remove from the check module the cases that are gone from the source.",
    ),
    dialect: Path | None = typer.Option(
        None,
        "--dialect",
        help="A dialect file: what your typed assertions and case shapes mean (draft one with 'adhd-evals survey').",
    ),
    replace: bool = typer.Option(
        False,
        "--replace",
        metavar=FLAG,
        help="Rebuild --out from these sources alone (lists each case dropped).",
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", metavar=FLAG, help="Print what would change (with diffs); write nothing."
    ),
    max_bytes: int = typer.Option(
        DEFAULT_MAX_BYTES, "--max-bytes", min=1, help="Refuse, unread, any input file larger than this."
    ),
) -> int:
    """Import case files into the five-field catalog and its check module."""
    set_max_bytes(max_bytes)

    from .importing import dialect as dialects
    from .importing.importer import Request, collector_paused

    declared = dialects.load(dialect) if dialect is not None else None
    if format is None:
        from .importing.detect import detect

        fmt = detect(sources, declared.format if declared is not None else None)
        print(f"Format: {fmt} (recognised as lint recognises it; --format chooses).", file=sys.stderr)
    else:
        fmt = format
    if dry_run and out is None:
        raise UsageError("--dry-run compares with what --out DIR holds: pass --out")
    request = Request(out=out, prune=prune, replace=replace, dry_run=dry_run)
    options = {"risk": risk, "category": category, "dialect": declared}
    # Paused for the whole command, output included; the model (acyclic) is freed by reference
    # counting when _import returns, so resuming the collector finds nothing left to scan.
    with collector_paused():
        _import(fmt, sources, request, options)
    return exitcodes.OK


def _import(fmt: str, sources: list[Path], request: Request, options: dict[str, Any]) -> None:
    from .importing.importer import import_sources
    from .importing.summary import outcome_lines

    outcome = import_sources(fmt, sources, request, **options)
    if request.dry_run:
        for diff in outcome.diffs:
            print(diff, end="")
    elif request.out is None:  # the catalog is UTF-8 whatever the terminal's locale says
        sys.stdout.flush()
        raw = getattr(sys.stdout, "buffer", None)  # absent when a caller swapped in a text stream
        for piece in outcome.catalog_pieces():  # streamed: a large catalog is never held whole
            if raw is None:
                sys.stdout.write(piece)
            else:
                raw.write(piece.encode("utf-8"))
        if raw is not None:
            raw.flush()
    print("\n".join(outcome_lines(outcome, dry_run=request.dry_run)), file=sys.stderr)


@app.command("survey")
def survey_command(
    sources: list[Path] = typer.Argument(..., help="Case files, or folders to search for them."),
    format: ImportFormat = typer.Option(..., "--format", "-f", help="evals-json or yaml."),
    out: Path | None = typer.Option(None, "--out", help="Write (or extend) a draft dialect file here."),
    max_bytes: int = typer.Option(
        DEFAULT_MAX_BYTES, "--max-bytes", min=1, help="Refuse, unread, any input file larger than this."
    ),
) -> int:
    """List every shape your case files use, and draft a dialect that says what they mean."""
    set_max_bytes(max_bytes)

    from .importing import survey
    from .output import refuse_clobbering, write_all_atomically

    if format == "evalflow":
        raise UsageError("survey reads evals-json or yaml; evalflow's shape is fixed by evalflow")
    if format == "promptfoo":  # promptfoo's meaning is its own: counted, no dialect drafted
        if out is not None:
            raise UsageError(
                "survey --format promptfoo drafts no dialect (promptfoo defines its types): drop --out"
            )
        from .importing.formats.promptfoo import census

        print("\n".join(census.report(sources)))
        return exitcodes.OK
    for source in sources:
        refuse_clobbering({"--out": out}, {"source": source})
    found = survey.survey(format, sources)
    print("\n".join(survey.report(found)))
    if out is not None:
        text, added = survey.draft(found, _existing(out))
        write_all_atomically({out: text})
        print(
            f"Wrote {out}: {plural(added, 'new rule')} with choices left open.",
            file=sys.stderr,
        )
    return exitcodes.OK


def _existing(path: Path) -> str | None:
    from .errors import OutputError
    from .files import read_text_limited

    try:
        return read_text_limited(path)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise OutputError(f"{path} exists and cannot be read ({exc}); move it aside first") from exc


@app.command("validate")
def validate_command(
    cases: Path = typer.Argument(Path(DEFAULT_CATALOG), help="The five-field catalog."),
    max_bytes: int = typer.Option(
        DEFAULT_MAX_BYTES, "--max-bytes", min=1, help="Refuse, unread, any input file larger than this."
    ),
) -> int:
    """Check a five-field catalog and print every problem with its line."""
    set_max_bytes(max_bytes)

    from .catalog import validate_file

    count, problems = validate_file(cases)
    if problems and (other := _other_format(cases)):
        raise CatalogInvalid([other])
    if problems:
        raise CatalogInvalid(
            [p.render(str(cases)) for p in problems]
            + [f"{plural(len(problems), 'problem')} in {plural(count, 'case')}."]
        )
    print("Evaluation cases are valid.")
    return exitcodes.OK


def _other_format(path: Path) -> str | None:
    """One line for a file that is not a JSONL catalog at all (not one per line of it)."""
    import json as json_module

    from .files import read_limited
    from .lint import format_of

    looks = format_of(path, explicit=True)
    if looks in ("evals-json", "evalflow"):
        try:
            json_module.loads(read_limited(path))
        except (ValueError, RecursionError, OSError):
            return None  # not one JSON document either: the problems by line say more
    elif looks not in ("yaml", "module"):
        return None
    what = {
        "evals-json": "an evals.json",
        "evalflow": "an evalflow dataset",
        "yaml": "a YAML case file",
        "module": "a check module",
    }[looks]
    use = f"adhd-evals lint {path}" + (
        f", or adhd-evals import --format {looks} {path}" if looks != "module" else ""
    )
    return f"{path} is not a five-field catalog (JSONL, one case per line): it looks like {what}; use {use}"


@app.command("check")
def check_command(
    responses: Path = typer.Argument(
        ..., help="Response rows (case_id, trial, condition, runner, response) as JSONL."
    ),
    cases: Path = typer.Option(Path(DEFAULT_CATALOG), "--cases", help="The catalog."),
    suite: Path | None = typer.Option(
        None,
        "--suite",
        help="The check module (default evals/checks.py). check RUNS ITS PYTHON CODE: "
        "point it only at a module you trust.",
    ),
    output: Path | None = typer.Option(None, "--output", help="Write one result row per check as JSONL."),
    junit: Path | None = typer.Option(None, "--junit", help="Write JUnit XML (a test case per check)."),
    as_json: bool = typer.Option(False, "--json", metavar=FLAG, help="Print the summary as JSON."),
    max_bytes: int = typer.Option(
        DEFAULT_MAX_BYTES, "--max-bytes", min=1, help="Refuse, unread, any input file larger than this."
    ),
    check_timeout: float = typer.Option(
        5.0,
        "--check-timeout",
        min=0,
        help="Seconds one check may run before it is stopped and recorded as an error (0: no limit).",
    ),
    shard: str | None = typer.Option(None, "--shard", metavar="K/N|auto", help=SHARD_HELP),
    shard_count: int | None = typer.Option(None, "--shard-count", help=SHARD_COUNT_HELP),
) -> int:
    """Run every response through its case's checks; fails while anything fails or is unwritten.

    The check module is Python: check imports it and runs its code. Without
    --suite it reads evals/checks.py only when that file lies inside the
    current folder (not through a link to somewhere else).
    """
    set_max_bytes(max_bytes)

    from .output import refuse_clobbering, write_all_atomically
    from .runs import check as checking

    suite = suite if suite is not None else checking.default_suite()
    refuse_clobbering(
        {"--output": output, "--junit": junit},
        {"responses file": responses, "catalog": cases, "check module": suite},
    )
    checking.refuse_torn_pair(cases, suite)
    criteria = checking.catalog_criteria(cases)
    loaded = checking.load_suite(suite)
    rows = checking.read_responses(responses)
    ids = list(criteria)
    part = _shard(shard, shard_count)
    if part is not None:  # this shard's cases and rows only: the catalog's other cases are other shards'
        ids, rows = [i for i in ids if part.holds(i)], [r for r in rows if part.holds(r["case_id"])]
    run = checking.run_checks(rows, loaded, ids, criteria, timeout=check_timeout)
    if output is not None:
        write_all_atomically({output: checking.results_text(run)})
    if junit is not None:
        from .runs.junit import junit as junit_xml

        write_all_atomically({junit: junit_xml(run.results)})
    if as_json:
        print(json.dumps(checking.summary_json(run), indent=2, ensure_ascii=False))
    else:
        print("\n".join(checking.summary_table(run)))
    return exitcodes.OK if run.clean else exitcodes.FAILED


@app.command("plan")
def plan_command(
    cases: Path = typer.Option(Path(DEFAULT_CATALOG), "--cases", help="The catalog."),
    trials: int = typer.Option(3, "--trials", min=1, help="Trials per case."),
    include_comparator: bool = typer.Option(
        False, "--include-comparator", metavar=FLAG, help="Add the comparator condition."
    ),
    from_scores: Path | None = typer.Option(
        None,
        "--from-scores",
        help="Size the suite instead: from these scores' spread, how many cases detect an effect (with --trials).",
    ),
    effect: list[float] | None = typer.Option(
        None, "--effect", help="With --from-scores: the weighted Δ to detect (repeatable; default a ladder)."
    ),
    key: Path | None = typer.Option(None, "--key", help="With --from-scores: the key for a labelled sheet."),
    estimate: bool = typer.Option(
        False, "--estimate", metavar=FLAG, help="Print the expected calls, cost and wall time instead."
    ),
    history: list[Path] | None = typer.Option(
        None,
        "--history",
        help="--estimate: earlier runs' responses files, priced by their cost_usd (repeatable).",
    ),
    runner: list[str] | None = typer.Option(
        None, "--runner", help="--estimate: a runner to price (repeatable; default: those in the history)."
    ),
    runner_config: Path | None = typer.Option(
        None, "--runner-config", help="--estimate with --cache: runners.json."
    ),
    condition_skill: Path | None = typer.Option(
        None,
        "--condition-skill",
        help="--estimate with --cache: the skill file candidate and comparator wrap with.",
    ),
    cache: str | None = typer.Option(
        None,
        "--cache",
        metavar="[DIR]",
        help="--estimate: count the calls this response cache answers as free.",
    ),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="--estimate: calls run at once."),
    as_json: bool = typer.Option(
        False, "--json", metavar=FLAG, help="--estimate: print the forecast as JSON."
    ),
) -> int:
    """Print the paired run matrix as JSONL; with --from-scores, how many cases and trials you need;
    with --estimate, what running it will cost."""
    if from_scores is not None:
        from .runs import sizing

        print("\n".join(sizing.plan_lines(from_scores, key, trials, effect or [])))
        return exitcodes.OK

    from .catalog import load_valid  # not runs.execute: planning starts no thread nor process

    loaded = load_valid(cases)
    conditions = ["baseline", "candidate"] + (["comparator"] if include_comparator else [])
    if estimate:
        options = {
            "history": history or [],
            "runners": runner or [],
            "config": runner_config,
            "skill": condition_skill,
            "cache": cache,
            "jobs": jobs,
            "as_json": as_json,
        }
        return _estimate(loaded, trials, conditions, options)
    for trial in range(1, trials + 1):
        for case in loaded:
            for condition in conditions:
                # ASCII, as the reference writes it (and printable on any terminal encoding)
                print(
                    jsonl.line(
                        {"case_id": case["id"], "trial": trial, "condition": condition}, ensure_ascii=True
                    )
                )
    return exitcodes.OK


def _shard(spec: str | None, count: int | None) -> Any:
    from .runs.shard import parse

    return parse(spec, count=count) if spec is not None else None


def _cache(where: str | None, refresh: bool) -> Any:
    """The response cache `--cache [DIR]` names (an empty value: the default folder), or None."""
    if where is None:
        if refresh:
            raise UsageError("--refresh bypasses the response cache: pass --cache too")
        return None
    from .runs.cache import Cache, default_dir

    return Cache.open(Path(where) if where else default_dir(), refresh=refresh)


def _estimate(
    cases: list[dict[str, Any]], trials: int, conditions: list[str], options: dict[str, Any]
) -> int:
    from .runs import forecast

    jobs = options.pop("jobs")
    as_json = options.pop("as_json")
    lines = forecast.forecast(cases, trials, conditions, **options)
    if as_json:
        print(
            json.dumps(
                {
                    "jobs": jobs,
                    "lines": [line.as_json(jobs) for line in lines],
                    "total": forecast.total(lines).as_json(jobs),
                },
                indent=2,
            )
        )
    else:
        print("\n".join(forecast.report(lines, jobs)))
    return exitcodes.OK


@app.command("run")
def run_command(
    runner: str = typer.Option(
        ..., "--runner", help="A runner from --runner-config, or the built-in 'stub'."
    ),
    condition: Condition = typer.Option(..., "--condition", help="baseline, candidate or comparator."),
    output: Path = typer.Option(..., "--output", help="The responses JSONL (appended; rerun to resume)."),
    cases: Path = typer.Option(Path(DEFAULT_CATALOG), "--cases", help="The catalog."),
    runner_config: Path | None = typer.Option(
        None, "--runner-config", help="runners.json (command, response_format, budget_flag)."
    ),
    condition_skill: Path | None = typer.Option(
        None, "--condition-skill", help="The skill file candidate and comparator wrap the task with."
    ),
    case: list[str] | None = typer.Option(
        None, "--case", metavar="ID", help="Only this case id (repeatable)."
    ),
    trials: int = typer.Option(3, "--trials", help="Trials per case."),
    retries: int = typer.Option(2, "--retries", help="Retries per call after a failure."),
    backoff: float = typer.Option(
        1.0, "--backoff", help="Seconds before the first retry; doubles each time."
    ),
    budget_usd: float | None = typer.Option(
        None,
        "--budget-usd",
        help="Stop once this much is spent (counting earlier runs into the same file; per shard with "
        "--shard). Default 25.",
    ),
    allow_unmetered: bool = typer.Option(
        False, "--allow-unmetered", metavar=FLAG, help="Allow a response format that reports no cost."
    ),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Calls run at once."),
    timeout: float | None = typer.Option(
        None, "--timeout", help="Seconds one call may take before it counts as failed."
    ),
    max_calls: int | None = typer.Option(
        None, "--max-calls", help="With --allow-unmetered: the most calls (attempts) this run makes."
    ),
    max_output_bytes: int = typer.Option(
        16 * 1024 * 1024, "--max-output-bytes", help="End a call that prints more than this."
    ),
    shard: str | None = typer.Option(None, "--shard", metavar="K/N|auto", help=SHARD_HELP),
    shard_count: int | None = typer.Option(None, "--shard-count", help=SHARD_COUNT_HELP),
    shard_budget_total: float | None = typer.Option(
        None,
        "--shard-budget-total",
        metavar="USD",
        help="A budget for all shards, divided evenly among them.",
    ),
    cache: str | None = typer.Option(None, "--cache", metavar="[DIR]", help=CACHE_HELP),
    refresh: bool = typer.Option(
        False, "--refresh", metavar=FLAG, help="With --cache: call anyway (and store the new answers)."
    ),
    assume_call_usd: float | None = typer.Option(
        None,
        "--assume-call-usd",
        help="Without a budget_flag: the most one call may cost (held, and charged "
        "when its cost is unknown). Default: the runner's assume_call_usd; required with --jobs above 1.",
    ),
) -> int:
    """Run one condition through a model CLI, resumably and concurrently."""

    from .output import refuse_clobbering
    from .runs.config import load_runner
    from .runs.execute import RunRequest, charged_line, run

    refuse_clobbering(
        {"--output": output},
        {"catalog": cases, "runner config": runner_config, "condition skill": condition_skill},
    )
    from .runs import shard as sharding

    part = sharding.parse(shard, count=shard_count) if shard is not None else None
    budget_usd = sharding.budget(budget_usd, shard_budget_total, part, 25.0)
    responses = _cache(cache, refresh)
    request = RunRequest(
        load_runner(runner, runner_config),
        condition,
        output,
        cases,
        condition_skill,
        tuple(case or ()),
        trials,
        retries,
        budget_usd,
        allow_unmetered,
        jobs,
        timeout,
        backoff,
        max_calls,
        max_output_bytes,
        assume_call_usd,
        shard=part,
        cache=responses,
    )
    summary = run(request)
    if summary.repaired_bytes:
        print(
            f"Repaired {output}: cut a torn last line ({summary.repaired_bytes} bytes) left by an "
            "interrupted run; its case ran again.",
            file=sys.stderr,
        )
    print(
        f"Ran {plural(summary.ran, 'case')} ({plural(summary.calls, 'call')}), skipped {summary.skipped} "
        f"already in {output}; spent ${summary.spent:.4f} of ${budget_usd:.4f}"
        + (f" (the budget of shard {part} alone)." if part else "."),
        file=sys.stderr,
    )
    if responses is not None:
        print(
            f"{plural(responses.hits, 'answer')} from the cache {responses.root}: not charged (they first "
            f"cost ${responses.hit_cost:.4f}).",
            file=sys.stderr,
        )
    if summary.charged_calls:
        print(charged_line(summary.charged, summary.charged_calls), file=sys.stderr)
    if allow_unmetered:
        cap = f"--max-calls {max_calls}" if max_calls is not None else "no --max-calls cap"
        print(
            f"Unmetered: the CLI reports no cost, so the budget cannot stop this run; {cap}.", file=sys.stderr
        )
    if summary.stopped_for_calls:
        print(
            "Call cap reached: stopped before every row ran. Rerun with a larger --max-calls to finish.",
            file=sys.stderr,
        )
        return exitcodes.BUDGET
    if summary.stopped_for_budget:
        print(
            "Budget spent: stopped before every row ran. Rerun with a larger --budget-usd to finish.",
            file=sys.stderr,
        )
        return exitcodes.BUDGET
    return exitcodes.OK


@app.command("merge")
def merge_command(
    shards: list[Path] = typer.Argument(..., help="Every shard's output (from 'run --shard K/N')."),
    output: Path = typer.Option(
        ..., "--output", help="The merged responses JSONL (written whole, or not at all)."
    ),
    plan: Path | None = typer.Option(
        None, "--plan", help="The plan ('adhd-evals plan' output): refuse unless the shards ran exactly it."
    ),
    max_bytes: int = typer.Option(
        DEFAULT_MAX_BYTES, "--max-bytes", min=1, help="Refuse, unread, any input file larger than this."
    ),
) -> int:
    """Merge shard outputs, refusing a missing or foreign shard and a missing or doubled row."""
    set_max_bytes(max_bytes)

    from .output import refuse_clobbering, write_all_atomically
    from .runs.merge import merge

    refuse_clobbering({"--output": output}, {"plan": plan, **{f"shard {p}": p for p in shards}})
    merged = merge(shards, plan)
    write_all_atomically({output: merged.text()})
    cached = f"; {merged.cached} from the cache, not charged (first cost ${merged.cached_cost:.4f})"
    unmetered = f"; {merged.unmetered} with no reported cost" if merged.unmetered else ""
    print(
        f"Merged {plural(merged.shards, 'shard')} ({plural(merged.rows, 'row')}) into {output}. "
        f"Total spend ${merged.spent:.4f}" + (cached if merged.cached else "") + unmetered + "."
    )
    return exitcodes.OK


class CacheAction(str, enum.Enum):
    STATS = "stats"
    PRUNE = "prune"


@app.command("cache")
def cache_command(
    action: CacheAction = typer.Argument(..., help="stats: what the cache holds; prune: remove old entries."),
    cache: Path | None = typer.Option(
        None, "--cache", help="The cache folder (default $XDG_CACHE_HOME/adhd-evals/responses)."
    ),
    older_than: str | None = typer.Option(
        None, "--older-than", metavar="AGE", help="prune: entries not written for this long (30d, 12h, 90m)."
    ),
) -> int:
    """The response cache: what it holds, and pruning what is old."""
    from .runs import cache as caching

    root = cache if cache is not None else caching.default_dir()
    if action is CacheAction.PRUNE:
        if older_than is None:
            raise UsageError("cache prune needs --older-than AGE (for example 30d)")
        removed, freed = caching.prune(root, caching.parse_age(older_than))
        print(f"Removed {plural(removed, 'entry', 'entries')} ({freed:,} bytes) from {root}.")
        return exitcodes.OK
    if older_than is not None:
        raise UsageError("--older-than is for cache prune")
    found = caching.stats(root)
    print("\n".join(caching.stats_lines(root, found)))
    return exitcodes.OK


class Gate(str, enum.Enum):
    REFERENCE = "reference"
    PAIRED = "paired"


@app.command("score")
def score_command(
    scores: Path = typer.Argument(
        ..., help="Score rows (case_id, trial, condition, five metrics 1-5, blocker, notes)."
    ),
    checks: Path | None = typer.Option(None, "--checks", help="Results of 'adhd-evals check --output'."),
    key: Path | None = typer.Option(
        None, "--key", help="The key 'adhd-evals blind' wrote: maps labels back."
    ),
    weights: str | None = typer.Option(
        None, "--weights", help="correctness=0.35,autonomy=0.25,actionability=0.2,safety=0.1,concision=0.1"
    ),
    as_json: bool = typer.Option(False, "--json", metavar=FLAG, help="Print the reference's JSON summary."),
    allow_unwritten: bool = typer.Option(
        False, "--allow-unwritten", metavar=FLAG, help="Let the gate pass with unwritten or erroring checks."
    ),
    min_trials: int | None = typer.Option(
        None, "--min-trials", min=1, help="The gate says 'incomparable' when a case has fewer trials."
    ),
    criteria: Path | None = typer.Option(
        None,
        "--criteria",
        help="Criterion verdicts from 'adhd-evals verdicts': the gate fails while any is undecided.",
    ),
    certificate: Path | None = typer.Option(
        None,
        "--certificate",
        help="With --criteria: the judge's certificate; without it no judge verdict counts.",
    ),
    max_bytes: int = typer.Option(
        DEFAULT_MAX_BYTES, "--max-bytes", min=1, help="Refuse, unread, any input file larger than this."
    ),
    gate: Gate = typer.Option(
        Gate.REFERENCE,
        "--gate",
        help="reference: the reference's four rules (exit 1 when they fail); paired: better (0), worse (1) "
        "or inconclusive (8) from the per-case differences.",
    ),
    min_effect: float = typer.Option(
        0.0,
        "--min-effect",
        help="--gate paired: better only when the weighted Δ's 95% interval lies above this.",
    ),
    max_drop: float = typer.Option(
        0.1,
        "--max-drop",
        min=0.0,
        help="--gate paired: correctness or safety confidently down more than this is worse.",
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap's resamples (stated in the output)."),
) -> int:
    """Per-condition means, the weighted score, the paired analysis and the release decision."""
    set_max_bytes(max_bytes)

    from .runs import score as scoring
    from .runs.decision import checked

    decide = checked(gate.value, min_effect, max_drop, seed)
    rows = scoring.read_rows(scores)
    if key is not None:
        rows = scoring.apply_key(rows, scoring.read_key(key))
    results = scoring.read_results(checks) if checks is not None else None
    summary = scoring.summarize(
        rows,
        scoring.parse_weights(weights),
        results,
        allow_unwritten=allow_unwritten,
        min_trials=min_trials,
        decide=decide,
        criteria=_criteria(criteria, certificate),
    )
    print(scoring.dumps(summary) if as_json else "\n".join(scoring.table(summary)))
    if criteria is not None and not as_json:
        from .runs.criteria import table as criteria_table

        print("\n".join(criteria_table(summary["criteria"])))
    if gate is Gate.PAIRED:
        verdict = summary["decision"]["verdict"]
        return {"better": exitcodes.OK, "worse": exitcodes.GATE}.get(verdict, exitcodes.INCONCLUSIVE)
    return exitcodes.OK if summary["release_gate"]["passed"] else exitcodes.GATE


def _criteria(criteria: Path | None, certificate: Path | None) -> dict[str, Any] | None:
    """score --criteria: who decided each criterion (its reasons join the gate's, so the gate
    fails while any is undecided and the paired decision counts them too)."""
    if criteria is None:
        if certificate is not None:
            raise UsageError("--certificate counts a judge's criterion verdicts: pass them with --criteria")
        return None
    from .runs import agree
    from .runs import criteria as counting

    certified = agree.read_certificate(certificate) if certificate is not None else None
    found: dict[str, Any] = counting.summarize(counting.read_verdicts(criteria), certified)
    return found


@app.command("blind")
def blind_command(
    responses: Path = typer.Argument(..., help="Responses from 'adhd-evals run'."),
    sheet: Path = typer.Option(..., "--sheet", help="The judging sheet to write (JSONL)."),
    key: Path = typer.Option(..., "--key", help="The key file to write (keep it from the judges)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the shuffled label order."),
    cases: Path | None = typer.Option(
        None,
        "--cases",
        help=f"The catalog whose prompts and criteria the sheet carries (default {DEFAULT_CATALOG}).",
    ),
    markdown: Path | None = typer.Option(
        None, "--markdown", help="Also write the sheet as a readable document."
    ),
    max_bytes: int = typer.Option(
        DEFAULT_MAX_BYTES, "--max-bytes", min=1, help="Refuse, unread, any input file larger than this."
    ),
) -> int:
    """Write a judging sheet with conditions hidden behind labels A/B/C, plus a key file."""
    set_max_bytes(max_bytes)

    from .catalog import load_valid
    from .output import refuse_clobbering, write_all_atomically
    from .runs.blind import blind
    from .runs.blind import markdown as sheet_markdown
    from .runs.check import read_responses

    catalog = cases if cases is not None else Path(DEFAULT_CATALOG)
    refuse_clobbering(
        {"--sheet": sheet, "--key": key, "--markdown": markdown},
        {"responses file": responses, "catalog": catalog},
    )
    known = None
    if cases is not None or catalog.exists():
        known = {case["id"]: case for case in load_valid(catalog)}
    else:
        print(
            f"No catalog at {catalog}: the sheet carries no prompts or criteria (pass --cases).",
            file=sys.stderr,
        )
    rows, keyed = blind(read_responses(responses), seed, known)
    files = {sheet: jsonl.text(rows), key: jsonl.text(keyed)}
    if markdown is not None:
        files[markdown] = sheet_markdown(rows)
    write_all_atomically(files)
    print(
        f"Wrote {len(rows)} rows to {sheet} and their key to {key}. The filled sheet is the scores file: "
        f"adhd-evals score {sheet} --key {key}",
        file=sys.stderr,
    )
    return exitcodes.OK


@app.command("judge")
def judge_command(
    sheet: Path = typer.Argument(..., help="The blind sheet (from 'adhd-evals blind')."),
    runner: str = typer.Option(
        ..., "--runner", help="A runner from --runner-config, or the built-in 'stub' (a toy)."
    ),
    runner_config: Path | None = typer.Option(None, "--runner-config", help="runners.json."),
    cases: Path = typer.Option(Path(DEFAULT_CATALOG), "--cases", help="The catalog."),
    output: Path = typer.Option(..., "--output", help="The judged sheet (JSONL; rerun to resume)."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Calls run at once."),
    budget_usd: float = typer.Option(25.0, "--budget-usd", help="Stop once the judge has spent this much."),
    allow_unmetered: bool = typer.Option(
        False, "--allow-unmetered", metavar=FLAG, help="Allow a judge whose format reports no cost."
    ),
    retries: int = typer.Option(2, "--retries", help="Retries per call after a failure."),
    timeout: float | None = typer.Option(None, "--timeout", help="Seconds one judge call may take."),
    assume_call_usd: float | None = typer.Option(
        None, "--assume-call-usd", help="Without a budget_flag: the most one judge call may cost (see run)."
    ),
    swap_check: bool = typer.Option(
        False,
        "--swap-check",
        metavar=FLAG,
        help="Judge a sample again with the criteria in reverse order and report verdicts that change.",
    ),
    swap_sample: int = typer.Option(10, "--swap-sample", min=1, help="Rows --swap-check judges again."),
    shard: str | None = typer.Option(None, "--shard", metavar="K/N|auto", help=SHARD_HELP),
    shard_count: int | None = typer.Option(None, "--shard-count", help=SHARD_COUNT_HELP),
) -> int:
    """Fill a blind sheet with a model judge; rows it cannot judge are void, never passed."""
    from .output import refuse_clobbering
    from .runs.config import load_runner
    from .runs.judge import JudgeRequest, judge

    refuse_clobbering(
        {"--output": output}, {"sheet": sheet, "catalog": cases, "runner config": runner_config}
    )

    request = JudgeRequest(
        load_runner(runner, runner_config),
        sheet,
        output,
        cases,
        jobs,
        budget_usd,
        allow_unmetered,
        retries,
        timeout=timeout,
        assume_call_usd=assume_call_usd,
        swap_check=swap_check,
        swap_sample=swap_sample,
        shard=_shard(shard, shard_count),
    )
    summary = judge(request)
    print(
        f"Judged {plural(summary.judged, 'row')} ({summary.void} void), skipped {summary.skipped} already in "
        f"{output}; spent ${summary.spent:.4f}.",
        file=sys.stderr,
    )
    if summary.charged_calls:
        from .runs.execute import charged_line

        print(charged_line(summary.charged, summary.charged_calls), file=sys.stderr)
    if summary.swap is not None:
        from .runs.judge import swap_lines

        print("\n".join(swap_lines(summary.swap)), file=sys.stderr)
    if runner == "stub" and runner_config is None:
        print("The stub judge is a toy for trying the pipeline: its scores judge nothing.", file=sys.stderr)
    if summary.stopped_for_budget:
        print(
            "Budget spent: stopped before every row was judged. Rerun with a larger --budget-usd.",
            file=sys.stderr,
        )
        return exitcodes.BUDGET
    return exitcodes.OK


@app.command("agree")
def agree_command(
    judged: Path = typer.Argument(..., help="The sheet the judge filled ('adhd-evals judge --output')."),
    human: Path = typer.Argument(
        ..., help="The same sheet, filled by a person (a sample is enough): JSONL, or the filled Markdown."
    ),
    min_kappa: float | None = typer.Option(
        None, "--min-kappa", help="Exit 1 when any metric's weighted kappa is below this (or undefined)."
    ),
    as_json: bool = typer.Option(False, "--json", metavar=FLAG, help="Print the figures as JSON."),
    certify: bool = typer.Option(
        False,
        "--certify",
        metavar=FLAG,
        help="Write a certificate (--out) when TPR's and TNR's lower 95% bounds reach --min-lower.",
    ),
    min_lower: float = typer.Option(
        0.8, "--min-lower", help="The bar each lower bound must reach to certify."
    ),
    out: Path | None = typer.Option(None, "--out", help="Where --certify writes the certificate (JSON)."),
    max_bytes: int = typer.Option(
        DEFAULT_MAX_BYTES, "--max-bytes", min=1, help="Refuse, unread, any input file larger than this."
    ),
) -> int:
    """How far a judge agrees with a person: kappa per metric, TPR and TNR with intervals; certify it."""
    set_max_bytes(max_bytes)

    from .runs import agree

    if certify != (out is not None):
        raise UsageError("--certify writes the certificate to --out FILE: pass both, or neither")
    if out is not None:
        from .output import refuse_clobbering

        refuse_clobbering({"--out": out}, {"judged sheet": judged, "person's sheet": human})
    judged_rows = agree.read_scored(judged)
    found = agree.agreement(judged_rows, agree.read_scored(human))
    print(json.dumps(found, indent=2) if as_json else "\n".join(agree.table(found)))
    for warning in found["warnings"]:
        print(f"Warning: {warning}.", file=sys.stderr)
    if min_kappa is not None:
        low = [m for m, v in found["metrics"].items() if v["kappa"] is None or v["kappa"] < min_kappa]
        if low or not found["metrics"]:
            print(
                f"Below --min-kappa {min_kappa}: {', '.join(low) or 'no metric scored by both'}; "
                "do not trust the judge there.",
                file=sys.stderr,
            )
            return exitcodes.FAILED
    if out is not None:
        _certify(found, judged_rows, min_lower, out)
    return exitcodes.OK


def _certify(found: dict[str, Any], judged: list[dict[str, Any]], min_lower: float, out: Path) -> None:
    import datetime

    from .output import write_all_atomically
    from .runs import agree

    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    written = agree.certificate(found, judged, min_lower, now)
    write_all_atomically({out: json.dumps(written, indent=2, ensure_ascii=False) + "\n"})
    print(
        f"Certified: wrote {out} (judge {written['fingerprint']['runner']}, template "
        f"{written['fingerprint']['template']}, on {found['sample']['rows']} labelled rows).",
        file=sys.stderr,
    )


@app.command("verdicts")
def verdicts_command(
    out: Path = typer.Option(..., "--out", help="Where to write the criterion verdicts (JSONL)."),
    checks: Path | None = typer.Option(None, "--checks", help="Results of 'adhd-evals check --output'."),
    labels: list[Path] | None = typer.Option(
        None, "--labels", help="A sheet a person filled (JSONL or the Markdown); repeatable."
    ),
    judged: Path | None = typer.Option(None, "--judged", help="The sheet a judge filled ('judge --output')."),
    key: Path | None = typer.Option(
        None, "--key", help="The key 'adhd-evals blind' wrote: maps labels back."
    ),
    certificate: Path | None = typer.Option(
        None,
        "--certificate",
        help="The judge's certificate ('agree --certify'); without it no judge verdict counts.",
    ),
    cases: Path = typer.Option(Path(DEFAULT_CATALOG), "--cases", help="The catalog (each case's criteria)."),
    max_bytes: int = typer.Option(
        DEFAULT_MAX_BYTES, "--max-bytes", min=1, help="Refuse, unread, any input file larger than this."
    ),
) -> int:
    """One verdict per criterion, and who decided it: a written check, else a person, else a certified judge."""
    set_max_bytes(max_bytes)

    from .catalog import load_valid
    from .output import refuse_clobbering, write_all_atomically
    from .runs import agree
    from .runs import verdicts as merging

    refuse_clobbering(
        {"--out": out},
        {
            "check results file": checks,
            "judged sheet": judged,
            "key file": key,
            "certificate": certificate,
            "catalog": cases,
            **{f"labels {n}": p for n, p in enumerate(labels or [], 1)},
        },
    )
    if checks is None and not labels and judged is None:
        raise UsageError("nothing to merge: pass --checks, --labels or --judged (with --key)")
    key_rows = merging.read_key(key) if key is not None else None
    sources = merging.Sources({case["id"]: case["criteria"] for case in load_valid(cases)}, key=key_rows)
    sources.checks = merging.read_checks(checks) if checks is not None else []
    sources.labels = [(str(p), merging.unblind(agree.read_scored(p), key_rows, str(p))) for p in labels or []]
    if judged is not None:
        sources.judged = merging.unblind(agree.read_scored(judged), key_rows, str(judged))
    sources.certificate = agree.read_certificate(certificate) if certificate is not None else None
    rows = merging.merge(sources)
    write_all_atomically({out: jsonl.text(rows)})
    print("\n".join(merging.summary_table(rows)))
    print(f"Wrote {plural(len(rows), 'criterion verdict')} to {out}.", file=sys.stderr)
    return exitcodes.OK


class ReportFormat(str, enum.Enum):
    HTML = "html"
    MARKDOWN = "markdown"


@app.command("report")
def report_command(
    cases: Path = typer.Option(Path(DEFAULT_CATALOG), "--cases", help="The catalog."),
    responses: Path = typer.Option(..., "--responses", help="Response rows, as run wrote them."),
    checks: Path | None = typer.Option(None, "--checks", help="Results of 'adhd-evals check --output'."),
    scores: Path | None = typer.Option(None, "--scores", help="Score rows (or a judged sheet with --key)."),
    key: Path | None = typer.Option(
        None, "--key", help="The key 'adhd-evals blind' wrote, for a labelled sheet."
    ),
    out: Path = typer.Option(..., "--out", help="Where to write the report (written whole, or not at all)."),
    fmt: ReportFormat = typer.Option(
        ReportFormat.HTML, "--format", help="html (one offline file) or markdown."
    ),
    criteria: Path | None = typer.Option(
        None, "--criteria", help="Criterion verdicts from 'adhd-evals verdicts': who decided, per condition."
    ),
    certificate: Path | None = typer.Option(
        None, "--certificate", help="With --criteria: the judge's certificate (as score takes it)."
    ),
    max_bytes: int = typer.Option(
        DEFAULT_MAX_BYTES, "--max-bytes", min=1, help="Refuse, unread, any input file larger than this."
    ),
    gate: Gate = typer.Option(Gate.REFERENCE, "--gate", help="The verdict shown: as 'score --gate'."),
    min_effect: float = typer.Option(0.0, "--min-effect", help="As 'score --min-effect' (--gate paired)."),
    max_drop: float = typer.Option(0.1, "--max-drop", min=0.0, help="As 'score --max-drop' (--gate paired)."),
) -> int:
    """One self-contained HTML report (or Markdown for CI): the gate, charts, every case."""
    set_max_bytes(max_bytes)

    from .catalog import load_valid
    from .output import refuse_clobbering, write_all_atomically
    from .runs import report
    from .runs import score as scoring
    from .runs.check import read_responses
    from .runs.decision import checked

    if key is not None and scores is None:
        raise UsageError("--key maps a labelled score sheet back: pass the sheet with --scores")
    decide = checked(gate.value, min_effect, max_drop)
    refuse_clobbering(
        {"--out": out},
        {
            "catalog": cases,
            "responses file": responses,
            "check results file": checks,
            "scores file": scores,
            "key file": key,
            "criterion verdicts": criteria,
            "certificate": certificate,
        },
    )
    inputs = report.Inputs(load_valid(cases), read_responses(responses))
    inputs.checks = scoring.read_results(checks) if checks is not None else None
    inputs.criteria = _criteria(criteria, certificate)
    if scores is not None:
        rows = scoring.read_rows(scores)
        inputs.scores = scoring.apply_key(rows, scoring.read_key(key)) if key is not None else rows
        # the verdict is score's own: the same rows refused the same way
        inputs.summary = scoring.summarize(
            inputs.scores, None, inputs.checks, decide=decide, criteria=inputs.criteria
        )
    text = report.html_report(inputs) if fmt is ReportFormat.HTML else report.markdown_report(inputs)
    write_all_atomically({out: text})
    print(f"Wrote {out} ({plural(len(inputs.cases), 'case')}, {plural(len(inputs.responses), 'response')})")
    return exitcodes.OK


class ExportTarget(str, enum.Enum):
    PROMPTFOO = "promptfoo"
    EVALS_JSON = "evals-json"


@app.command("export")
def export_command(
    to: ExportTarget = typer.Option(..., "--to", help="promptfoo (a config) or evals-json (skill-creator)."),
    cases: Path = typer.Option(Path(DEFAULT_CATALOG), "--cases", help="The catalog to export."),
    suite: Path = typer.Option(Path(DEFAULT_MODULE), "--suite", help="Its check module (promptfoo only)."),
    out: Path = typer.Option(
        ..., "--out", help="The file to write (promptfoo: .json writes JSON, else YAML)."
    ),
) -> int:
    """Export the catalog to a promptfoo config or a skill-creator evals.json; says what did not survive."""
    from .importing.export import export
    from .output import write_all_atomically

    result = export(to.value, cases, suite, as_json=out.suffix.lower() == ".json")
    write_all_atomically({out: result.text})
    lines = [f"Wrote {out} ({plural(result.cases, 'case')}, {to.value})."]
    if result.lost:
        lines += ["Did not survive the export:", *(f"  {line}" for line in result.lost)]
    print("\n".join(lines), file=sys.stderr)
    return exitcodes.OK


@app.command(
    "lint", context_settings={"allow_extra_args": True, "ignore_unknown_options": True}, add_help_option=False
)
def lint_command(ctx: typer.Context) -> int:
    """Lint case files of every format with positions (see 'adhd-evals lint --help')."""
    from .lint.cli import main as lint_main

    return lint_main(list(ctx.args))


def main(argv: list[str]) -> int:
    """Run one typer command; errors propagate to the boundary in entry.main."""
    argv = _bare_cache(argv)
    try:
        result = _registry(argv)(args=argv, prog_name="adhd-evals", standalone_mode=False)
    except typer.Exit as exc:  # --help, --version
        return int(exc.exit_code)
    except typer.Abort as exc:  # Ctrl-C at a prompt
        raise KeyboardInterrupt from exc
    except typer.TyperException as exc:  # a usage error: bad option, missing argument
        # click lays some messages out over lines ("Choose from:\n\tyaml,..."): one line here
        # and typer 0.29+ (pydantic) prefixes a bad choice with "Value error, ": not in ours,
        # so the message reads the same whatever typer an environment holds
        message = " ".join(exc.format_message().replace("Value error, ", "").split())
        raise UsageError(message, hint="Try 'adhd-evals --help'.") from exc
    return result if isinstance(result, int) else exitcodes.OK


def _bare_cache(argv: list[str]) -> list[str]:
    """`--cache` with no DIR after it (last, or before another option) means the default folder:
    typer's options take a value or none, never either, so the bare form becomes `--cache=`."""
    if not argv or argv[0] not in ("run", "plan"):
        return argv
    out = list(argv)
    for at, word in enumerate(out):
        if word == "--":
            break
        if word == "--cache" and (at + 1 == len(out) or out[at + 1].startswith("-")):
            out[at] = "--cache="
    return out


def _registry(argv: list[str]) -> typer.Typer:
    """The app to parse `argv` with: when it names a command, an app of that command alone.

    Typer builds a click command for every registered command on each start,
    reading each one's signature (about 6 ms for the 13 here); building the one
    being run takes 0.6. Anything else (no command, --help, a misspelt name)
    gets the whole app, so listings and suggestions are unchanged.
    """
    named = [info for info in app.registered_commands if argv and info.name == argv[0]]
    if not named:
        return app
    one = typer.Typer(add_completion=False, pretty_exceptions_enable=False, help=app.info.help)
    one.registered_callback = app.registered_callback
    one.registered_commands = named
    return one
