"""Running the real promptfoo (0.120.0, from npm) with its echo provider, when it is installed.

The echo provider answers with the prompt it was sent, so one run gives both
promptfoo's rendered prompt (`prompt.raw`) and its verdict on each assertion
for that output (`gradingResult.componentResults`). Found, in order, at
$ADHD_EVALS_PROMPTFOO (its main.js, or a folder holding node_modules), then
under $XDG_CACHE_HOME (or ~/.cache) /adhd-evals/promptfoo-0.120.0, where
.ci/run installs it.

A run asked to (`remembered=True`) is kept under $XDG_CACHE_HOME/adhd-evals/promptfoo-results,
named by a digest of everything the run depends on: promptfoo's main.js (path, size, mtime),
node's version, the command, the PROMPTFOO_ variables, and every file of the config's
folder. The echo provider's results are a function of those, so a later run with the same
digest reads them instead of starting node again (about 1.5 s of CPU each); any change to a
fixture, to promptfoo or to node runs promptfoo again. ADHD_EVALS_PROMPTFOO_FRESH=1 always runs it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

VERSION = "0.120.0"
MAIN = Path("node_modules/promptfoo/dist/src/main.js")


def _user_cache() -> Path:
    """The user's cache folder: the suite moves XDG_CACHE_HOME to a folder of its own (conftest)
    and keeps the user's in ADHD_EVALS_USER_CACHE, where .ci/run installs promptfoo."""
    given = os.environ.get("ADHD_EVALS_USER_CACHE") or os.environ.get("XDG_CACHE_HOME")
    return Path(given) if given else Path.home() / ".cache"


def install_folder() -> Path:
    return _user_cache() / "adhd-evals" / f"promptfoo-{VERSION}"


def find() -> tuple[Path | None, str]:
    """promptfoo's main.js, or None and why not."""
    if shutil.which("node") is None:
        return None, "node is not installed (promptfoo runs on Node 20)"
    given = os.environ.get("ADHD_EVALS_PROMPTFOO")
    candidates = [Path(given)] if given else []
    candidates.append(install_folder())
    for candidate in candidates:
        main = candidate if candidate.suffix == ".js" else candidate / MAIN
        if main.is_file():
            return main, ""
    why = (
        f"promptfoo {VERSION} is not installed at {install_folder()} "
        f"(npm install --prefix {install_folder()} promptfoo@{VERSION}, then link "
        "node_modules/promptfoo/drizzle to dist/drizzle; .ci/run does both)"
    )
    if os.environ.get("ADHD_EVALS_REQUIRE_PROMPTFOO") == "1":  # .ci/run installed it: no skip
        pytest.fail(f"{why}, yet ADHD_EVALS_REQUIRE_PROMPTFOO=1 says it was installed")
    return None, why


OUTPUT, HOME = "promptfoo-output.json", "promptfoo-home"  # what a run writes into its work folder


def results_folder() -> Path:
    return _user_cache() / "adhd-evals" / "promptfoo-results"


@functools.cache
def _node_version() -> str:
    return subprocess.run(["node", "--version"], capture_output=True, text=True, check=False).stdout.strip()


def _digest(main: Path, config: Path, command: list[str], env: dict[str, str]) -> str:
    """Everything the echo provider's results depend on, as one sha256."""
    stat = main.stat()
    parts: list[object] = [VERSION, str(main.resolve()), stat.st_size, stat.st_mtime_ns, _node_version()]
    # the run's own folders (its output file, its config dir) are where, not what: left out
    parts.append([OUTPUT if word.endswith(OUTPUT) else word for word in command[2:]])
    parts.append(
        sorted((k, v) for k, v in env.items() if k.startswith("PROMPTFOO_") and k != "PROMPTFOO_CONFIG_DIR")
    )
    for path in sorted(config.parent.rglob("*")):
        relative = path.relative_to(config.parent)
        if path.is_file() and relative.parts[0] not in (OUTPUT, HOME):
            parts.append((relative.as_posix(), hashlib.sha256(path.read_bytes()).hexdigest()))
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()


def _remember(path: Path, results: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, scratch = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(results, handle)
    os.replace(scratch, path)  # whole or not at all: a parallel worker reads one or the other


def run_echo(
    main: Path,
    config: Path,
    work: Path,
    *,
    extra_env: dict[str, str] | None = None,
    timeout: float = 180,
    remembered: bool = False,
) -> list[dict[str, Any]]:
    """promptfoo's results for `config` with the echo provider, in (test, prompt) order;
    `remembered`: read from, or kept in, results_folder() (see the module's docstring)."""
    out = work / OUTPUT
    home = work / HOME
    env = {
        **os.environ,
        "PROMPTFOO_CONFIG_DIR": str(home),
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_DISABLE_REMOTE_GENERATION": "1",
        "PROMPTFOO_SELF_HOSTED": "1",
        "NO_COLOR": "1",
        **(extra_env or {}),
    }
    command = [
        "node",
        str(main),
        "eval",
        "-c",
        config.name,
        "-r",
        "echo",
        "-o",
        str(out),
        "--no-cache",
        "--no-progress-bar",
        "--no-table",
        "--max-concurrency",
        "1",
    ]
    kept = results_folder() / f"{_digest(main, config, command, env)}.json" if remembered else None
    if kept is not None and kept.is_file() and os.environ.get("ADHD_EVALS_PROMPTFOO_FRESH") != "1":
        with contextlib.suppress(ValueError):
            found: list[dict[str, Any]] = json.loads(kept.read_text(encoding="utf-8"))
            return found
    done = subprocess.run(
        command,
        cwd=config.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    if not out.is_file():
        raise RuntimeError(
            f"promptfoo wrote no results (exit {done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
    results: list[dict[str, Any]] = json.loads(out.read_text(encoding="utf-8"))["results"]["results"]
    results.sort(key=lambda r: (r["testIdx"], r["promptIdx"]))
    if kept is not None:
        _remember(kept, results)
    return results
