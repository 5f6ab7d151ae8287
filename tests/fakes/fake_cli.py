"""A small fake model CLI for runner tests: answers in each response format,
fails N times before succeeding, reports cost, sleeps, or hangs.

    fake_cli.py [--format text|claude-json|codex-jsonl] [--cost USD] [--fail-times N --state FILE]
                [--sleep S] [--hang] [--max-budget USD] PROMPT
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--format", default="text")
    parser.add_argument("--cost", type=float, default=None)
    parser.add_argument("--fail-times", type=int, default=0)
    parser.add_argument("--state", type=Path, default=None)
    parser.add_argument("--sleep", type=float, default=0.0)
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--max-budget", type=float, default=None)
    parser.add_argument("prompt")
    args = parser.parse_args()
    if args.hang:
        time.sleep(3600)
    if args.fail_times and args.state is not None:
        count = int(args.state.read_text()) if args.state.exists() else 0
        if count < args.fail_times:
            args.state.write_text(str(count + 1))
            print(f"upstream overloaded (attempt {count + 1})", file=sys.stderr)
            return 3
    time.sleep(args.sleep)
    digest = hashlib.sha256(args.prompt.encode()).hexdigest()[:8]
    text = f"answer {digest}" + (" <task> seen" if "<task>" in args.prompt else "")
    if args.max_budget is not None:
        text += f" budget={args.max_budget:.4f}"
    if args.format == "claude-json":
        payload = {"result": text, "usage": {"input_tokens": 10, "output_tokens": 5}}
        if args.cost is not None:
            payload["total_cost_usd"] = args.cost
        print(json.dumps(payload))
    elif args.format == "codex-jsonl":
        print(json.dumps({"type": "item.completed", "item": {"type": "agent_message", "text": text}}))
        print(json.dumps({"type": "turn.completed", "usage": {"input_tokens": 7, "output_tokens": 3}}))
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
