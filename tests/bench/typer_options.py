"""Start-up of adhd-evals under each typer it may be installed beside (docs/startup.md's table).

    python tests/bench/typer_options.py [--wheel dist/adhd_evals-*.whl] [--typer 0.28.0,0.29.2] [--runs 15]

Builds one fresh venv per typer version (pip, from the registry), installs the wheel (or this
checkout) there as a user would (byte-compiled, no extras), and times, interleaved so that load
on a shared machine falls on every side alike: `python -c pass`, `import typer`, the hook
(`lint` on a catalog with its checks.py beside it), `validate` and `plan` (two typer commands).
Printed per command: the fastest wall time of the runs and its ratio to `python -c pass`, and the
fastest CPU time (user + system; less sensitive to other sessions on the machine).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "evals"


def make_venv(where: Path, package: str, typer: str) -> Path:
    venv.create(where, with_pip=True)
    python = where / "bin" / "python"
    pins = [f"typer=={typer}"] if typer != "any" else []
    subprocess.run([python, "-m", "pip", "install", "-q", package, *pins], check=True)
    return python


def commands(python: Path) -> dict[str, list[str]]:
    script = str(python.parent / "adhd-evals")
    cases = str(DEMO / "cases.jsonl")
    return {
        "python -c pass": [str(python), "-c", "pass"],
        "import typer": [str(python), "-c", "import typer"],
        "hook: lint catalog + checks.py": [script, "lint", cases, str(DEMO / "checks.py")],
        "validate": [script, "validate", cases],
        "plan --trials 1": [script, "plan", "--cases", cases, "--trials", "1"],
        "--version": [script, "--version"],
    }


def timed(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) for one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wheel", default=str(ROOT), help="a wheel, or a folder pip can install")
    parser.add_argument("--typer", default="0.28.0,0.29.2")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # an install is byte-compiled; so is a start
    with tempfile.TemporaryDirectory() as tmp:
        pythons = {v: make_venv(Path(tmp) / v, args.wheel, v) for v in args.typer.split(",")}
        table = {v: commands(p) for v, p in pythons.items()}
        best: dict[tuple[str, str], tuple[float, float]] = {}
        for _ in range(args.runs):
            for version, cmds in table.items():
                for label, argv in cmds.items():
                    wall, cpu = timed(argv)
                    old = best.get((version, label), (float("inf"), float("inf")))
                    best[(version, label)] = (min(old[0], wall), min(old[1], cpu))
    for version, cmds in table.items():
        floor = best[(version, "python -c pass")][0]
        print(f"typer {version}")
        for label in cmds:
            wall, cpu = best[(version, label)]
            print(f"  {label:34} {wall * 1000:6.0f} ms  {wall / floor:5.1f}x   cpu {cpu * 1000:5.0f} ms")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
