"""Running the real promptfoo (0.120.0, from npm) with its echo provider, when it is installed.

The echo provider answers with the prompt it was sent, so one run gives both
promptfoo's rendered prompt (`prompt.raw`) and its verdict on each assertion
for that output (`gradingResult.componentResults`). Found, in order, at
$ADHD_EVALS_PROMPTFOO (its main.js, or a folder holding node_modules), then
under $XDG_CACHE_HOME (or ~/.cache) /adhd-evals/promptfoo-0.120.0, where
.ci/run installs it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

VERSION = "0.120.0"
MAIN = Path("node_modules/promptfoo/dist/src/main.js")


def install_folder() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "adhd-evals" / f"promptfoo-{VERSION}"


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
    return None, (
        f"promptfoo {VERSION} is not installed at {install_folder()} "
        f"(npm install --prefix {install_folder()} promptfoo@{VERSION}, then link "
        "node_modules/promptfoo/drizzle to dist/drizzle; .ci/run does both)"
    )


def run_echo(
    main: Path, config: Path, work: Path, *, extra_env: dict[str, str] | None = None, timeout: float = 180
) -> list[dict[str, Any]]:
    """promptfoo's results for `config` with the echo provider, in (test, prompt) order."""
    out = work / "promptfoo-output.json"
    home = work / "promptfoo-home"
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
    return sorted(results, key=lambda r: (r["testIdx"], r["promptIdx"]))
