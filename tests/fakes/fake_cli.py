"""A small fake model CLI for runner tests: answers in each response format,
fails N times before succeeding, reports cost (honouring a budget flag), sleeps,
hangs, floods, spawns a grandchild, reads its prompt from stdin, and appends
every call to a file so tests can count them.

    fake_cli.py [--format text|claude-json|codex-jsonl] [--cost USD|nan] [--fail-times N --state FILE]
                [--sleep S] [--hang] [--max-budget USD] [--calls FILE] [--grandchild MARKER]
                [--flood BYTES] [--stdin] [--numbered] [--hold FILE] [PROMPT]

--numbered adds the call's number (its line in --calls) to the answer, so repeated
calls of one prompt answer differently (as a model sampling at temperature does).
--hold FILE keeps each call from answering until FILE exists (at most 120 s), so a test
knows the run is still going (a fixed --sleep does not, on a loaded machine).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--format", default="text")
    parser.add_argument("--cost", default=None)
    parser.add_argument("--fail-times", type=int, default=0)
    parser.add_argument("--state", type=Path, default=None)
    parser.add_argument("--sleep", type=float, default=0.0)
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--max-budget", type=float, default=None)
    parser.add_argument("--calls", type=Path, default=None)
    parser.add_argument("--grandchild", default=None)
    parser.add_argument("--flood", type=int, default=0)
    parser.add_argument("--stdin", action="store_true")
    parser.add_argument("--numbered", action="store_true")
    parser.add_argument("--hold", type=Path, default=None)
    parser.add_argument("prompt", nargs="?", default="")
    args = parser.parse_args()
    prompt = sys.stdin.read() if args.stdin else args.prompt
    if args.calls is not None:  # one line per call, appended whole (O_APPEND)
        with args.calls.open("a") as calls:
            calls.write(json.dumps({"pid": os.getpid(), "prompt": prompt, "budget": args.max_budget}) + "\n")
    if args.grandchild:  # a process of its own group that outlives nothing it should
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", args.grandchild])
    if args.hang:
        time.sleep(3600)
    if args.fail_times and args.state is not None:
        count = int(args.state.read_text()) if args.state.exists() else 0
        if count < args.fail_times:
            args.state.write_text(str(count + 1))
            print(f"upstream overloaded (attempt {count + 1})", file=sys.stderr)
            return 3
    time.sleep(args.sleep)
    deadline = time.monotonic() + 120
    while args.hold is not None and not args.hold.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    if args.flood:
        sys.stdout.write("x" * args.flood)
        return 0
    digest = hashlib.sha256(prompt.encode()).hexdigest()[:8]
    text = f"answer {digest}" + (" <task> seen" if "<task>" in prompt else "")
    if args.numbered and args.calls is not None:
        text += f" call {len(args.calls.read_text().splitlines())}"
    if args.max_budget is not None:
        text += f" budget={args.max_budget:.4f}"
    cost = None if args.cost is None else float(args.cost)
    if cost is not None and args.max_budget is not None:
        cost = min(cost, args.max_budget)  # a CLI that honours its budget flag never spends past it
    if args.format == "claude-json":
        payload: dict[str, object] = {"result": text, "usage": {"input_tokens": 10, "output_tokens": 5}}
        if cost is not None:
            payload["total_cost_usd"] = cost
        print(json.dumps(payload))
    elif args.format == "codex-jsonl":
        print(json.dumps({"type": "item.completed", "item": {"type": "agent_message", "text": text}}))
        print(json.dumps({"type": "turn.completed", "usage": {"input_tokens": 7, "output_tokens": 3}}))
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
