"""What the judge, agree, verdicts and criteria tests share: small catalogs, sheets, fake judges."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from adhd_evals.entry import main

FAKE_JUDGE = str(Path(__file__).parent / "fakes" / "fake_judge.py")


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def judge_config(folder: Path, mode: str, *extra: str, name: str = "judge") -> Path:
    """A runners.json holding one fake judge in `mode`."""
    config = folder / f"judges-{mode}.json"
    calls = str(folder / "calls.jsonl")
    # -S: no site packages to import (the fake needs only the standard library), a faster start
    command = [sys.executable, "-S", FAKE_JUDGE, "--mode", mode, "--calls", calls, *extra]
    config.write_text(json.dumps({name: {"command": command, "response_format": "text"}}))
    return config


def run_judge(
    folder: Path,
    sheet: Path,
    cases: Path,
    mode: str,
    *extra: str,
    labels: Path | None = None,
    output: Path | None = None,
) -> tuple[int, list[dict[str, Any]]]:
    """Judge `sheet` with the fake judge in `mode`; the exit code and the judged rows."""
    config = judge_config(folder, mode, *(["--labels", str(labels)] if labels else []))
    output = output or folder / f"judged-{mode}.jsonl"
    code = main(
        [
            "judge",
            str(sheet),
            "--runner",
            "judge",
            "--runner-config",
            str(config),
            "--cases",
            str(cases),
            "--output",
            str(output),
            "--retries",
            "0",
            "--allow-unmetered",
            *extra,
        ]
    )
    return code, read_jsonl(output) if output.exists() else []
