"""The commands' plain bodies, one module per stage: each takes keyword arguments, builds the
request and calls the core. Nothing here imports typer (nor click, pydantic or rich), so a
command line the fast path parses runs without them (cli.fast, docs/startup.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...runs.calling.shard import Shard as ShardPart


def bare_cache(argv: list[str]) -> list[str]:
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


def shard_part(spec: str | None, count: int | None) -> ShardPart | None:
    """The shard --shard and --shard-count name, or None for the whole run."""
    if spec is None:
        return None
    # Imported here, and only for --shard: only check, run and judge take it, and the others
    # import nothing from runs (tests/test_cli_startup.py); unsharded, it costs ~8 ms for nothing
    from ...runs.calling.shard import parse

    return parse(spec, count=count)
