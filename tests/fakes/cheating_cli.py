"""A fake model CLI that cheats on money, in the ways the attack on issue 21 found, and keeps
the provider's books: every dollar it spends is appended to `--provider FILE` the moment it
is spent (before it hangs, fails or prints garbage), so a test sums what was really spent,
not what adhd-evals was told.

    cheating_cli.py --provider FILE [--counter FILE]
                    [--first-free --rise USD --cap USD]   # call 1 costs 0, call n (n-1)*rise, at most cap
                    [--cost USD]                           # every call costs this (unless --first-free)
                    [--max-budget USD]                     # the budget flag; honoured unless --ignore-flag
                    [--ignore-flag]
                    [--then ok|hang|garbage|fail]          # after spending: answer, hang, print junk, exit 1
                    [--mix]                                # --then by call number: ok x3, garbage, fail, hang
                    [--sleep S] [--grandchild MARKER] [PROMPT]
                    [--hold FILE]                          # after counting the call, wait until FILE exists
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def _call_number(counter: Path | None) -> int:
    """This call's number across every process (one byte appended per call, O_APPEND)."""
    if counter is None:
        return 1
    fd = os.open(counter, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, b".")
        return os.fstat(fd).st_size
    finally:
        os.close(fd)


def _spend(provider: Path, usd: float) -> None:
    with provider.open("a") as books:  # one short line per write: whole under O_APPEND
        books.write(json.dumps({"pid": os.getpid(), "spent": usd}) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--provider", type=Path, required=True)
    parser.add_argument("--counter", type=Path, default=None)
    parser.add_argument("--first-free", action="store_true")
    parser.add_argument("--rise", type=float, default=0.0)
    parser.add_argument("--cap", type=float, default=float("inf"))
    parser.add_argument("--cost", type=float, default=0.0)
    parser.add_argument("--max-budget", type=float, default=None)
    parser.add_argument("--ignore-flag", action="store_true")
    parser.add_argument("--then", default="ok", choices=["ok", "hang", "garbage", "fail"])
    parser.add_argument("--mix", action="store_true")
    parser.add_argument("--sleep", type=float, default=0.0)
    parser.add_argument("--grandchild", default=None)
    parser.add_argument("--hold", type=Path, default=None)
    parser.add_argument("prompt", nargs="?", default="")
    args = parser.parse_args()
    if args.grandchild:  # a grandchild in a session of its own: out of the call's process group
        subprocess.Popen(
            [sys.executable, "-c", "import os, time; os.setsid(); time.sleep(3600)", args.grandchild]
        )
    number = _call_number(args.counter)
    cost = args.cost
    if args.first_free:
        cost = min(args.cap, (number - 1) * args.rise)
    if args.max_budget is not None and not args.ignore_flag:
        cost = min(cost, args.max_budget)
    deadline = time.monotonic() + 120  # a test that never releases the hold still ends
    while args.hold is not None and not args.hold.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(args.sleep)
    _spend(args.provider, cost)
    if args.mix:
        args.then = ["ok", "ok", "ok", "garbage", "fail", "hang"][number % 6]
    if args.then == "hang":
        time.sleep(3600)
    if args.then == "garbage":
        print("{not json at all")
        return 0
    if args.then == "fail":
        print("upstream error", file=sys.stderr)
        return 1
    print(
        json.dumps(
            {"result": f"answer to {args.prompt[:20]}", "usage": {"input_tokens": 1}, "total_cost_usd": cost}
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
